"""StmtSimplify: index arithmetic with loop ranges, constant branches, trivial loops."""

import tvm
from tvm import tirx
from tvm.ir import assert_structural_equal
from tvm.tirx import BufferStore, For, ForKind, IfThenElse, PrimFunc, Var, decl_buffer
from tvm.tirx.transform import Simplify, StmtSimplify


def _run(func):
    return StmtSimplify()(tvm.IRModule({"main": func}))["main"]


def test_index_arithmetic_uses_loop_ranges():
    A = decl_buffer((32,), "float32", name="A")
    B = decl_buffer((4,), "float32", name="B")
    i, j = Var("i", "int32"), Var("j", "int32")
    idx = tirx.floordiv(i * 8 + j, 8)
    before = PrimFunc([A, B], For(i, 0, 4, ForKind.SERIAL, For(
        j, 0, 8, ForKind.SERIAL, BufferStore(B, A[i * 8 + j], [idx]))))
    expected = PrimFunc([A, B], For(i, 0, 4, ForKind.SERIAL, For(
        j, 0, 8, ForKind.SERIAL, BufferStore(B, A[i * 8 + j], [i]))))
    assert_structural_equal(_run(before), expected)


def test_constant_branch_and_unit_loop_vanish():
    A = decl_buffer((4,), "float32", name="A")
    i, j = Var("i", "int32"), Var("j", "int32")
    store = BufferStore(A, 1.0, [i + j])
    before = PrimFunc([A], For(i, 0, 4, ForKind.SERIAL, For(
        j, 0, 1, ForKind.SERIAL, IfThenElse(i < 8, store))))
    expected = PrimFunc([A], For(i, 0, 4, ForKind.SERIAL, BufferStore(A, 1.0, [i])))
    assert_structural_equal(_run(before), expected)


def test_simplify_alias_and_unchanged_identity():
    A = decl_buffer((4,), "float32", name="A")
    i = Var("i", "int32")
    func = PrimFunc([A], For(i, 0, 4, ForKind.SERIAL, BufferStore(A, 1.0, [i])))
    assert Simplify is StmtSimplify
    assert _run(func) is func


def test_one_thread_binding_stays_and_its_variable_folds():
    from tvm.script import tirx as T

    @T.prim_func
    def before(A: T.Buffer((4,), "float32")):
        for tx in T.thread_binding(1, thread="threadIdx.x"):
            for i in range(1):
                A[tx + i] = T.float32(1)

    @T.prim_func
    def expected(A: T.Buffer((4,), "float32")):
        for tx in T.thread_binding(1, thread="threadIdx.x"):
            A[0] = T.float32(1)

    # The launch of one thread is kept (the host/device split needs it); a serial loop of
    # one iteration vanishes.
    assert_structural_equal(_run(before), expected.with_attr("global_symbol", "before"))
