"""reindex_cache_read / reindex_cache_write: a cache indexed by an index map of the block's
iterators (expected outputs checked against Apache TVM 0.27), numbers and trace replay."""

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
def scale_then_shift(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.sblock_alloc_buffer((16, 8))
    for i, j in T.grid(16, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func(s_tir=True)
def read_cached(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.sblock_alloc_buffer((16, 8))
    B_shared = T.sblock_alloc_buffer((8, 4, 4), scope="shared")
    for i, j in T.grid(16, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.sblock("B_shared"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_shared[vj, vi // 4, vi % 4] = B[vi, vj]
    for i, j in T.grid(16, 8):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B_shared[vj, vi // 4, vi % 4] + T.float32(1)


@T.prim_func(s_tir=True)
def write_cached(A: T.Buffer((16, 8), "float32"), C: T.Buffer((16, 8), "float32")):
    B = T.sblock_alloc_buffer((16, 8))
    B_local = T.sblock_alloc_buffer((8, 16), scope="local")
    for i, j in T.grid(16, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B_local[vj, vi] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 8):
        with T.sblock("B_local"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = B_local[vj, vi]
    for i, j in T.grid(16, 8):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def _check_numbers(func):
    a = np.random.default_rng(0).random((16, 8), dtype="float32")
    c = tvm.runtime.tensor(np.zeros((16, 8), "float32"))
    tvm.compile(func, target="llvm")(tvm.runtime.tensor(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1, rtol=1e-6)


def test_reindex_cache_read():
    sch = s_tir.Schedule(scale_then_shift, debug_mask="all")
    sch.reindex_cache_read("C", 0, "shared", lambda i, j: (j, i // 4, i % 4))
    assert_structural_equal_ignore_global_symbol(read_cached, sch.mod["main"])
    verify_trace_roundtrip(sch, scale_then_shift)
    _check_numbers(sch.mod["main"])


def test_reindex_cache_write():
    sch = s_tir.Schedule(scale_then_shift, debug_mask="all")
    sch.reindex_cache_write("B", 0, "local", lambda i, j: (j, i))
    assert_structural_equal_ignore_global_symbol(write_cached, sch.mod["main"])
    verify_trace_roundtrip(sch, scale_then_shift)
    _check_numbers(sch.mod["main"])


def test_reindex_cache_errors():
    sch = s_tir.Schedule(scale_then_shift)
    with pytest.raises(s_tir.ScheduleError, match=r"itervar vj appears in \(vi, vj\), but not in \(vi,\)"):
        sch.reindex_cache_read("C", 0, "shared", lambda i, j: (i,))
    with pytest.raises(s_tir.ScheduleError, match="is invalid"):
        sch.reindex_cache_write("B", 0, "nowhere", lambda i, j: (j, i))
