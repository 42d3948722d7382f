"""reverse_compute_inline through an invertible affine load (fused iterators and their
// and % splits), with guards for an over-computing producer (outputs checked against
Apache TVM 0.27)."""

import numpy as np
import pytest

import tvm
from tvm import s_tir
from tvm.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol,
    verify_trace_roundtrip,
)
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def reshape_consumer(A: T.Buffer((16, 8), "float32"), C: T.Buffer((4, 32), "float32")):
    B = T.sblock_alloc_buffer((16, 8))
    for i, j in T.grid(16, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(4, 32):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[(vi * 32 + vj) // 8, (vi * 32 + vj) % 8] * T.float32(2)


@T.prim_func(s_tir=True)
def reshape_consumer_inlined(A: T.Buffer((16, 8), "float32"), C: T.Buffer((4, 32), "float32")):
    for i, j in T.grid(16, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[(vj + vi * 8) // 32, (vj + vi * 8) % 32] = (A[vi, vj] + T.float32(1)) * T.float32(2)


def test_reverse_inline_through_reshape():
    sch = s_tir.Schedule(reshape_consumer, debug_mask="all")
    sch.reverse_compute_inline(sch.get_sblock("C"))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], reshape_consumer_inlined)
    verify_trace_roundtrip(sch, mod=reshape_consumer)
    a = np.random.rand(16, 8).astype("float32")
    c = tvm.runtime.tensor(np.zeros((4, 32), "float32"))
    tvm.compile(sch.mod, target="llvm")(tvm.runtime.tensor(a), c)
    np.testing.assert_allclose(c.numpy(), ((a + 1) * 2).reshape(4, 32), rtol=1e-6)


@T.prim_func(s_tir=True)
def tiled_overcompute(A: T.Buffer((64,), "float32"), C: T.Buffer((60,), "float32")):
    B = T.sblock_alloc_buffer((4, 16))
    for i, j in T.grid(4, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi * 16 + vj] * T.float32(3)
    for i in range(60):
        with T.sblock("C"):
            vi = T.axis.spatial(60, i)
            C[vi] = B[vi // 16, vi % 16] - T.float32(1)


@T.prim_func(s_tir=True)
def tiled_overcompute_inlined(A: T.Buffer((64,), "float32"), C: T.Buffer((60,), "float32")):
    for i, j in T.grid(4, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.where(i * 16 + j < 60)
            C[vj + vi * 16] = A[vi * 16 + vj] * T.float32(3) - T.float32(1)


def test_reverse_inline_guards_overcomputing_producer():
    sch = s_tir.Schedule(tiled_overcompute, debug_mask="all")
    sch.reverse_compute_inline(sch.get_sblock("C"))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], tiled_overcompute_inlined)
    a = np.random.rand(64).astype("float32")
    c = tvm.runtime.tensor(np.zeros(60, "float32"))
    tvm.compile(sch.mod, target="llvm")(tvm.runtime.tensor(a), c)
    np.testing.assert_allclose(c.numpy(), a[:60] * 3 - 1, rtol=1e-6)


@T.prim_func(s_tir=True)
def overlapping(A: T.Buffer((16, 16), "float32"), C: T.Buffer((4, 4), "float32")):
    B = T.sblock_alloc_buffer((16, 16))
    for i, j in T.grid(16, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
    for i, j in T.grid(4, 4):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi * 4 + vj, vi * 4 + vj]


def test_reverse_inline_rejects_non_invertible_load():
    sch = s_tir.Schedule(overlapping, debug_mask="all")
    with pytest.raises(s_tir.ScheduleError, match="invertible") as info:
        sch.reverse_compute_inline(sch.get_sblock("C"))
    assert "^^^" in str(info.value)
