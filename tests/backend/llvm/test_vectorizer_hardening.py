"""Issue 22, defect 1: float min/max row reductions must not abort LLVM's loop vectorizer.

LLVM 22 (llvmlite's build has assertions) aborted the process ("VPlan cost model and legacy
cost model disagreed") vectorizing ``llvm.maxnum``/``llvm.minnum`` reductions of some trip
counts on AMD Zen 4 (``R.nn.softmax`` on (64, 72)). The code generator now emits
``llvm.maximumnum``/``llvm.minimumnum``. An abort kills the process, so every compile here
runs in a child process.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.script import tirx as T

CPUS = ("host", "znver4", "skylake-avx512", "x86-64")


def _run_child(path, code: str, timeout: int = 900) -> subprocess.CompletedProcess:
    # A file, not `python -c`: TVMScript reads the source of the functions it parses.
    path.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          timeout=timeout, check=False)


def test_row_max_and_min_widths_1_to_256_compile_for_four_cpus(tmp_path):
    # One child: the kernels of all 256 widths are lowered once, then LLVM compiles them
    # for each CPU (the child prints each CPU before its compile, so an abort names it).
    done = _run_child(tmp_path / "widths.py", f"""
        import tvm
        from tvm.script import tirx as T
        from tvm.driver.build_module import lower
        from tvm.backend.llvm.codegen import codegen_module
        from tvm.backend.llvm.jit import build_module

        funcs = {{}}
        for w in range(1, 257):
            @T.prim_func
            def rows(a: T.Buffer((T.int64(64), T.int64(w)), "float32"),
                     hi: T.Buffer((T.int64(64),), "float32"),
                     lo: T.Buffer((T.int64(64),), "float32")):
                T.func_attr({{"tirx.noalias": True}})
                for i in T.parallel(T.int64(64)):
                    hi[i] = T.float32(-3.4e38)
                    lo[i] = T.float32(3.4e38)
                    for k in range(T.int64(w)):
                        hi[i] = T.max(hi[i], a[i, k])
                    for k in range(T.int64(w)):
                        lo[i] = T.min(lo[i], a[i, k])
            funcs[f"rows{{w}}"] = rows.with_attr("global_symbol", f"rows{{w}}")
        text = str(codegen_module(lower(tvm.IRModule(funcs), "llvm"), "rows"))
        for cpu in {CPUS!r}:
            print("compiling for", cpu, flush=True)
            target = "llvm" if cpu == "host" else "llvm -mcpu=" + cpu
            build_module(text, target, use_cache=False)
        print("all compiled", flush=True)
    """)
    assert done.returncode == 0 and "all compiled" in done.stdout, (
        done.stdout[-300:] + done.stderr[-1500:])


def test_softmax_64x72_for_znver4_compiles_in_process():
    # The example, in this process: before the fix it aborted the test session.
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((64, 72), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.softmax(x))
            z = bb.emit(relax.op.nn.log_softmax(x))
            out = bb.emit_output(relax.Tuple([y, z]))
        bb.emit_func_output(out)
    ex = tvm.compile(bb.get(), target="llvm -mcpu=znver4")
    assert ex is not None


@pytest.mark.parametrize("width", [31, 72, 127])
def test_softmax_rows_on_the_host_match_numpy(width):
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorStructInfo((64, width), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.emit(relax.op.nn.softmax(x))
            z = bb.emit(relax.op.nn.log_softmax(x))
            out = bb.emit_output(relax.Tuple([y, z]))
        bb.emit_func_output(out)
    vm = relax.VirtualMachine(tvm.compile(bb.get(), target="llvm"), tvm.cpu())
    a = np.random.default_rng(width).standard_normal((64, width)).astype("float32") * 4
    soft, log_soft = vm["main"](tvm.runtime.tensor(a))
    e = np.exp(a - a.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(soft.numpy(), expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(log_soft.numpy(), np.log(expected), rtol=1e-4, atol=1e-5)


@T.prim_func
def _max_min_rows(a: T.Buffer((T.int64(8), T.int64(72)), "float32"),
                  hi: T.Buffer((T.int64(8),), "float32"),
                  lo: T.Buffer((T.int64(8),), "float32")):
    T.func_attr({"tirx.noalias": True})
    for i in T.parallel(T.int64(8)):
        hi[i] = T.float32(-3.4e38)
        lo[i] = T.float32(3.4e38)
        for k in range(T.int64(72)):
            hi[i] = T.max(hi[i], a[i, k])
        for k in range(T.int64(72)):
            lo[i] = T.min(lo[i], a[i, k])


def test_max_min_ignore_nan():
    # T.max/T.min ignore a NaN operand, as the maxnum/minnum they replaced did. (Which zero
    # a reduction over -0 and +0 returns is not specified.)
    lib = tvm.compile(_max_min_rows, target="llvm")
    a = np.random.default_rng(0).standard_normal((8, 72)).astype("float32")
    a[0, 5] = np.nan
    a[1, :] = np.nan
    a[2, :] = 0.0
    a[2, 7] = -0.0
    hi, lo = np.zeros(8, "float32"), np.zeros(8, "float32")
    lib(a, hi, lo)
    np.testing.assert_array_equal(hi[3:], a[3:].max(axis=1))
    np.testing.assert_array_equal(lo[3:], a[3:].min(axis=1))
    assert hi[0] == np.nanmax(a[0]) and lo[0] == np.nanmin(a[0])
    # A row of NaNs leaves the initial values (every NaN ignored).
    assert hi[1] == np.float32(-3.4e38) and lo[1] == np.float32(3.4e38)
    assert hi[2] == 0 and lo[2] == 0
