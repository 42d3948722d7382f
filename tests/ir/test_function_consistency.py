"""Regression tests: ``tvm.ir.BaseFunc`` and ``tvm.sym`` laid out as in Apache TVM 0.27."""

import subprocess
import sys

import tvm
from tvm import relax, tirx


def test_base_func_lives_in_ir():
    assert tvm.ir.BaseFunc.__module__ == "tvm.ir.function"
    assert relax.BaseFunc is tvm.ir.BaseFunc


def test_functions_derive_from_base_func():
    # TVM 0.27: PrimFunc, relax.Function and ExternFunc all have ir.BaseFunc as first base.
    for cls in (tirx.PrimFunc, relax.Function, relax.ExternFunc):
        assert issubclass(cls, tvm.ir.BaseFunc), cls
        assert issubclass(cls, tvm.ir.RelaxExpr), cls


def test_prim_func_is_a_base_func_instance():
    func = tirx.PrimFunc([], tirx.Evaluate(tirx.IntImm("int32", 0)))
    assert isinstance(func, tvm.ir.BaseFunc)
    assert not isinstance(func, relax.Function)


def test_sym_is_the_arith_package():
    assert tvm.sym.Analyzer is tvm.arith.Analyzer
    assert tvm.sym.ConstIntBound is tvm.arith.ConstIntBound
    from tvm.sym.analyzer import Analyzer
    from tvm.sym.int_set import IntervalSet

    assert Analyzer is tvm.arith.Analyzer and IntervalSet is tvm.arith.IntervalSet
    x = tirx.Var("x", "int32")
    assert str(tvm.sym.Analyzer().simplify(x * 2 - x)) == "x"


def test_sym_import_stays_below_tirx():
    code = "import sys, tvm.sym; print(sorted(m for m in sys.modules if m.startswith('tvm.')))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    ).stdout
    assert "tvm.sym" in out and "'tvm.arith'" in out
