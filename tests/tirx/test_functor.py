"""tvm.tirx.functor: Python visitors and mutators (PyStmtExprVisitor / PyStmtExprMutator)."""

import pytest

import tvm
from tvm import tirx
from tvm.script import tirx as T


@tirx.functor.visitor
class _LoopAndVarCounter(tirx.PyStmtExprVisitor):
    def __init__(self):
        super().__init__()
        self.loops = 0
        self.var_names = []

    def visit_for_(self, op):
        self.loops += 1
        super().visit_for_(op)

    def visit_var_(self, op):
        self.var_names.append(op.name)


@tirx.functor.mutator
class _MulByTwoToShift(tirx.PyStmtExprMutator):
    def visit_mul_(self, op):
        a = self.visit_expr(op.a)
        b = self.visit_expr(op.b)
        if isinstance(b, tirx.IntImm) and b.value == 2:
            return tirx.shift_left(a, tirx.IntImm(b.dtype, 1))
        return tirx.Mul(a, b)


def test_visitor_walks_statements_and_expressions():
    @T.prim_func
    def func(A: T.Buffer((8, 8), "int32"), n: T.int32):
        for i in range(8):
            for j in range(8):
                A[i, j] = i * n + j

    counter = _LoopAndVarCounter()
    counter.visit_stmt(func.body)
    assert counter.loops == 2
    assert {"i", "j", "n"} <= set(counter.var_names)
    assert counter._outer() is counter


def test_mutator_rewrites_inside_a_function():
    @T.prim_func
    def before(A: T.Buffer((8,), "int32")):
        for i in range(8):
            A[i] = i * 2

    @T.prim_func
    def expected(A: T.Buffer((8,), "int32")):
        for i in range(8):
            A[i] = T.shift_left(i, 1)

    body = _MulByTwoToShift().visit_stmt(before.body)
    tvm.ir.assert_structural_equal(body, expected.body, map_free_vars=True)


def test_mutator_returns_same_node_when_unchanged():
    x = tirx.Var("x", "int32")
    stmt = tirx.Evaluate(x + 1)
    assert _MulByTwoToShift().visit_stmt(stmt).same_as(stmt)


def test_decorator_rejects_wrong_base():
    with pytest.raises(TypeError, match="PyStmtExprVisitor"):
        tirx.functor.visitor(_MulByTwoToShift)
    with pytest.raises(TypeError, match="PyStmtExprMutator"):

        @tirx.functor.mutator
        class _NotAMutator:
            pass
