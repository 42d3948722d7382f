"""unsafe_set_dtype changes the dtype of match_buffer views of the buffer too (as TVM), and the
result lowers and runs (match-buffer lowering)."""

import numpy as np

import tvm
from tvm import s_tir
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def viewed(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.sblock_alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            view0 = T.match_buffer(B[vi, vj], (), offset_factor=1)
            view0[()] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 8):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            view1 = T.match_buffer(B[vi, vj], (), offset_factor=1)
            C[vi, vj] = view1[()] + T.float32(1)


def test_set_dtype_retypes_views_and_runs():
    sch = s_tir.Schedule(viewed, debug_mask="all")
    sch.unsafe_set_dtype("B", 0, "float16")
    for name in ("B", "C"):
        (mb,) = sch.get(sch.get_sblock(name)).match_buffers
        assert mb.buffer.dtype == "float16"
    text = sch.mod.script()
    assert 'T.Cast("float16", A[vi, vj] * T.float32(2.0))' in text
    assert 'T.Cast("float32", view1[()])' in text
    a = np.arange(64, dtype="float32").reshape(8, 8) / 8
    c = tvm.runtime.tensor(np.zeros((8, 8), "float32"))
    tvm.compile(sch.mod["main"], target="llvm")(tvm.runtime.tensor(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-3)


def test_default_schedule_keeps_a_buffer_used_only_through_views():
    """The default CPU schedule keeps the allocation of ``B`` (written and read only through
    match_buffer views); it used to drop it, leaving ``B`` free after lowering."""
    a = np.arange(64, dtype="float32").reshape(8, 8) / 8
    c = tvm.runtime.tensor(np.zeros((8, 8), "float32"))
    tvm.compile(viewed, target="llvm")(tvm.runtime.tensor(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1)
