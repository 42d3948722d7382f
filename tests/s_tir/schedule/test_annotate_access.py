"""annotate_buffer_access as Apache TVM 0.27 (expected outputs checked against it): explicit
read/write regions and the ``explicit_*_region`` annotations."""

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
def two_stage(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.sblock_alloc_buffer((16, 16), "float32")
    for i, j in T.grid(16, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


@T.prim_func(s_tir=True)
def two_stage_annotated(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    B = T.sblock_alloc_buffer((16, 16), "float32")
    for i, j in T.grid(16, 16):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi - 1:vi - 1 + 2, vj])
            T.writes(B[vi:vi + 2, vj:vj + 2])
            T.sblock_attr({"explicit_read_region": [0], "explicit_write_region": [0]})
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(16, 16):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)


def test_annotate_read_and_write_regions():
    sch = s_tir.Schedule(two_stage, debug_mask="all")
    block = sch.get_sblock("B")
    sch.annotate_buffer_access(block, 0, "read", lambda vi, vj: ((vi - 1, vi + 1), vj))
    sch.annotate_buffer_access("B", 0, "write", lambda vi, vj: ((vi, vi + 2), (vj, vj + 2)))
    # Annotating the same buffer again keeps one index in the annotation.
    sch.annotate_buffer_access("B", 0, "write", lambda vi, vj: ((vi, vi + 2), (vj, vj + 2)))
    assert_structural_equal_ignore_global_symbol(two_stage_annotated, sch.mod["main"])
    verify_trace_roundtrip(sch, two_stage)


def test_annotated_function_computes_the_same():
    sch = s_tir.Schedule(two_stage)
    sch.annotate_buffer_access("B", 0, "read", lambda vi, vj: ((0, 16), (0, 16)))
    a = np.random.default_rng(4).standard_normal((16, 16)).astype("float32")
    c = tvm.runtime.tensor(np.zeros((16, 16), "float32"))
    tvm.compile(sch.mod["main"], target="llvm")(tvm.runtime.tensor(a), c)
    np.testing.assert_allclose(c.numpy(), a * 2 + 1)


def test_annotate_buffer_access_bad_arguments():
    sch = s_tir.Schedule(two_stage)
    with pytest.raises(ValueError, match="Invalid buf_type"):
        sch.annotate_buffer_access("B", 0, "readwrite", lambda vi, vj: (vi, vj))
    with pytest.raises(ValueError, match="Number of iter_vars"):
        sch.annotate_buffer_access("B", 0, "read", lambda vi, vj: (vi,))
    with pytest.raises(ValueError, match="exactly 2 elements"):
        sch.annotate_buffer_access("B", 0, "read", lambda vi, vj: ((vi, vi, vi), vj))
    with pytest.raises(s_tir.ScheduleError, match="out of range") as info:
        sch.annotate_buffer_access("B", 2, "write", lambda vi, vj: (vi, vj))
    assert "^^^^" in str(info.value)
