"""tvm.runtime.Module: function lookup, imports, time_evaluator, load_module, BenchmarkResult."""

import numpy as np
import pytest
import tvm_ffi

import tvm.runtime.module as rt
from tvm.runtime.module import BenchmarkResult, Module, load_module


class FakeImpl:
    """A backend implementation made of tvm_ffi-wrapped Python functions."""

    kind = "fake"

    def __init__(self, functions, entry_name="main"):
        self._functions = {name: tvm_ffi.convert(fn) for name, fn in functions.items()}
        self.entry_name = entry_name

    def function_names(self):
        return list(self._functions)

    def get_function(self, name):
        return self._functions.get(name)

    def inspect_source(self, fmt=""):
        return f"source:{fmt}"

    def get_write_formats(self):
        return []


def test_get_function_returns_raw_tvm_ffi_function():
    mod = Module(FakeImpl({"double": lambda x: 2 * x}))
    func = mod["double"]
    assert isinstance(func, tvm_ffi.Function)
    assert func(21) == 42
    assert mod.get_function("double") is func  # looked up once, then cached
    assert mod.function_names() == ["double"]
    assert "double" in mod and "nope" not in mod
    assert repr(mod) == "Module(kind='fake', functions=['double'])"


def test_missing_function():
    mod = Module(FakeImpl({}))
    with pytest.raises(AttributeError, match="Module has no function 'nope'"):
        mod["nope"]
    with pytest.raises(AttributeError, match="Module has no function 'nope'"):
        mod.get_function("nope")
    assert not mod.implements_function("nope")
    with pytest.raises(TypeError, match="function name must be a str, got int"):
        mod[3]


def test_entry_function_and_call():
    mod = Module(FakeImpl({"main": lambda x: x + 1}))
    assert mod.entry_name == "main"
    assert mod.entry_func(1) == 2
    assert mod(5) == 6


def test_kind_and_source():
    mod = Module(FakeImpl({}))
    assert mod.kind == "fake" and mod.type_key == "fake"
    assert mod.inspect_source("ll") == "source:ll"
    assert mod.get_source() == "source:"
    assert mod.ffi_module is None
    assert not mod.is_compilation_exportable()
    assert mod.is_runnable()


def test_imports():
    main = Module(FakeImpl({"f": lambda: 1}))
    lib = Module(FakeImpl({"g": lambda: 2}))
    main.import_module(lib)
    assert main.imports == [lib]
    assert main["g"]() == 2  # __getitem__ searches imports
    assert main.get_function("g", query_imports=True)() == 2
    with pytest.raises(AttributeError):
        main.get_function("g")  # query_imports=False by default
    assert main.implements_function("g", query_imports=True)
    assert not main.implements_function("g")
    with pytest.raises(TypeError, match="expects a tvm.runtime.Module, got str"):
        main.import_module("lib")
    with pytest.raises(ValueError, match="cannot import itself"):
        main.import_module(main)
    main.clear_imports()
    assert main.imports == []


def test_export_of_non_exportable_module(tmp_path):
    mod = Module(FakeImpl({"f": lambda: 1}))
    with pytest.raises(ValueError, match="module of kind 'fake' cannot be exported"):
        mod.export_library(str(tmp_path / "x.so"))


def test_benchmark_result():
    result = BenchmarkResult([1e-3, 2e-3, 3e-3])
    assert result.results == (1e-3, 2e-3, 3e-3)
    assert result.mean == pytest.approx(2e-3) and result.median == pytest.approx(2e-3)
    assert (result.min, result.max) == (1e-3, 3e-3)
    assert result.std == pytest.approx(np.std([1e-3, 2e-3, 3e-3]))
    text = str(result)
    assert text.startswith("Execution time summary:\n")
    assert "mean (ms)" in text and "2.0000" in text
    assert repr(result).startswith("BenchmarkResult(min=0.001, mean=")
    with pytest.raises(ValueError, match="at least one measurement"):
        BenchmarkResult([])


def test_time_evaluator_counts_calls():
    calls = []
    mod = Module(FakeImpl({"work": lambda x: calls.append(x)}))
    timer = mod.time_evaluator("work", tvm_ffi.device("cpu"), number=4, repeat=3)
    result = timer(7)
    assert isinstance(result, BenchmarkResult)
    assert len(result.results) == 3
    assert all(r > 0 for r in result.results)
    assert len(calls) == 1 + 4 * 3  # one warm-up call, then number * repeat
    assert set(calls) == {7}


def test_time_evaluator_min_repeat_ms_grows_number():
    calls = []
    mod = Module(FakeImpl({"work": lambda: calls.append(1)}))
    timer = mod.time_evaluator("work", tvm_ffi.device("cpu"), number=1, repeat=1, min_repeat_ms=5)
    timer()
    assert len(calls) > 2  # one call takes far less than 5 ms, so `number` grew


def test_time_evaluator_errors():
    mod = Module(FakeImpl({"work": lambda: None}))
    with pytest.raises(AttributeError, match="Module has no function 'nope'"):
        mod.time_evaluator("nope", tvm_ffi.device("cpu"))
    with pytest.raises(ValueError, match="no device API for metal"):
        mod.time_evaluator("work", tvm_ffi.device("metal", 0))
    with pytest.raises(
        ValueError, match="f_preproc='cache_flush_cpu_non_first_arg' is not supported"
    ):
        mod.time_evaluator("work", None, f_preproc="cache_flush_cpu_non_first_arg")
    with pytest.raises(ValueError, match="number >= 1 and repeat >= 1"):
        mod.time_evaluator("work", None, number=0)


def test_load_module_errors(tmp_path):
    with pytest.raises(ValueError, match="cannot find file .*nonexist.so"):
        load_module(str(tmp_path / "nonexist.so"))
    text = tmp_path / "x.txt"
    text.write_text("hello")
    with pytest.raises(ValueError, match=r"only shared libraries \(.so, .dylib, .dll\)"):
        load_module(str(text))


def test_load_tvm_ffi_testing_library():
    # Any TVM-FFI library loads: tvm_ffi ships one for its own tests.
    import os

    lib = os.path.join(os.path.dirname(tvm_ffi.libinfo.find_libtvm_ffi()), "libtvm_ffi_testing.so")
    if not os.path.exists(lib):
        pytest.skip("libtvm_ffi_testing.so is not installed")
    mod = load_module(lib)
    assert mod.kind == "library"
    assert isinstance(mod.ffi_module, tvm_ffi.Module)
    assert mod.inspect_source() == ""


def test_system_lib_and_num_threads():
    assert rt.system_lib().kind == "library"
    assert rt.num_threads() >= 1


def test_lazy_runtime_exports():
    import tvm.runtime

    assert tvm.runtime.Module is Module
    assert tvm.runtime.load_module is load_module
    assert tvm.runtime.BenchmarkResult is BenchmarkResult
    assert tvm.runtime.num_threads is rt.num_threads
