"""compute_at/reverse_compute_at solve the moved block's iterator ranges from its index
expressions (``compute_at_domain``): bijective affine maps, strides, floordiv/floormod, several
buffers; and compute_at refuses output blocks."""

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
def flatten_read(X: T.Buffer((8, 4), "float32"), Y: T.Buffer((32,), "float32")):
    tmp = T.sblock_alloc_buffer((8, 4))
    for i, j in T.grid(8, 4):
        with T.sblock("A"):
            vi, vj = T.axis.remap("SS", [i, j])
            tmp[vi, vj] = X[vi, vj] * T.float32(2)
    for k in range(32):
        with T.sblock("B"):
            vk = T.axis.spatial(32, k)
            Y[vk] = tmp[vk // 4, vk % 4] + T.float32(1)


@T.prim_func(s_tir=True)
def flatten_read_after(X: T.Buffer((8, 4), "float32"), Y: T.Buffer((32,), "float32")):
    tmp = T.sblock_alloc_buffer((8, 4))
    for i in range(8):
        for j in range(4):
            with T.sblock("A"):
                vi, vj = T.axis.remap("SS", [i, j])
                tmp[vi, vj] = X[vi, vj] * T.float32(2)
        for ax0 in range(4):
            with T.sblock("B"):
                vk = T.axis.spatial(32, i * 4 + ax0)
                Y[vk] = tmp[vk // 4, vk % 4] + T.float32(1)


def test_reverse_compute_at_inverts_flattening_index():
    sch = s_tir.Schedule(flatten_read, debug_mask="all")
    sch.reverse_compute_at(sch.get_sblock("B"), sch.get_loops("A")[0])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], flatten_read_after)
    verify_trace_roundtrip(sch, mod=flatten_read)


@T.prim_func(s_tir=True)
def strided(X: T.Buffer((16,), "float32"), Y: T.Buffer((8,), "float32")):
    B = T.sblock_alloc_buffer((16,))
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = X[vi] + T.float32(1)
    for i in range(8):
        with T.sblock("C"):
            vi = T.axis.spatial(8, i)
            Y[vi] = B[vi * 2] + B[vi * 2 + 1]


@T.prim_func(s_tir=True)
def strided_after(X: T.Buffer((16,), "float32"), Y: T.Buffer((8,), "float32")):
    B = T.sblock_alloc_buffer((16,))
    for i in range(8):
        for ax0 in range(2):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i * 2 + ax0)
                B[vi] = X[vi] + T.float32(1)
        with T.sblock("C"):
            vi = T.axis.spatial(8, i)
            Y[vi] = B[vi * 2] + B[vi * 2 + 1]


def test_compute_at_covers_strided_reads():
    sch = s_tir.Schedule(strided, debug_mask="all")
    sch.compute_at(sch.get_sblock("B"), sch.get_loops("C")[0])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], strided_after)
    verify_trace_roundtrip(sch, mod=strided)


@T.prim_func(s_tir=True)
def pair_producer(X: T.Buffer((16,), "float32"), Y: T.Buffer((4,), "float32")):
    B = T.sblock_alloc_buffer((16,))
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = X[vi] * T.float32(3)
    for i in range(4):
        with T.sblock("C"):
            vi = T.axis.spatial(4, i)
            Y[vi] = B[vi * 4] + B[vi * 4 + 3]


def test_strided_stencil_is_numerically_equal():
    sch = s_tir.Schedule(pair_producer, debug_mask="all")
    sch.compute_at(sch.get_sblock("B"), sch.get_loops("C")[0])
    (loop,) = [lp for lp in sch.get_loops("B")][1:]
    assert int(sch.get(loop).extent) == 4
    f = tvm.compile(sch.mod, target="llvm")
    x = np.arange(16, dtype="float32")
    y = tvm.runtime.tensor(np.zeros(4, "float32"))
    f(tvm.runtime.tensor(x), y)
    np.testing.assert_allclose(y.numpy(), 3 * x[0::4] + 3 * x[3::4])


@T.prim_func(s_tir=True)
def grouped(X: T.Buffer((12,), "float32"), Y: T.Buffer((12,), "float32")):
    B = T.sblock_alloc_buffer((3,))
    for i in range(3):
        with T.sblock("B"):
            vi = T.axis.spatial(3, i)
            B[vi] = X[vi * 4]
    for i in range(12):
        with T.sblock("C"):
            vi = T.axis.spatial(12, i)
            Y[vi] = B[vi // 4] + X[vi]


@T.prim_func(s_tir=True)
def grouped_after(X: T.Buffer((12,), "float32"), Y: T.Buffer((12,), "float32")):
    B = T.sblock_alloc_buffer((3,))
    for i in range(3):
        with T.sblock("B"):
            vi = T.axis.spatial(3, i)
            B[vi] = X[vi * 4]
        for ax0 in range(4):
            with T.sblock("C"):
                vi = T.axis.spatial(12, i * 4 + ax0)
                Y[vi] = B[vi // 4] + X[vi]


def test_reverse_compute_at_solves_floordiv_read():
    sch = s_tir.Schedule(grouped, debug_mask="all")
    sch.reverse_compute_at(sch.get_sblock("C"), sch.get_loops("B")[0])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], grouped_after)


def test_compute_at_refuses_output_block():
    sch = s_tir.Schedule(strided, debug_mask="all")
    with pytest.raises(s_tir.ScheduleError, match="output block") as info:
        sch.compute_at(sch.get_sblock("C"), sch.get_loops("B")[0])
    assert "^^^" in str(info.value)


@T.prim_func(s_tir=True)
def reversed_read(X: T.Buffer((8,), "float32"), Y: T.Buffer((8,), "float32")):
    B = T.sblock_alloc_buffer((8,))
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = X[vi]
    for i in range(8):
        with T.sblock("C"):
            vi = T.axis.spatial(8, i)
            Y[vi] = B[7 - vi]


@T.prim_func(s_tir=True)
def reversed_read_after(X: T.Buffer((8,), "float32"), Y: T.Buffer((8,), "float32")):
    B = T.sblock_alloc_buffer((8,))
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = X[vi]
        with T.sblock("C"):
            vi = T.axis.spatial(8, 7 - i)
            Y[vi] = B[7 - vi]


def test_reverse_compute_at_solves_reversed_index():
    sch = s_tir.Schedule(reversed_read, debug_mask="all")
    sch.reverse_compute_at(sch.get_sblock("C"), sch.get_loops("B")[0])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], reversed_read_after)


@T.prim_func(s_tir=True)
def squared_read(X: T.Buffer((16,), "float32"), Y: T.Buffer((4,), "float32")):
    B = T.sblock_alloc_buffer((16,))
    for i in range(16):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            B[vi] = X[vi]
    for i in range(4):
        with T.sblock("C"):
            vi = T.axis.spatial(4, i)
            Y[vi] = B[vi * vi]


def test_unsupported_index_form_is_a_schedule_error():
    sch = s_tir.Schedule(squared_read, debug_mask="all")
    with pytest.raises(s_tir.ScheduleError, match="Cannot solve the iteration domain"):
        sch.reverse_compute_at(sch.get_sblock("C"), sch.get_loops("B")[0])


@T.prim_func(s_tir=True)
def regroup(X: T.Buffer((3, 16), "float32"), Y: T.Buffer((6, 8), "float32")):
    B = T.sblock_alloc_buffer((3, 16))
    for i, j in T.grid(3, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = X[vi, vj] + T.float32(1)
    for i, j in T.grid(6, 8):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = B[(vi * 8 + vj) // 16, (vi * 8 + vj) % 16]


@T.prim_func(s_tir=True)
def regroup_after(X: T.Buffer((3, 16), "float32"), Y: T.Buffer((6, 8), "float32")):
    B = T.sblock_alloc_buffer((3, 16))
    for i in range(3):
        for j in range(16):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = X[vi, vj] + T.float32(1)
        for ax0, ax1 in T.grid(2, 8):
            with T.sblock("C"):
                vi = T.axis.spatial(6, i * 2 + ax0)
                vj = T.axis.spatial(8, ax1)
                Y[vi, vj] = B[(vi * 8 + vj) // 16, (vi * 8 + vj) % 16]


def test_reverse_compute_at_inverts_a_fused_split_index():
    sch = s_tir.Schedule(regroup, debug_mask="all")
    sch.reverse_compute_at(sch.get_sblock("C"), sch.get_loops("B")[0])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], regroup_after)
    x = np.random.rand(3, 16).astype("float32")
    y = tvm.runtime.tensor(np.zeros((6, 8), "float32"))
    tvm.compile(sch.mod, target="llvm")(tvm.runtime.tensor(x), y)
    np.testing.assert_allclose(y.numpy(), (x + 1).reshape(6, 8), rtol=1e-6)
