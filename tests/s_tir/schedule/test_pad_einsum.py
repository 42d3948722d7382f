"""pad_einsum as Apache TVM 0.27 (expected outputs checked against it): padded copies of the
buffers, the block over the padded domain, zero-filled inputs and a copy back of the outputs."""

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
def matmul(A: T.Buffer((30, 20), "float32"), B: T.Buffer((20, 12), "float32"),
           C: T.Buffer((30, 12), "float32")):
    for i, j, k in T.grid(30, 12, 20):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


@T.prim_func(s_tir=True)
def matmul_padded(A: T.Buffer((30, 20), "float32"), B: T.Buffer((20, 12), "float32"),
                  C: T.Buffer((30, 12), "float32")):
    A_pad = T.sblock_alloc_buffer((32, 24))
    B_pad = T.sblock_alloc_buffer((24, 12))
    C_pad = T.sblock_alloc_buffer((32, 12))
    for i0, i1 in T.grid(32, 24):
        with T.sblock("A_pad"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            T.reads(A[v0, v1])
            T.writes(A_pad[v0, v1])
            A_pad[v0, v1] = T.if_then_else(v0 < 30 and v1 < 20, A[v0, v1], T.float32(0))
    for i0, i1 in T.grid(24, 12):
        with T.sblock("B_pad"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            T.reads(B[v0, v1])
            T.writes(B_pad[v0, v1])
            B_pad[v0, v1] = T.if_then_else(v0 < 20, B[v0, v1], T.float32(0))
    for i, j, k in T.grid(32, 12, 24):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A_pad[vi, vk], B_pad[vk, vj])
            T.writes(C_pad[vi, vj])
            with T.init():
                C_pad[vi, vj] = T.float32(0)
            C_pad[vi, vj] = C_pad[vi, vj] + A_pad[vi, vk] * B_pad[vk, vj]
    for i0, i1 in T.grid(30, 12):
        with T.sblock("C_pad"):
            v0, v1 = T.axis.remap("SS", [i0, i1])
            T.reads(C_pad[v0, v1])
            T.writes(C[v0, v1])
            C[v0, v1] = C_pad[v0, v1]


def test_pad_einsum_matmul():
    sch = s_tir.Schedule(matmul, debug_mask="all")
    sch.pad_einsum("C", [16, 4, 8])
    assert_structural_equal_ignore_global_symbol(matmul_padded, sch.mod["main"])
    verify_trace_roundtrip(sch, matmul)
    assert "sch.pad_einsum(block=b0, padding=[16, 4, 8])" in str(sch.trace)


def test_pad_einsum_computes_the_same():
    sch = s_tir.Schedule(matmul)
    sch.pad_einsum(sch.get_sblock("C"), [16, 8, 16])
    rng = np.random.default_rng(2)
    a = rng.standard_normal((30, 20)).astype("float32")
    b = rng.standard_normal((20, 12)).astype("float32")
    c = tvm.runtime.tensor(np.zeros((30, 12), "float32"))
    tvm.compile(sch.mod["main"], target="llvm")(tvm.runtime.tensor(a), tvm.runtime.tensor(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)


def test_pad_einsum_nothing_to_pad():
    sch = s_tir.Schedule(matmul)
    sch.pad_einsum("C", [1, 1, 1])
    assert_structural_equal_ignore_global_symbol(matmul, sch.mod["main"])


@pytest.mark.parametrize("padding", [[16, 4], [16, 0, 8]])
def test_pad_einsum_invalid_padding(padding):
    sch = s_tir.Schedule(matmul)
    with pytest.raises(s_tir.ScheduleError, match="should be a list of 3 positive integers"):
        sch.pad_einsum("C", padding)


@T.prim_func(s_tir=True)
def strided(A: T.Buffer((30,), "float32"), B: T.Buffer((15,), "float32")):
    for i in range(15):
        with T.sblock("B"):
            vi = T.axis.spatial(15, i)
            B[vi] = A[vi * 2]


def test_pad_einsum_needs_an_einsum():
    sch = s_tir.Schedule(strided)
    with pytest.raises(s_tir.ScheduleError, match="not a computation of Einsum pattern") as info:
        sch.pad_einsum("B", [4])
    assert "^^^^" in str(info.value)
