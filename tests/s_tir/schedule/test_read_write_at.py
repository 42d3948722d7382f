"""read_at / write_at as Apache TVM 0.27 (expected outputs checked against it): an auto_copy
block per loop iteration, copying the tile the loop body reads (writes)."""

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
def add_one(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for i0, i1, j in T.grid(8, 8, 64):
        with T.sblock("B"):
            vi = T.axis.spatial(64, i0 * 8 + i1)
            vj = T.axis.spatial(64, j)
            B[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func(s_tir=True)
def add_one_copied(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    A_global = T.sblock_alloc_buffer((64, 64))
    B_local = T.sblock_alloc_buffer((64, 64), scope="local")
    for i0 in range(8):
        with T.sblock("A_global"):
            v0 = T.axis.spatial(8, i0)
            T.reads(A[v0 * 8:v0 * 8 + 8, 0:64])
            T.writes(A_global[v0 * 8:v0 * 8 + 8, 0:64])
            T.sblock_attr({"auto_copy": True})
            for ax0, ax1 in T.grid(8, 64):
                A_global[v0 * 8 + ax0, ax1] = A[v0 * 8 + ax0, ax1]
        for i1 in range(8):
            for j in range(64):
                with T.sblock("B"):
                    vi = T.axis.spatial(64, i0 * 8 + i1)
                    vj = T.axis.spatial(64, j)
                    T.reads(A_global[vi, vj])
                    T.writes(B_local[vi, vj])
                    B_local[vi, vj] = A_global[vi, vj] + T.float32(1)
            with T.sblock("B_local"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(B_local[v0 * 8 + v1, 0:64])
                T.writes(B[v0 * 8 + v1, 0:64])
                T.sblock_attr({"auto_copy": True})
                for ax0, ax1 in T.grid(1, 64):
                    B[v0 * 8 + v1 + ax0, ax1] = B_local[v0 * 8 + v1 + ax0, ax1]


def test_read_at_then_write_at():
    sch = s_tir.Schedule(add_one, debug_mask="all")
    block = sch.get_sblock("B")
    i0, i1, _ = sch.get_loops(block)
    a_copy = sch.read_at(i0, block, 0, "global")
    b_copy = sch.write_at(i1, block, "B", "local")
    assert sch.get(a_copy).name_hint == "A_global"
    assert sch.get(b_copy).name_hint == "B_local"
    assert_structural_equal_ignore_global_symbol(add_one_copied, sch.mod["main"])
    verify_trace_roundtrip(sch, add_one)
    trace = str(sch.trace)
    assert 'read_at(loop=l1, block=b0, read_buffer_index=0, storage_scope="global")' in trace
    assert 'write_at(loop=l2, block=b0, write_buffer_index=0, storage_scope="local")' in trace


def test_read_write_at_compute_the_same():
    sch = s_tir.Schedule(add_one)
    block = sch.get_sblock("B")
    i0, i1, _ = sch.get_loops(block)
    sch.read_at(i0, block, 0, "global")
    sch.write_at(i1, block, 0, "global")
    a = np.random.default_rng(1).standard_normal((64, 64)).astype("float32")
    b = tvm.runtime.tensor(np.zeros((64, 64), "float32"))
    tvm.compile(sch.mod["main"], target="llvm")(tvm.runtime.tensor(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1)


@T.prim_func(s_tir=True)
def matmul(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"),
           C: T.Buffer((16, 16), "float32")):
    for i, j, k in T.grid(16, 16, 16):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(C[vi, vj], A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def test_read_at_of_a_buffer_written_in_the_loop():
    sch = s_tir.Schedule(matmul)
    block = sch.get_sblock("C")
    i, _, _ = sch.get_loops(block)
    with pytest.raises(s_tir.ScheduleError, match="not write it after the first read") as info:
        sch.read_at(i, block, "C", "shared")
    assert "^^^^" in str(info.value)


def test_read_write_at_bad_arguments():
    sch = s_tir.Schedule(matmul)
    block = sch.get_sblock("C")
    i, _, _ = sch.get_loops(block)
    with pytest.raises(s_tir.ScheduleError, match="storage scope"):
        sch.write_at(i, block, 0, "nowhere")
    with pytest.raises(s_tir.ScheduleError, match="out of range"):
        sch.read_at(i, block, 7, "shared")
    with pytest.raises(ValueError, match="no write buffer"):
        sch.write_at(i, block, "A", "shared")


@T.prim_func(s_tir=True)
def two_nests(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"),
              C: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("B"):
            vi = T.axis.spatial(8, i)
            B[vi] = A[vi]
    for i in range(8):
        with T.sblock("C"):
            vi = T.axis.spatial(8, i)
            C[vi] = A[vi]


def test_read_at_needs_the_block_under_the_loop():
    sch = s_tir.Schedule(two_nests)
    (loop_b,) = sch.get_loops(sch.get_sblock("B"))
    with pytest.raises(s_tir.ScheduleError, match="is not under the loop"):
        sch.read_at(loop_b, sch.get_sblock("C"), 0, "local")
