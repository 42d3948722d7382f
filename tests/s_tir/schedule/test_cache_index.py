"""cache_index as Apache TVM 0.27 (expected outputs checked against it): the block's index
expressions precomputed into buffers ``index_var_<k>`` by blocks ``index_<k>``."""

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
def gather(A: T.Buffer((64,), "float32"), B: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[0:64])
            T.writes(B[vi, vj])
            B[vi, vj] = A[(vi * 8 + vj) % 64] + A[(vi * 8 + vj) % 64 // 2] + A[vj * 3 % 64]


# Order: post order of the stored value, then larger expressions first.
@T.prim_func(s_tir=True)
def gather_all_cached(A: T.Buffer((64,), "float32"), B: T.Buffer((8, 8), "float32")):
    index_var_0 = T.sblock_alloc_buffer((8, 8), "int32", strides=(1,))
    index_var_1 = T.sblock_alloc_buffer((8, 8), "int32", strides=(1,))
    index_var_2 = T.sblock_alloc_buffer((8,), "int32", strides=(1,))
    for ax0, ax1 in T.grid(8, 8):
        with T.sblock("index_0"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads()
            T.writes(index_var_0[v0, v1])
            index_var_0[v0, v1] = (v0 * 8 + v1) % 64 // 2
    for ax0, ax1 in T.grid(8, 8):
        with T.sblock("index_1"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads()
            T.writes(index_var_1[v0, v1])
            index_var_1[v0, v1] = (v0 * 8 + v1) % 64
    for ax0 in range(8):
        with T.sblock("index_2"):
            v0 = T.axis.spatial(8, ax0)
            T.reads()
            T.writes(index_var_2[v0])
            index_var_2[v0] = v0 * 3 % 64
    for i, j in T.grid(8, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[0:64])
            T.writes(B[vi, vj])
            B[vi, vj] = A[index_var_1[vi, vj]] + A[index_var_0[vi, vj]] + A[index_var_2[vj]]


# TVM 0.27 fails this case (it builds a one-statement SeqStmt for the single stage).
@T.prim_func(s_tir=True)
def gather_repeated_cached(A: T.Buffer((64,), "float32"), B: T.Buffer((8, 8), "float32")):
    index_var_0 = T.sblock_alloc_buffer((8, 8), "int32", strides=(1,))
    for ax0, ax1 in T.grid(8, 8):
        with T.sblock("index_0"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads()
            T.writes(index_var_0[v0, v1])
            index_var_0[v0, v1] = (v0 * 8 + v1) % 64
    for i, j in T.grid(8, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[0:64])
            T.writes(B[vi, vj])
            B[vi, vj] = A[index_var_0[vi, vj]] + A[index_var_0[vi, vj] // 2] + A[vj * 3 % 64]


def _run(func):
    a = np.random.default_rng(0).standard_normal(64).astype("float32")
    b = tvm.runtime.tensor(np.zeros((8, 8), "float32"))
    tvm.compile(func, target="llvm")(tvm.runtime.tensor(a), b)
    return a, b.numpy()


def _reference(a):
    i, j = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
    flat = (i * 8 + j) % 64
    return a[flat] + a[flat // 2] + a[j * 3 % 64]


def test_cache_index_every_candidate():
    sch = s_tir.Schedule(gather, debug_mask="all")
    blocks = sch.cache_index("B", "global")
    assert [sch.get(b).name_hint for b in blocks] == ["index_0", "index_1", "index_2"]
    assert_structural_equal_ignore_global_symbol(gather_all_cached, sch.mod["main"])
    verify_trace_roundtrip(sch, gather)
    a, b = _run(sch.mod["main"])
    np.testing.assert_allclose(b, _reference(a), rtol=1e-6)


def test_cache_index_threshold_keeps_repeated_expressions():
    sch = s_tir.Schedule(gather, debug_mask="all")
    (block,) = sch.cache_index(sch.get_sblock("B"), "global", cse_thresh=2)
    assert sch.get(block).name_hint == "index_0"
    assert_structural_equal_ignore_global_symbol(gather_repeated_cached, sch.mod["main"])
    verify_trace_roundtrip(sch, gather)
    a, b = _run(sch.mod["main"])
    np.testing.assert_allclose(b, _reference(a), rtol=1e-6)


def test_cache_index_nothing_repeated_enough():
    sch = s_tir.Schedule(gather)
    assert sch.cache_index("B", "global", cse_thresh=5) == []
    assert_structural_equal_ignore_global_symbol(gather, sch.mod["main"])


def test_cache_index_bad_arguments():
    sch = s_tir.Schedule(gather)
    with pytest.raises(ValueError, match="cse_thresh should not be negative"):
        sch.cache_index("B", "global", -1)
    with pytest.raises(TypeError, match="storage_scope must be a str"):
        sch.cache_index("B", 3)
