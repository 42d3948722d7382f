"""cache_read placement and region as Apache TVM 0.27 (expected outputs checked against it):
the copy goes before the first reader after the writer, in the innermost loop holding both;
under a scope block the cache is compacted to what the writer writes there."""

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
def tiles_in_scope(C: T.Buffer((32, 32), "float32")):
    A = T.sblock_alloc_buffer((32, 32))
    for i0, j0 in T.grid(4, 4):
        with T.sblock("tile"):
            i, j = T.axis.remap("SS", [i0, j0])
            for x, y in T.grid(8, 8):
                with T.sblock("A"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    A[vi, vj] = T.Cast("float32", vi * 32 + vj)
            for x, y in T.grid(8, 8):
                with T.sblock("C"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    C[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func(s_tir=True)
def tiles_in_scope_cached(C: T.Buffer((32, 32), "float32")):
    A = T.sblock_alloc_buffer((32, 32))
    for i0, j0 in T.grid(4, 4):
        with T.sblock("tile"):
            i, j = T.axis.remap("SS", [i0, j0])
            A_local = T.sblock_alloc_buffer((8, 8), scope="local")
            for x, y in T.grid(8, 8):
                with T.sblock("A"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    A[vi, vj] = T.Cast("float32", vi * 32 + vj)
            for ax0, ax1 in T.grid(8, 8):
                with T.sblock("A_local"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    A_local[v0, v1] = A[i * 8 + v0, j * 8 + v1]
            for x, y in T.grid(8, 8):
                with T.sblock("C"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    C[vi, vj] = A_local[vi - i * 8, vj - j * 8] + T.float32(1)


def test_cache_under_a_scope_block_is_compacted():
    sch = s_tir.Schedule(tiles_in_scope, debug_mask="all")
    sch.cache_read("C", 0, "local")
    assert_structural_equal_ignore_global_symbol(tiles_in_scope_cached, sch.mod["main"])
    verify_trace_roundtrip(sch, tiles_in_scope)
    c = tvm.runtime.tensor(np.zeros((32, 32), "float32"))
    tvm.compile(sch.mod["main"], target="llvm")(c)
    np.testing.assert_allclose(c.numpy(), np.arange(1024, dtype="float32").reshape(32, 32) + 1)


@T.prim_func(s_tir=True)
def guarded_tail(B: T.Buffer((60,), "float32")):
    A = T.sblock_alloc_buffer((60,))
    for i, j in T.grid(8, 8):
        with T.sblock("A"):
            v = T.axis.spatial(60, i * 8 + j)
            T.where(i * 8 + j < 60)
            A[v] = T.float32(2)
    for i in range(60):
        with T.sblock("B"):
            v = T.axis.remap("S", [i])
            B[v] = A[v] * T.float32(3)


@T.prim_func(s_tir=True)
def guarded_tail_cached(B: T.Buffer((60,), "float32")):
    A = T.sblock_alloc_buffer((60,))
    A_shared = T.sblock_alloc_buffer((60,), scope="shared")
    for i, j in T.grid(8, 8):
        with T.sblock("A"):
            v = T.axis.spatial(60, i * 8 + j)
            T.where(i * 8 + j < 60)
            A[v] = T.float32(2)
    for ax0 in range(60):
        with T.sblock("A_shared"):
            v0 = T.axis.spatial(60, ax0)
            A_shared[v0] = A[v0]
    for i in range(60):
        with T.sblock("B"):
            v = T.axis.remap("S", [i])
            B[v] = A_shared[v] * T.float32(3)


def test_cache_region_stays_inside_the_buffer():
    sch = s_tir.Schedule(guarded_tail, debug_mask="all")
    sch.cache_read("B", 0, "shared", consumer_blocks=["B"])
    assert_structural_equal_ignore_global_symbol(guarded_tail_cached, sch.mod["main"])
    # Consumer names are recorded as block handles, so the trace replays as written.
    verify_trace_roundtrip(sch, guarded_tail)


def test_invalid_storage_scope():
    sch = s_tir.Schedule(guarded_tail)
    with pytest.raises(s_tir.ScheduleError, match='storage scope "test_scope" is invalid'):
        sch.cache_read("B", 0, "test_scope")
    with pytest.raises(s_tir.ScheduleError, match='storage scope "l1" is invalid'):
        sch.cache_write("A", 0, "l1")


@T.prim_func(s_tir=True)
def tiles_in_scope_write_cached(C: T.Buffer((32, 32), "float32")):
    A = T.sblock_alloc_buffer((32, 32))
    for i0, j0 in T.grid(4, 4):
        with T.sblock("tile"):
            i, j = T.axis.remap("SS", [i0, j0])
            T.reads(A[i * 8:i * 8 + 8, j * 8:j * 8 + 8])
            T.writes(A[i * 8:i * 8 + 8, j * 8:j * 8 + 8], C[i * 8:i * 8 + 8, j * 8:j * 8 + 8])
            A_local = T.sblock_alloc_buffer((8, 8), scope="local")
            for x, y in T.grid(8, 8):
                with T.sblock("A"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    A_local[vi - i * 8, vj - j * 8] = T.Cast("float32", vi * 32 + vj)
            for ax0, ax1 in T.grid(8, 8):
                with T.sblock("A_local"):
                    v0, v1 = T.axis.remap("SS", [ax0, ax1])
                    A[i * 8 + v0, j * 8 + v1] = A_local[v0, v1]
            for x, y in T.grid(8, 8):
                with T.sblock("C"):
                    vi = T.axis.spatial(32, i * 8 + x)
                    vj = T.axis.spatial(32, j * 8 + y)
                    C[vi, vj] = A[vi, vj] + T.float32(1)


def test_cache_write_under_a_scope_block_is_compacted():
    sch = s_tir.Schedule(tiles_in_scope, debug_mask="all")
    sch.cache_write("A", 0, "local")
    assert_structural_equal_ignore_global_symbol(tiles_in_scope_write_cached, sch.mod["main"])
    verify_trace_roundtrip(sch, tiles_in_scope)
    c = tvm.runtime.tensor(np.zeros((32, 32), "float32"))
    tvm.compile(sch.mod["main"], target="llvm")(c)
    np.testing.assert_allclose(c.numpy(), np.arange(1024, dtype="float32").reshape(32, 32) + 1)
