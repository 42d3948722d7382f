"""Schedule.reindex: Before/Expected TVMScript, trace replay, and its errors."""

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
def transposed_scale(A: T.Buffer((16, 8), "float32"), B: T.Buffer((8, 16), "float32")):
    for i, j in T.grid(8, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vj, vi] * T.float32(2)


@T.prim_func(s_tir=True)
def transposed_scale_reindex_read(A: T.Buffer((16, 8), "float32"),
                                  B: T.Buffer((8, 16), "float32")):
    A_reindex = T.sblock_alloc_buffer((8, 16))
    for ax0, ax1 in T.grid(8, 16):
        with T.sblock("A_reindex"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(A[v1, v0])
            T.writes(A_reindex[v0, v1])
            A_reindex[v0, v1] = A[v1, v0]
    for i, j in T.grid(8, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A_reindex[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A_reindex[vi, vj] * T.float32(2)


@T.prim_func(s_tir=True)
def matvec(A: T.Buffer((8, 4), "float32"), x: T.Buffer((4,), "float32"),
           y: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 4):
        with T.sblock("y"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                y[vi] = T.float32(0)
            y[vi] = y[vi] + A[vi, vk] * x[vk]


@T.prim_func(s_tir=True)
def matvec_reindex_write(A: T.Buffer((8, 4), "float32"), x: T.Buffer((4,), "float32"),
                         y: T.Buffer((8,), "float32")):
    y_reindex = T.sblock_alloc_buffer((8,))
    for i, k in T.grid(8, 4):
        with T.sblock("y"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk], x[vk])
            T.writes(y_reindex[vi])
            with T.init():
                y_reindex[vi] = T.float32(0)
            y_reindex[vi] = y_reindex[vi] + A[vi, vk] * x[vk]
    for ax0 in range(8):
        with T.sblock("y_reindex"):
            v0 = T.axis.spatial(8, ax0)
            T.reads(y_reindex[v0])
            T.writes(y[v0])
            y[v0] = y_reindex[v0]


@T.prim_func(s_tir=True)
def two_patterns(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + A[vj, vi]


def test_reindex_read():
    sch = s_tir.Schedule(transposed_scale, debug_mask="all")
    rv = sch.reindex(sch.get_sblock("B"), ("read", 0))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], transposed_scale_reindex_read)
    assert sch.get(rv).name_hint == "A_reindex"
    verify_trace_roundtrip(sch, transposed_scale)
    a = np.random.default_rng(0).random((16, 8), dtype="float32")
    b = tvm.runtime.tensor(np.zeros((8, 16), "float32"))
    tvm.compile(sch.mod, target="llvm")(tvm.runtime.tensor(a), b)
    np.testing.assert_allclose(b.numpy(), a.T * 2, rtol=1e-6)


def test_reindex_write_by_name():
    # y is read and written (y[vi] = y[vi] + ...): a name selects the write.
    sch = s_tir.Schedule(matvec, debug_mask="all")
    sch.reindex("y", "y")
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], matvec_reindex_write)
    verify_trace_roundtrip(sch, matvec)


def test_reindex_errors():
    sch = s_tir.Schedule(two_patterns, error_render_level="fast")
    with pytest.raises(s_tir.ScheduleError, match="2 different index patterns"):
        sch.reindex(sch.get_sblock("B"), ("read", 0))
    with pytest.raises(s_tir.ScheduleError, match="read buffer index 3 is out of range"):
        sch.reindex(sch.get_sblock("B"), ("read", 3))
    with pytest.raises(ValueError, match="does not access buffer 'Z'"):
        sch.reindex(sch.get_sblock("B"), "Z")
    with pytest.raises(ValueError, match="must be 'read' or 'write'"):
        sch.reindex(sch.get_sblock("B"), ("modify", 0))
