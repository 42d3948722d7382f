"""LowerInitBlock, ConvertBlocksToOpaque and LowerOpaqueBlock: Before/Expected and semantics."""

import numpy as np
import pytest

import tvm
from tvm import te
from tvm.ir import assert_structural_equal
from tvm.s_tir import transform as st
from tvm.tirx import (
    EQ,
    AllocBuffer,
    BufferStore,
    FloatImm,
    For,
    ForKind,
    IfThenElse,
    IntImm,
    IterVar,
    PrimFunc,
    SBlock,
    SBlockRealize,
    SeqStmt,
    Var,
    decl_buffer,
)
from tvm.tirx.interpreter import run_prim_func


def _row_sum_blocks():
    """for i, k: block C(v_i = i [S], v_k = k [R]): init C[v_i] = 0; C[v_i] += A[v_i, v_k]."""
    A = decl_buffer((4, 8), "float32", name="A")
    C = decl_buffer((4,), "float32", name="C")
    i, k = Var("i", "int32"), Var("k", "int32")
    vi = IterVar((0, 4), Var("v_i", "int32"), IterVar.DataPar)
    vk = IterVar((0, 8), Var("v_k", "int32"), IterVar.CommReduce)
    block = SBlock(
        [vi, vk], [A[vi.var, vk.var : vk.var + 1]], [C[vi.var : vi.var + 1]], "C",
        BufferStore(C, C[vi.var] + A[vi.var, vk.var], [vi.var]),
        init=BufferStore(C, FloatImm("float32", 0.0), [vi.var]),
    )
    realize = SBlockRealize([i, k], IntImm("bool", 1), block)
    nest = For(i, 0, 4, ForKind.SERIAL, For(k, 0, 8, ForKind.SERIAL, realize))
    return PrimFunc([A, C], nest), (A, C, i, k)


def _mod(func):
    return tvm.IRModule({"main": func})


def test_lower_init_block_guards_init_by_reduction_start():
    func, _ = _row_sum_blocks()
    after = st.LowerInitBlock()(_mod(func))["main"]
    block = after.body.body.body.block
    assert block.init is None
    first, _ = block.body.seq
    assert isinstance(first, IfThenElse)
    vk = block.iter_vars[1].var
    assert_structural_equal(first.condition, EQ(vk, IntImm("int32", 0)))


def test_full_block_lowering_matches_expected():
    func, (A, C, i, k) = _row_sum_blocks()
    mod = _mod(func)
    for p in (st.LowerInitBlock(), st.ConvertBlocksToOpaque(), st.LowerOpaqueBlock()):
        mod = p(mod)
    body = SeqStmt([
        IfThenElse(EQ(k, 0), BufferStore(C, FloatImm("float32", 0.0), [i])),
        BufferStore(C, C[i] + A[i, k], [i]),
    ])
    expected = PrimFunc([A, C], For(i, 0, 4, ForKind.SERIAL, For(k, 0, 8, ForKind.SERIAL, body)))
    assert_structural_equal(mod["main"], expected)


def test_predicate_and_alloc_buffers_are_lowered():
    A = decl_buffer((4,), "float32", name="A")
    tmp = decl_buffer((4,), "float32", name="tmp")
    i = Var("i", "int32")
    inner = SBlock([], [], [], "inner", BufferStore(tmp, A[i], [i]))
    realize = SBlockRealize([], i < 3, inner)
    root = SBlock([], [], [], "root", For(i, 0, 4, ForKind.SERIAL, realize), alloc_buffers=[tmp])
    func = PrimFunc([A], SBlockRealize([], IntImm("bool", 1), root))
    out = st.lower_sblocks(func)
    expected = PrimFunc([A], SeqStmt([
        AllocBuffer(tmp),
        For(i, 0, 4, ForKind.SERIAL, IfThenElse(i < 3, BufferStore(tmp, A[i], [i]))),
    ]))
    assert_structural_equal(out, expected)


def test_lower_opaque_block_requires_convert_first():
    func, _ = _row_sum_blocks()
    with pytest.raises(ValueError, match="block 'C' still has iterators.*ConvertBlocksToOpaque"):
        st.LowerOpaqueBlock()(_mod(func))


def test_te_reduction_semantics_preserved():
    m = te.var("m")
    A = te.placeholder((m, 9), "float32", name="A")
    k = te.reduce_axis((0, 9), name="k")
    B = te.compute((m,), lambda r: te.max(A[r, k], axis=k), name="B")
    func = te.create_prim_func([A, B])
    lowered = st.lower_sblocks(func)
    assert lowered.get_attr("s_tir") is None
    a = np.random.default_rng(0).standard_normal((5, 9)).astype("float32")
    want, got = np.zeros(5, "float32"), np.zeros(5, "float32")
    run_prim_func(func, [a, want])
    run_prim_func(lowered, [a, got])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, a.max(axis=1))
