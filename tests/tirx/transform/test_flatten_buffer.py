"""FlattenBuffer: N-d accesses become 1-D accesses with row-major or declared strides."""

import pytest

import tvm
from tvm.ir import assert_structural_equal
from tvm.tirx import (
    AllocBuffer,
    BufferStore,
    DeclBuffer,
    For,
    ForKind,
    IntImm,
    PrimFunc,
    SBlock,
    SBlockRealize,
    SeqStmt,
    Var,
    decl_buffer,
)
from tvm.tirx.transform import FlattenBuffer


def _grid(i, j, m, n, body):
    return For(i, 0, m, ForKind.SERIAL, For(j, 0, n, ForKind.SERIAL, body))


def test_row_major_and_local_allocation():
    A = decl_buffer((4, 8), "float32", name="A")
    B = decl_buffer((4, 8), "float32", name="B")
    T = decl_buffer((2, 3), "float32", name="T")
    i, j = Var("i", "int32"), Var("j", "int32")
    before = PrimFunc([A, B], SeqStmt([
        AllocBuffer(T),
        _grid(i, j, 4, 8, BufferStore(B, A[i, j] * 2.0 + T[1, 2], [i, j])),
    ]))
    after = FlattenBuffer()(tvm.IRModule({"main": before}))["main"]

    A1, B1, T1 = (b.get_flattened_buffer() for b in (A, B, T))
    # The flat views of the parameters are declared first, so the result is well-formed.
    expected = PrimFunc([A, B], SeqStmt([
        DeclBuffer(A1, A1.data),
        DeclBuffer(B1, B1.data),
        AllocBuffer(T1),
        _grid(i, j, 4, 8, BufferStore(B1, A1[i * 8 + j] * 2.0 + T1[1 * 3 + 2], [i * 8 + j])),
    ]))
    assert_structural_equal(after, expected)
    # The parameters keep their N-d buffers (the packed API checks those shapes).
    assert len(after.buffer_map[after.params[0]].shape) == 2


def test_declared_strides():
    s = Var("s", "int32")
    A = decl_buffer((4, 8), "float32", name="A", strides=[s, 1])
    i, j = Var("i", "int32"), Var("j", "int32")
    before = PrimFunc([A], _grid(i, j, 4, 8, BufferStore(A, 1.0, [i, j])))
    after = FlattenBuffer()(tvm.IRModule({"main": before}))["main"]
    decl, loops = after.body.seq
    assert isinstance(decl, DeclBuffer) and decl.buffer.data is A.data
    assert len(decl.buffer.shape) == 1
    store = loops.body.body
    assert len(store.indices) == 1
    assert_structural_equal(store.indices[0], i * s + j * 1)


def test_one_dimensional_buffers_are_kept():
    A = decl_buffer((8,), "float32", name="A")
    i = Var("i", "int32")
    before = PrimFunc([A], For(i, 0, 8, ForKind.SERIAL, BufferStore(A, 1.0, [i])))
    mod = tvm.IRModule({"main": before})
    assert FlattenBuffer()(mod)["main"] is before


def test_blocks_must_be_lowered_first():
    A = decl_buffer((8,), "float32", name="A")
    block = SBlock([], [], [], "b", BufferStore(A, 1.0, [0]))
    before = PrimFunc([A], SBlockRealize([], IntImm("bool", 1), block))
    with pytest.raises(ValueError, match="block 'b' is still present.*lower SBlocks first"):
        FlattenBuffer()(tvm.IRModule({"main": before}))
