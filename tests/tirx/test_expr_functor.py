"""tirx expression functors: dispatch, default traversal, rebuilding, substitute."""

import pytest

from tvm import tirx
from tvm.ffi import structural_equal
from tvm.ffi.node import field
from tvm.ir import PrimExpr
from tvm.tirx.expr_functor import (
    ExprMutator,
    ExprVisitor,
    expr_method_name,
    post_order_visit,
    substitute,
)


def test_method_names():
    assert expr_method_name(tirx.FloorDiv) == "visit_floordiv_"
    assert expr_method_name(tirx.IntImm) == "visit_int_imm_"
    assert expr_method_name(tirx.EQ) == "visit_eq_"
    assert expr_method_name(tirx.SizeVar) == "visit_size_var_"
    assert expr_method_name(tirx.BitwiseAnd) == "visit_bitwise_and_"


def test_visitor_visits_every_node():
    x, y = tirx.Var("x"), tirx.Var("y")
    seen = []

    class Collect(ExprVisitor):
        def visit_var_(self, op):
            seen.append(op.name)

        def visit_int_imm_(self, op):
            seen.append(op.value)

    expr = tirx.Select(x < 3, tirx.max(x, y) * 2, tirx.Cast("int32", tirx.Var("z", "int64")))
    Collect().visit_expr(expr)
    assert seen == ["x", 3, "x", "y", 2, "z"]


def test_size_var_falls_back_to_visit_var():
    names = []

    class Collect(ExprVisitor):
        def visit_var_(self, op):
            names.append(op.name)

    Collect()(tirx.SizeVar("n", "int64") + tirx.Var("m", "int64"))
    assert names == ["n", "m"]


def test_visitor_super_call_keeps_traversal():
    counts = {"add": 0, "var": 0}

    class Count(ExprVisitor):
        def visit_add_(self, op):
            counts["add"] += 1
            super().visit_add_(op)

        def visit_var_(self, op):
            counts["var"] += 1

    x = tirx.Var("x")
    Count().visit_expr(x + x + x)
    assert counts == {"add": 2, "var": 3}


def test_mutator_returns_same_object_when_unchanged():
    x = tirx.Var("x")
    expr = tirx.Select(x < 1, x + 1, tirx.exp(tirx.Cast("float32", x)).astype("int32"))
    assert ExprMutator().visit_expr(expr) is expr


def test_mutator_rebuilds_changed_nodes():
    x = tirx.Var("x")

    class Double(ExprMutator):
        def visit_int_imm_(self, op):
            return tirx.IntImm(op.dtype, op.value * 2)

    out = Double()(tirx.Let(x, 1, x * 3 + tirx.min(x, 5)))
    assert repr(out) == "T.Let(x * 6 + T.min(x, 10), where={x: 2})"


def test_mutator_rechecks_dtypes():
    x = tirx.Var("x", "int32")

    class ToInt64(ExprMutator):
        def visit_var_(self, op):
            return tirx.Var("y", "int64")

    with pytest.raises(TypeError, match="mismatched types. int64 vs. int32"):
        ToInt64().visit_expr(x + 1)


class Opaque(tirx.PrimExprWithOp, type_key="test.OpaqueExpr"):
    """A node type defined outside tirx (like BufferLoad)."""

    operands: tuple
    tag: str = field("", role="ignore")

    def __init__(self, operands, tag=""):
        self.__init_fields__(tuple(operands), tag, dtype="int32")


def test_other_node_types_use_the_generic_rule():
    x, y = tirx.Var("x"), tirx.Var("y")
    node = Opaque([x + 1, y])
    seen = []
    post_order_visit(node, lambda e: seen.append(type(e).__name__))
    assert seen == ["Var", "IntImm", "Add", "Var", "Opaque"]
    out = substitute(node, {x: 5})
    assert isinstance(out, Opaque)
    assert repr(out.operands[0]) == "5 + 1"
    assert out.operands[1] is y
    assert ExprMutator().visit_expr(node) is node


def test_other_node_types_get_their_own_method():
    class V(ExprVisitor):
        def __init__(self):
            self.hit = 0

        def visit_opaque_(self, op):
            self.hit += 1

    v = V()
    v.visit_expr(Opaque([tirx.Var("x")]) + 1)
    assert v.hit == 1


def test_substitute():
    x, y = tirx.Var("x"), tirx.Var("y")
    assert repr(substitute(x * 2 + y, {x: y + 1, y: 3})) == "(y + 1) * 2 + 3"
    assert repr(substitute(x * 2, lambda v: tirx.const(4) if v is x else None)) == "4 * 2"
    same = x + y
    assert substitute(same, {}) is same
    with pytest.raises(TypeError, match="substitute keys must be tirx.Var"):
        substitute(same, {"x": 1})


def test_substitute_converts_numbers_to_var_dtype():
    n = tirx.Var("n", "int64")
    out = substitute(n + 1, {n: 7})
    assert repr(out) == "T.int64(7) + T.int64(1)"


def test_deep_expressions():
    x = tirx.Var("x")
    expr = x
    for i in range(1, 5000):
        expr = expr + i
    out = substitute(expr, {x: tirx.const(0)})
    assert isinstance(out, tirx.Add)
    count = []
    post_order_visit(expr, lambda e: count.append(1))
    assert len(count) == 2 * 4999 + 1
    assert structural_equal(substitute(out, {}), out)


def test_node_call_args_are_traversed():
    x = tirx.Var("x")
    call = tirx.Call("int32", "tirx.call_extern", ["f", Opaque([x])])
    assert isinstance(call.args[1], PrimExpr)
    seen = []
    post_order_visit(call, lambda e: seen.append(e) if isinstance(e, tirx.Var) else None)
    assert seen == [x]
    assert repr(substitute(call, {x: 1}).args[1].operands[0]) == "1"


def test_floordiv_methods_use_apache_spelling():
    from tvm.tirx.expr import BufferLoad, ProducerLoad, Reduce

    assert BufferLoad is tirx.BufferLoad and Reduce is tirx.Reduce
    assert ProducerLoad.__name__ == "ProducerLoad"
    x, y = tirx.Var("x"), tirx.Var("y")
    seen = []

    class Log(ExprVisitor):
        def visit_floordiv_(self, op) -> tirx.Expr:
            seen.append("FloorDiv")
            super().visit_floordiv_(op)

        def visit_floormod_(self, op) -> tirx.Expr:
            seen.append("FloorMod")
            super().visit_floormod_(op)

        def visit_var_(self, op):
            seen.append(op.name)

    Log().visit_expr(tirx.FloorMod(tirx.FloorDiv(x, y), y))
    assert seen == ["FloorMod", "FloorDiv", "x", "y", "y"]
    assert isinstance(x, tirx.Expr)


def _post_order_names(expr):
    seen = []

    class Log(ExprVisitor):
        def visit_expr(self, e):
            super().visit_expr(e)
            seen.append(type(e).__name__)

    Log().visit_expr(expr)
    return seen


def test_visitor_visits_let_var_and_vector_lanes():
    n = tirx.Var("n", "int32")
    let = tirx.Let(n, tirx.IntImm("int32", 10), n + 1)
    assert _post_order_names(let) == ["Var", "IntImm", "Var", "IntImm", "Add", "Let"]
    assert _post_order_names(tirx.Ramp(n, 1, 4)) == ["Var", "IntImm", "IntImm", "Ramp"]
    assert _post_order_names(tirx.Broadcast(n, 4)) == ["Var", "IntImm", "Broadcast"]


def test_mutator_rewrites_vector_lanes_expression():
    class Double(ExprMutator):
        def visit_int_imm_(self, op):
            return tirx.IntImm(op.dtype, op.value * 2)

    n = tirx.Var("n", "int32")
    ramp = Double().visit_expr(tirx.Ramp(n, 1, 4))
    assert ramp.lanes.value == 8 and ramp.stride.value == 2
    bcast = Double().visit_expr(tirx.Broadcast(n, 2))
    assert bcast.lanes.value == 4 and bcast.dtype == "int32x4"


def test_mutator_visits_let_var_first_and_keeps_it_when_substituted_by_expr():
    n, m = tirx.Var("n", "int32"), tirx.Var("m", "int32")
    order = []

    class Rename(ExprMutator):
        def visit_var_(self, op):
            order.append(op.name)
            return m if op.same_as(n) else op

    let = tirx.Let(n, tirx.IntImm("int32", 10), n + 1)
    out = Rename().visit_expr(let)
    assert order == ["n", "n"]
    assert out.var.same_as(m) and out.body.a.same_as(m)

    class ToConst(ExprMutator):
        def visit_var_(self, op):
            return tirx.IntImm("int32", 3)

    out = ToConst().visit_expr(let)
    assert out.var.same_as(n) and out.body.a.value == 3
