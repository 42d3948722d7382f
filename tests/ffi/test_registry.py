"""tvm.ffi registry names over tvm_ffi, tvm.base, tvm.libinfo, and the absence of tvm._ffi."""

import ctypes
import ctypes.util
import importlib

import pytest
import tvm_ffi

import tvm
import tvm.ffi
from tvm import base


def test_register_func_decorator_and_lookup():
    @tvm.ffi.register_func("testing_registry.add_one", override=True)
    def add_one(x):
        return x + 1

    try:
        assert add_one(1) == 2  # the decorator returns the function unchanged
        func = tvm.ffi.get_global_func("testing_registry.add_one")
        assert isinstance(func, tvm.ffi.Function)
        assert func(41) == 42
        assert "testing_registry.add_one" in tvm.ffi.list_global_func_names()
        # Registered in tvm_ffi's process-wide table.
        assert tvm_ffi.get_global_func("testing_registry.add_one")(1) == 2
    finally:
        tvm.ffi.remove_global_func("testing_registry.add_one")
    assert "testing_registry.add_one" not in tvm.ffi.list_global_func_names()


def test_register_func_direct_bare_and_override():
    tvm.ffi.register_func("testing_registry.direct", lambda: "first", override=True)
    try:
        with pytest.raises(Exception, match="already registered|exists"):
            tvm.ffi.register_func("testing_registry.direct", lambda: "second")
        tvm.ffi.register_func("testing_registry.direct", lambda: "third", override=True)
        assert tvm.ffi.get_global_func("testing_registry.direct")() == "third"
    finally:
        tvm.ffi.remove_global_func("testing_registry.direct")

    @tvm.ffi.register_func
    def testing_registry_bare():
        return 7

    try:
        assert tvm.ffi.get_global_func("testing_registry_bare")() == 7
    finally:
        tvm.ffi.remove_global_func("testing_registry_bare")


def test_register_func_rejects_non_string_name():
    with pytest.raises(TypeError, match="name string"):
        tvm.ffi.register_func(3, lambda: None)


def test_get_global_func_missing():
    with pytest.raises(ValueError, match="testing_registry.nope"):
        tvm.ffi.get_global_func("testing_registry.nope")
    assert tvm.ffi.get_global_func("testing_registry.nope", allow_missing=True) is None


def test_names_are_tvm_ffi_objects():
    assert tvm.ffi.Tensor is tvm_ffi.Tensor
    assert tvm.ffi.Device is tvm_ffi.Device
    assert tvm.ffi.Module is tvm_ffi.Module
    assert tvm.ffi.Function is tvm_ffi.Function
    assert tvm.ffi.register_object is tvm_ffi.register_object
    assert tvm.ffi.init_ffi_api is tvm_ffi.init_ffi_api
    assert isinstance(tvm.ffi.convert(lambda: 1), tvm_ffi.Function)
    assert tvm.register_global_func is tvm_ffi.register_global_func
    assert tvm.get_global_func is tvm_ffi.get_global_func


def test_init_ffi_api_fills_module():
    import types

    tvm.ffi.register_func("testing_registry_ns.Hello", lambda: "hi", override=True)
    try:
        module = types.ModuleType("fake_ffi_api")
        import sys

        sys.modules["fake_ffi_api"] = module
        tvm.ffi.init_ffi_api("testing_registry_ns", "fake_ffi_api")
        assert module.Hello() == "hi"
    finally:
        sys.modules.pop("fake_ffi_api", None)
        tvm.ffi.remove_global_func("testing_registry_ns.Hello")


def test_tvm_underscore_ffi_does_not_exist():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tvm._ffi")
    assert not hasattr(tvm, "_ffi")


def test_base_loaded_libs():
    assert base._LOADED_LIBS["tvm_runtime"] is tvm_ffi.LIB
    assert isinstance(base._RUNTIME_ONLY, bool)
    assert not hasattr(base, "py_str")
    assert not hasattr(base, "load_backend_libs")
    assert not hasattr(base, "__version__")
    assert "tvm_runtime_extra" in base._LOADED_LIBS  # recorded by autoload
    if not base._RUNTIME_ONLY:
        assert isinstance(base._LOADED_LIBS["tvm_compiler"], base.LibrarySentinel)


def test_load_lib_once_records_and_reuses(monkeypatch):
    monkeypatch.setattr(base, "_LOADED_LIBS", dict(base._LOADED_LIBS))
    libc_name = ctypes.util.find_library("c") or "libc.so.6"
    handle = base.load_lib_once(libc_name, ctypes.RTLD_LOCAL, name="c_for_test")
    assert base._LOADED_LIBS["c_for_test"] is handle
    assert base.load_lib_once(libc_name, name="c_for_test") is handle
    assert base._basename("/x/y/libtvm_runtime_cuda.so.1") == "tvm_runtime_cuda"
    assert base._basename("foo.dylib") == "foo"


def test_load_lib_once_missing_library(monkeypatch):
    monkeypatch.setattr(base, "_LOADED_LIBS", dict(base._LOADED_LIBS))
    with pytest.raises(OSError, match="libdefinitely_missing_xyz.so"):
        base.load_lib_once("libdefinitely_missing_xyz.so")
    assert "definitely_missing_xyz" not in base._LOADED_LIBS


def test_libinfo():
    assert tvm.__version__ == tvm.libinfo.__version__
    assert tvm.__version__.startswith("0.27")
    assert tvm.libinfo.find_libtvm_runtime()[0].endswith(("libtvm_ffi.so", ".dylib", ".dll"))
    assert any(p.endswith("include") for p in tvm.libinfo.find_include_path())
    assert tvm.libinfo.package_lib_paths()


def test_import_tvm_does_not_import_llvmlite():
    import subprocess
    import sys

    code = "import sys, tvm; print('llvmlite' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "False"


def test_runtime_only_mode_skips_compiler_layers():
    import os
    import subprocess
    import sys

    code = (
        "import sys, tvm, tvm_ffi\n"
        "print(tvm._RUNTIME_ONLY, 'tvm.relax' in sys.modules, 'tvm.ir' in sys.modules,\n"
        "      sorted(tvm.base._LOADED_LIBS), tvm_ffi.registry._SKIP_UNKNOWN_OBJECTS)\n"
        "print(tvm.runtime.tensor([1.0]).numpy())\n"
    )
    env = dict(os.environ, TVM_USE_RUNTIME_LIB="1")
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    first, second = out.stdout.strip().splitlines()
    assert first == "True False False ['tvm_runtime'] True"
    assert second == "[1.]"
