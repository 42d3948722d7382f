"""Statement functors: visitors, mutators (identity when unchanged), helpers."""

import pytest

from tvm import te, tirx
from tvm.ffi.structural import structural_equal
from tvm.tirx import stmt_functor
from tvm.tirx.stmt_functor import (
    StmtExprMutator,
    StmtExprVisitor,
    StmtMutator,
    StmtVisitor,
    ir_transform,
    post_order_visit,
    pre_order_visit,
    substitute,
)


def _nest():
    A = tirx.decl_buffer((4, 4), "float32", name="A")
    i, j = tirx.Var("i", "int32"), tirx.Var("j", "int32")
    store = tirx.BufferStore(A, A[i, j] + tirx.const(1.0, "float32"), [i, j])
    inner = tirx.For(j, 0, 4, tirx.ForKind.SERIAL, store)
    return A, i, j, tirx.For(i, 0, 4, tirx.ForKind.SERIAL, inner)


def _matmul():
    A = te.placeholder((3, 4), name="A")
    B = te.placeholder((4, 2), name="B")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((3, 2), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def test_visitor_dispatch_by_class_name():
    class Count(StmtVisitor):
        def __init__(self):
            self.loops = []
            self.blocks = []

        def visit_for_(self, op):
            self.loops.append(op.loop_var.name)
            super().visit_for_(op)

        def visit_sblock_(self, op):
            self.blocks.append(op.name_hint)
            super().visit_sblock_(op)

    counter = Count()
    counter(_matmul().body)
    assert counter.loops == ["i", "j", "k"]
    assert counter.blocks == ["root", "C"]


def test_stmt_expr_visitor_sees_loads_and_vars():
    class Loads(StmtExprVisitor):
        def __init__(self):
            self.loads = []
            self.vars = []

        def visit_buffer_load_(self, op):
            self.loads.append(op.buffer.name)
            super().visit_buffer_load_(op)

        def visit_var_(self, op):
            self.vars.append(op.name)

    v = Loads()
    v.visit_stmt(_matmul().body)
    assert v.loads == ["C", "A", "B"]
    assert {"v_i", "v_j", "v_k"} <= set(v.vars)


def test_mutators_return_same_object_when_unchanged():
    _, _, _, loop = _nest()
    assert StmtMutator()(loop) is loop
    assert StmtExprMutator()(loop) is loop
    func = _matmul()
    assert StmtExprMutator().visit_stmt(func.body) is func.body


def test_stmt_expr_mutator_rewrites_constants():
    class Double(StmtExprMutator):
        def visit_float_imm_(self, op):
            return tirx.FloatImm(op.dtype, op.value * 2)

    _, _, _, loop = _nest()
    new = Double()(loop)
    assert new is not loop
    assert new.body.body.value.b.value == 2.0
    assert new.loop_var is loop.loop_var and new.body.body.buffer is loop.body.body.buffer


def test_substitute_in_statements_and_buffers():
    n = tirx.Var("n", "int32")
    A = tirx.decl_buffer((n,), "float32", name="A")
    i = tirx.Var("i", "int32")
    loop = tirx.For(i, 0, n, tirx.ForKind.SERIAL, tirx.BufferStore(A, 0.0, [i]))
    new = substitute(loop, {n: 8})
    assert new.extent.value == 8
    assert new.body.buffer.shape[0].value == 8
    assert new.body.buffer.data is A.data
    assert substitute(loop, {}) is loop
    assert substitute(i + n, lambda v: tirx.IntImm("int32", 2) if v is n else None).b.value == 2
    with pytest.raises(TypeError, match="keys must be tirx.Var"):
        substitute(loop, {"n": 3})


def test_post_order_and_pre_order_visit():
    _, i, _j, loop = _nest()
    order = []
    post_order_visit(loop, lambda node: order.append(type(node).__name__))
    assert order[-1] == "For" and order.index("BufferStore") < order.index("For")
    assert order.count("For") == 2
    seen = []

    def pre(node):
        if isinstance(node, tirx.Stmt):
            seen.append(type(node).__name__)
        return not isinstance(node, tirx.For) or node.loop_var is i

    pre_order_visit(loop, pre)
    assert seen == ["For", "For"]  # the inner loop returned False: its body is skipped


def test_ir_transform_preorder_postorder_and_filter():
    _, _i, _j, loop = _nest()

    def to_parallel(node):
        return node.replace(kind=tirx.ForKind.PARALLEL)

    new = ir_transform(loop, None, to_parallel, ["tirx.For"])
    assert new.kind == tirx.ForKind.PARALLEL and new.body.kind == tirx.ForKind.PARALLEL
    assert ir_transform(loop, None, lambda n: None) is loop
    replaced = ir_transform(loop, lambda n: tirx.Evaluate(0) if n is loop.body else None, None)
    assert isinstance(replaced.body, tirx.Evaluate)


def test_seq_mutation_flattens():
    ev = tirx.Evaluate(0)
    seq = tirx.SeqStmt([ev, tirx.Evaluate(1)])

    class Split(StmtMutator):
        def visit_evaluate_(self, op):
            return tirx.SeqStmt([op, op]) if op.value.value == 1 else op

    new = Split()(seq)
    assert len(new.seq) == 3


def test_unknown_node_error():
    with pytest.raises(TypeError, match="cannot visit"):
        StmtVisitor().visit_stmt(3)


def test_structure_preserved_by_identity_mutation():
    func = _matmul()
    body = stmt_functor.StmtExprMutator()(func.body)
    assert structural_equal(body, func.body)
