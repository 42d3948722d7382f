"""Builds split into parts that LLVM compiles in parallel threads, loaded into one module."""

import numpy as np
import pytest

import tvm
from tvm import te
from tvm.backend.llvm import build_module, jit
from tvm.backend.llvm.testing import elementwise_add_module
from tvm.driver import build_module as driver
from tvm.ir.module import IRModule
from tvm.runtime.module import find_linker, load_module


@pytest.fixture
def threads(monkeypatch, tmp_path):
    """Three compile threads and a fresh disk cache (this box may have fewer CPUs)."""
    monkeypatch.setattr(jit, "COMPILE_THREADS", 3)
    monkeypatch.setenv("PYTVM_CACHE_DIR", str(tmp_path))
    jit.clear_cache()
    driver.clear_cache()
    yield
    jit.clear_cache()
    driver.clear_cache()


def _kernels(n=64):
    """Four PrimFuncs of different sizes: add, scale, exp and a row sum."""
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    funcs = {
        "add": te.create_prim_func([A, B, te.compute((n, n), lambda i, j: A[i, j] + B[i, j])]),
        "scale": te.create_prim_func([A, te.compute((n, n), lambda i, j: A[i, j] * 3.0)]),
        "expo": te.create_prim_func([A, te.compute((n, n), lambda i, j: te.exp(A[i, j]))]),
        "rowsum": te.create_prim_func([A, te.compute((n,), lambda i: te.sum(A[i, k], axis=k))]),
    }
    return IRModule({name: f.with_attr("global_symbol", name) for name, f in funcs.items()})


def _check(lib, n=64):
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n), dtype="float32"), rng.random((n, n), dtype="float32")
    out = np.zeros((n, n), "float32")
    lib["add"](a, b, out)
    np.testing.assert_allclose(out, a + b, rtol=1e-6)
    lib["scale"](a, out)
    np.testing.assert_allclose(out, a * 3, rtol=1e-6)
    lib["expo"](a, out)
    np.testing.assert_allclose(out, np.exp(a), rtol=1e-5)
    row = np.zeros(n, "float32")
    lib["rowsum"](a, row)
    np.testing.assert_allclose(row, a.sum(axis=1), rtol=1e-4)


def test_partition_balances_and_keeps_order():
    mod = _kernels()
    groups = driver._partition(mod, 3)
    assert len(groups) == 3
    names = [[gv.name_hint for gv in group] for group in groups]
    assert sorted(name for group in names for name in group) == ["add", "expo", "rowsum", "scale"]
    order = [gv.name_hint for gv in mod.functions]
    for group in names:  # module order inside each group
        assert group == sorted(group, key=order.index)
    assert driver._partition(mod, 3) == groups  # deterministic
    assert [list(g) for g in driver._partition(mod, 1)] == [list(mod.functions)]
    assert len(driver._partition(mod, 16)) == 4  # never more groups than functions


def test_compile_in_parts_runs_and_exports(threads, tmp_path):
    lib = tvm.compile(_kernels())
    # Two parts per compile thread (so compiling overlaps generating), at most one per function,
    # each compiled as two modules: the kernels, and their packed wrappers at level 0.
    assert len(lib.impl.ir_texts) == 8
    wrappers = lib.impl.ir_texts[1::2]
    assert all("define i32 @__tvm_ffi_" in text and "declare hidden i32 @" in text
               for text in wrappers)
    assert not any("@__tvm_ffi_" in text for text in lib.impl.ir_texts[::2])
    assert sorted(lib.function_names()) == ["add", "expo", "rowsum", "scale"]
    _check(lib)
    # The parts are linked into one module for assembly and for a single object file.
    assert "__tvm_ffi_rowsum" in lib.inspect_source("asm")
    ll = lib.inspect_source("ll")
    assert all(f"@__tvm_ffi_{name}(" in ll for name in ("add", "scale", "expo", "rowsum"))
    if find_linker() is None:
        pytest.skip("no C compiler/linker on this machine")
    path = str(tmp_path / "parts.so")
    lib.export_library(path)
    _check(load_module(path))


def test_parts_load_from_the_disk_cache(threads):
    first = tvm.compile(_kernels())
    jit.clear_cache()
    driver.clear_cache()
    before = jit.cache_info()
    second = tvm.compile(_kernels())
    after = jit.cache_info()
    assert after["disk_hits"] == before["disk_hits"] + 1
    assert after["compiled"] == before["compiled"]
    assert second.inspect_source("ll") == first.inspect_source("ll")
    _check(second)


def test_build_module_list_of_parts_and_errors(threads):
    parts = [elementwise_add_module("p_add", "float32", ("n",)),
             elementwise_add_module("p_add64", "float64", ("n",))]
    lib = build_module(parts, name="two_parts")
    a = np.arange(5, dtype="float64")
    c = np.zeros_like(a)
    lib["p_add64"](a, a, c)
    np.testing.assert_array_equal(c, 2 * a)
    with pytest.raises(ValueError, match="Mismatched B.shape"):
        lib["p_add"](a.astype("float32"), a[:2].astype("float32"), c.astype("float32"))
    with pytest.raises(ValueError, match="no LLVM module to compile"):
        build_module([])


def test_compile_pauses_the_garbage_collector_and_restores_it(threads):
    import gc

    seen = []
    real = driver._compile_prim_funcs

    def spy(*args):
        seen.append(gc.isenabled())
        return real(*args)

    driver._compile_prim_funcs, saved = spy, real
    try:
        assert gc.isenabled()
        _check(tvm.compile(_kernels()))
        assert seen == [False] and gc.isenabled()
        with pytest.raises(ValueError), driver.gc_paused():
            assert not gc.isenabled()
            raise ValueError("inside")
        assert gc.isenabled()  # re-enabled after an error too
        gc.disable()
        try:
            with driver.gc_paused():
                pass
            assert not gc.isenabled()  # a disabled collector stays disabled
        finally:
            gc.enable()
    finally:
        driver._compile_prim_funcs = saved


def test_an_invalid_part_raises_from_its_compile_thread(threads):
    parts = [elementwise_add_module("ok_add", "float32", ("n",)),
             "define i32 @broken( {", elementwise_add_module("ok_add64", "float64", ("n",)),
             "define i32 @broken2( {"]
    with pytest.raises(ValueError, match="invalid LLVM IR in module 'mixed'"):
        build_module(parts, name="mixed", use_cache=False)
    # The compile threads are free again: a valid build still works.
    lib = build_module(parts[:1] + parts[2:3], name="valid", use_cache=False)
    assert sorted(lib.function_names()) == ["ok_add", "ok_add64"]


def test_concurrent_compiles_from_several_threads(threads):
    # Two user threads compiling at once share the compile threads; the private LLVM
    # contexts (outside llvmlite's lock) must not interfere.
    import concurrent.futures

    def build(scale):
        A = te.placeholder((64, 64), name="A")

        def times(factor):
            return te.create_prim_func(
                [A, te.compute((64, 64), lambda i, j: A[i, j] * float(factor))])

        mods = {f"s{scale}_{i}": times(scale + i) for i in range(4)}
        lib = tvm.compile(IRModule({n: f.with_attr("global_symbol", n) for n, f in mods.items()}))
        a = np.random.default_rng(scale).random((64, 64), dtype="float32")
        out = np.zeros_like(a)
        for i in range(4):
            lib[f"s{scale}_{i}"](a, out)
            np.testing.assert_allclose(out, a * (scale + i), rtol=1e-6)
        return scale

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        assert sorted(pool.map(build, range(1, 7))) == list(range(1, 7))


def test_private_llvm_threads_do_not_take_llvmlites_lock():
    # With llvmlite's process-wide lock held by this thread, a thread compiling privately
    # still finishes (it would wait forever for the lock otherwise); other threads still
    # take the lock.
    import threading

    from llvmlite.binding import ffi

    from tvm.backend.llvm import target_machine

    assert target_machine.parallel_compilation()  # the installed llvmlite has the lock we skip
    text = str(elementwise_add_module("locked_add", "float32", ("n",)))
    options = target_machine.TargetOptions()
    done = []
    with ffi.lib._lock:
        worker = threading.Thread(
            target=lambda: done.append(target_machine.compile_ir(text, "locked", options)))
        worker.start()
        worker.join(timeout=60)  # a deadlock guard, not a timing
        assert done and len(done[0][1]) > 0  # an object file
        blocked = threading.Thread(target=lambda: ffi.lib.LLVMPY_GetVersionInfo())
        blocked.start()
        blocked.join(timeout=0.2)
        assert blocked.is_alive()  # an ordinary llvmlite call waits for the lock
    blocked.join(timeout=60)
    assert not blocked.is_alive()


def test_finish_runs_the_callers_idle_work_while_a_thread_compiles(threads, monkeypatch):
    import threading

    entered, released, calls = threading.Event(), threading.Event(), []
    compile_ir = jit.compile_ir

    def slow_compile(*args, **kwargs):
        entered.set()
        assert released.wait(10), "finish() never ran while_waiting"
        return compile_ir(*args, **kwargs)

    monkeypatch.setattr(jit, "compile_ir", slow_compile)
    compiler = jit.PartCompiler(name="idle", use_cache=False)
    compiler.submit(elementwise_add_module("idle_add"))
    assert entered.wait(10)  # a compile thread holds the only part

    def idle():
        calls.append(threading.current_thread() is threading.main_thread())
        released.set()

    lib = compiler.finish(while_waiting=idle)
    assert calls == [True]
    a, b, c = (np.full(16, v, "float32") for v in (1, 2, 0))
    lib["idle_add"](a, b, c)
    np.testing.assert_array_equal(c, 3)


def test_finish_skips_idle_work_when_nothing_is_compiling(monkeypatch):
    monkeypatch.setattr(jit, "COMPILE_THREADS", 1)
    compiler = jit.PartCompiler(name="serial", use_cache=False)
    compiler.submit(elementwise_add_module("serial_add"))
    calls = []
    compiler.finish(while_waiting=lambda: calls.append(1))
    assert calls == []
