"""export_library + load_module round trips of JIT-compiled LLVM modules."""

import os
import subprocess
import sys

import numpy as np
import pytest
import tvm_ffi

from tvm.backend.llvm import build_module, threadpool
from tvm.backend.llvm.testing import (
    elementwise_add_module,
    failing_task_module,
    noop_module,
    thread_ids_module,
)
from tvm.runtime.module import find_linker, load_module

needs_linker = pytest.mark.skipif(find_linker() is None, reason="no C compiler driver to link .so")


@needs_linker
def test_round_trip(tmp_path):
    mod = build_module(elementwise_add_module("exp_add"))
    path = mod.export_library(str(tmp_path / "add.so"))
    assert path == str(tmp_path / "add.so")
    loaded = load_module(path)
    assert loaded.kind == "library"
    assert loaded.ffi_module is not None
    assert loaded.implements_function("exp_add")
    assert not loaded.implements_function("nope")
    a = np.arange(1023, dtype="float32")
    c = np.zeros_like(a)
    loaded["exp_add"](a, a, c)
    np.testing.assert_array_equal(c, 2 * a)
    tc = tvm_ffi.from_dlpack(np.zeros_like(a))
    loaded["exp_add"](tvm_ffi.from_dlpack(a), tvm_ffi.from_dlpack(a), tc)
    np.testing.assert_array_equal(np.from_dlpack(tc), 2 * a)
    # Checks and error kinds survive the trip through the shared library.
    with pytest.raises(ValueError, match=r"Mismatched B.shape\[0\] on argument #1"):
        loaded["exp_add"](a, a[:5], c)
    with pytest.raises(TypeError, match="expected float32, got float64"):
        loaded["exp_add"](a, a, np.zeros(1023))
    assert loaded.inspect_source() == ""


@needs_linker
def test_parallel_library_uses_the_pool(tmp_path):
    mod = build_module(thread_ids_module("exp_ids"))
    loaded = load_module(mod.export_library(str(tmp_path / "ids.so")))
    n = threadpool.num_threads()
    out = np.zeros(n, "int64")
    loaded["exp_ids"](out)  # each task waits for all n to start: n threads must take part
    assert len(set(out.tolist())) == n
    par = build_module(elementwise_add_module("exp_par_add", parallel=True))
    loaded_add = load_module(par.export_library(str(tmp_path / "par.so")))
    a = np.arange(100_003, dtype="float32")
    c = np.zeros_like(a)
    loaded_add["exp_par_add"](a, a, c)
    np.testing.assert_array_equal(c, 2 * a)


@needs_linker
def test_task_error_through_library(tmp_path):
    mod = build_module(failing_task_module("exp_fail", failing_task=2))
    loaded = load_module(mod.export_library(str(tmp_path / "fail.so")))
    with pytest.raises(ValueError, match="task 2 failed on purpose"):
        loaded["exp_fail"](5)


_PLAIN_LOAD = """
import sys, numpy as np, tvm_ffi
f = tvm_ffi.load_module(sys.argv[1])["exp_par2"]
a = np.arange(5000, dtype="float32"); c = np.zeros_like(a)
f(a, a, c)
assert (c == 2 * a).all()
print("ok")
"""


@needs_linker
def test_parallel_library_without_our_loader_runs_serially(tmp_path):
    mod = build_module(elementwise_add_module("exp_par2", parallel=True))
    path = mod.export_library(str(tmp_path / "par2.so"))
    out = subprocess.run(
        [sys.executable, "-c", _PLAIN_LOAD, path],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stdout.strip() == "ok"


@needs_linker
def test_export_with_imports(tmp_path):
    main = build_module(elementwise_add_module("exp_main_add"))
    extra = build_module(noop_module("exp_extra_noop", 1))
    main.import_module(extra)
    loaded = load_module(main.export_library(str(tmp_path / "both.so")))
    assert loaded.implements_function("exp_main_add")
    assert loaded.implements_function("exp_extra_noop")
    loaded["exp_extra_noop"](np.zeros(3, "float32"))


@needs_linker
def test_workspace_dir_keeps_objects(tmp_path):
    mod = build_module(elementwise_add_module("exp_ws", parallel=True))
    work = tmp_path / "work"
    mod.export_library(str(tmp_path / "ws.so"), workspace_dir=str(work))
    objects = sorted(p.name for p in work.rglob("*.o"))
    assert objects == ["exp_ws_module.o", "pytvm_runtime_parallel.o"]


def test_export_object_file(tmp_path):
    mod = build_module(elementwise_add_module("exp_obj"))
    path = mod.export_library(str(tmp_path / "add.o"))
    with open(path, "rb") as obj:
        assert obj.read(4) in (b"\x7fELF", b"\xcf\xfa\xed\xfe")


def test_export_object_file_needs_one_object(tmp_path):
    mod = build_module(elementwise_add_module("exp_obj_par", parallel=True))
    with pytest.raises(ValueError, match="needs exactly one object file, got 2"):
        mod.export_library(str(tmp_path / "par.o"))


def test_custom_fcompile(tmp_path):
    seen = {}

    def fcompile(file_name, objects, **kwargs):
        seen.update(file_name=file_name, objects=list(objects), kwargs=kwargs)
        with open(file_name, "w") as out:
            out.write("linked")

    mod = build_module(elementwise_add_module("exp_fc"))
    mod.export_library(str(tmp_path / "x.so"), fcompile=fcompile, options=["-O2"], cc="g++")
    assert seen["file_name"] == str(tmp_path / "x.so")
    assert [os.path.basename(p) for p in seen["objects"]] == ["exp_fc_module.o"]
    assert seen["kwargs"] == {"options": ["-O2"], "cc": "g++"}


def test_missing_linker_error(tmp_path, monkeypatch):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no cc, gcc or clang
    mod = build_module(elementwise_add_module("exp_nolink"))
    with pytest.raises(RuntimeError) as err:
        mod.export_library(str(tmp_path / "x.so"))
    msg = str(err.value)
    assert "needs a C compiler driver" in msg and "cc, gcc or clang" in msg and "x.so" in msg
    monkeypatch.setenv("CC", "my-missing-cc")
    with pytest.raises(RuntimeError, match="my-missing-cc was not found on PATH"):
        mod.export_library(str(tmp_path / "x.so"))


@needs_linker
def test_link_failure_reports_output(tmp_path):
    mod = build_module(elementwise_add_module("exp_badlink"))
    with pytest.raises(RuntimeError, match="linking .* failed"):
        mod.export_library(str(tmp_path / "x.so"), options=["-Wl,--no-such-linker-flag"])


@needs_linker
def test_loaded_library_is_not_re_exportable(tmp_path):
    mod = build_module(elementwise_add_module("exp_re"))
    loaded = load_module(mod.export_library(str(tmp_path / "re.so")))
    with pytest.raises(ValueError, match="nothing to export"):
        loaded.export_library(str(tmp_path / "again.so"))


def test_unsupported_export_arguments(tmp_path):
    mod = build_module(elementwise_add_module("exp_args"))
    with pytest.raises(ValueError, match="fpack_imports and addons are not supported"):
        mod.export_library(str(tmp_path / "x.so"), addons=["a.o"])
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['linker'\]"):
        mod.export_library(str(tmp_path / "x.so"), linker="gcc")
    with pytest.raises(RuntimeError, match="no-such-cc was not found on PATH"):
        mod.export_library(str(tmp_path / "x.so"), cc="no-such-cc")
