"""fuse_reduction_epilogue: a bias/ReLU/clipping epilogue folded into its reduction (expected
outputs checked against Apache TVM 0.27; the bias case against NumPy)."""

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
def matmul_bias(A: T.Buffer((8, 4), "float32"), B: T.Buffer((6, 4), "float32"),
                bias: T.Buffer((6,), "float32"), D: T.Buffer((8, 6), "float32")):
    acc = T.sblock_alloc_buffer((8, 6))
    for i, j, k in T.grid(8, 6, 4):
        with T.sblock("mm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                acc[vi, vj] = T.float32(0)
            acc[vi, vj] = acc[vi, vj] + A[vi, vk] * B[vj, vk]
    for i, j in T.grid(8, 6):
        with T.sblock("bias"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = acc[vi, vj] + bias[vj]


@T.prim_func(s_tir=True)
def matmul_bias_fused(A: T.Buffer((8, 4), "float32"), B: T.Buffer((6, 4), "float32"),
                      bias: T.Buffer((6,), "float32"), D: T.Buffer((8, 6), "float32")):
    acc = T.sblock_alloc_buffer((8, 6))  # noqa: F841 - kept, as TVM keeps it
    for i, j, k in T.grid(8, 6, 4):
        with T.sblock("mm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(bias[vj], A[vi, vk], B[vj, vk])
            T.writes(D[vi, vj])
            with T.init():
                D[vi, vj] = bias[vj]
            D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vj, vk]


def test_fuse_bias_epilogue():
    sch = s_tir.Schedule(matmul_bias, debug_mask="all")
    sch.fuse_reduction_epilogue("mm", "bias")
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], matmul_bias_fused)
    verify_trace_roundtrip(sch, mod=matmul_bias)
    a = np.random.rand(8, 4).astype("float32")
    b = np.random.rand(6, 4).astype("float32")
    bias = np.random.rand(6).astype("float32")
    d = tvm.runtime.tensor(np.zeros((8, 6), "float32"))
    tvm.compile(sch.mod, target="llvm")(*[tvm.runtime.tensor(x) for x in (a, b, bias)], d)
    np.testing.assert_allclose(d.numpy(), a @ b.T + bias, rtol=1e-5)


@T.prim_func(s_tir=True)
def matmul_relu(A: T.Buffer((8, 4), "float32"), B: T.Buffer((6, 4), "float32"),
                D: T.Buffer((8, 6), "float32")):
    acc = T.sblock_alloc_buffer((8, 6))
    for i, j, k in T.grid(8, 6, 4):
        with T.sblock("mm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                acc[vi, vj] = T.float32(0)
            acc[vi, vj] = acc[vi, vj] + A[vi, vk] * B[vj, vk]
    for i, j in T.grid(8, 6):
        with T.sblock("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(acc[vi, vj], T.float32(0))


@T.prim_func(s_tir=True)
def matmul_relu_fused(A: T.Buffer((8, 4), "float32"), B: T.Buffer((6, 4), "float32"),
                      D: T.Buffer((8, 6), "float32")):
    acc = T.sblock_alloc_buffer((8, 6))  # noqa: F841 - kept, as TVM keeps it
    for i, j, k in T.grid(8, 6, 4):
        with T.sblock("mm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vj, vk])
            T.writes(D[vi, vj])
            with T.init():
                D[vi, vj] = T.float32(0)
            D[vi, vj] = T.max(D[vi, vj] + A[vi, vk] * B[vj, vk], T.float32(0))


def test_fuse_relu_epilogue_applies_it_per_step():
    sch = s_tir.Schedule(matmul_relu, debug_mask="all")
    sch.fuse_reduction_epilogue("mm", "relu")
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], matmul_relu_fused)


@T.prim_func(s_tir=True)
def matmul_scaled(A: T.Buffer((8, 4), "float32"), B: T.Buffer((6, 4), "float32"),
                  D: T.Buffer((8, 6), "float32")):
    acc = T.sblock_alloc_buffer((8, 6))
    for i, j, k in T.grid(8, 6, 4):
        with T.sblock("mm"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                acc[vi, vj] = T.float32(0)
            acc[vi, vj] = acc[vi, vj] + A[vi, vk] * B[vj, vk]
    for i, j in T.grid(8, 6):
        with T.sblock("scale"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = acc[vi, vj] * T.float32(2)


def test_fuse_refuses_scaling_epilogue():
    sch = s_tir.Schedule(matmul_scaled, debug_mask="all")
    with pytest.raises(s_tir.ScheduleError, match="scales the reduction result") as info:
        sch.fuse_reduction_epilogue("mm", "scale")
    assert "^^^" in str(info.value)


def test_fuse_needs_a_reduction_block():
    sch = s_tir.Schedule(matmul_relu, debug_mask="all")
    with pytest.raises(s_tir.ScheduleError, match="not a reduction block"):
        sch.fuse_reduction_epilogue("relu", "mm")
