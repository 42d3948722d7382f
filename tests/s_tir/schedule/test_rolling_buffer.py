"""rolling_buffer: a producer computed per tile of a sliding-window consumer keeps one tile
of rows in a circular buffer (modulo indexing), and later tiles skip the overlap (expected
output checked against Apache TVM 0.27; numbers against NumPy)."""

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
def window_sum(A: T.Buffer((2, 10), "int32"), C: T.Buffer((2, 6), "int32")):
    B = T.sblock_alloc_buffer((2, 8), "int32")
    for r, i in T.grid(2, 8):
        with T.sblock("B"):
            vr, vi = T.axis.remap("SS", [r, i])
            B[vr, vi] = A[vr, vi] + A[vr, vi + 2]
    for r, i, k in T.grid(2, 6, 3):
        with T.sblock("C"):
            vr, vi, vk = T.axis.remap("SSR", [r, i, k])
            with T.init():
                C[vr, vi] = 0
            C[vr, vi] = C[vr, vi] + B[vr, vi + vk]


@T.prim_func(s_tir=True)
def window_sum_rolled(A: T.Buffer((2, 10), "int32"), C: T.Buffer((2, 6), "int32")):
    B = T.sblock_alloc_buffer((2, 5), "int32")
    for r, i_0 in T.grid(2, 2):
        for ax0 in range(5):
            with T.sblock("B"):
                T.where(i_0 < 1 or 2 <= ax0)
                vr = T.axis.spatial(2, r)
                vi = T.axis.opaque(8, i_0 * 3 + ax0)
                B[vr, vi % 5] = A[vr, vi] + A[vr, vi + 2]
        for i_1, k in T.grid(3, 3):
            with T.sblock("C"):
                vr = T.axis.spatial(2, r)
                vi = T.axis.opaque(6, i_0 * 3 + i_1)
                vk = T.axis.reduce(3, k)
                with T.init():
                    C[vr, vi] = 0
                C[vr, vi] = C[vr, vi] + B[vr, (vi + vk) % 5]


def _schedule():
    sch = s_tir.Schedule(window_sum, debug_mask="all")
    _, i, _ = sch.get_loops("C")
    io, _ = sch.split(i, [2, 3])
    sch.compute_at(sch.get_sblock("B"), io)
    sch.rolling_buffer(sch.get_sblock("B"), 0)
    return sch


def test_rolling_buffer_folds_and_guards():
    sch = _schedule()
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], window_sum_rolled)
    verify_trace_roundtrip(sch, mod=window_sum)


def test_rolling_buffer_numbers():
    sch = _schedule()
    a = np.random.randint(-50, 50, (2, 10)).astype("int32")
    c = tvm.runtime.tensor(np.zeros((2, 6), "int32"))
    tvm.compile(sch.mod, target="llvm")(tvm.runtime.tensor(a), c)
    b = a[:, :8] + a[:, 2:]
    np.testing.assert_array_equal(c.numpy(), b[:, 0:6] + b[:, 1:7] + b[:, 2:8])


def test_rolling_buffer_needs_a_loop_as_common_ancestor():
    sch = s_tir.Schedule(window_sum, debug_mask="all")
    with pytest.raises(s_tir.ScheduleError, match="lca of the access location") as info:
        sch.rolling_buffer(sch.get_sblock("B"), 0)
    assert "^^^" in str(info.value)


def test_rolling_buffer_needs_overlapping_tiles():
    sch = s_tir.Schedule(window_sum, debug_mask="all")
    _, i, _ = sch.get_loops("C")
    io, _ = sch.split(i, [2, 3])
    sch.compute_at(sch.get_sblock("B"), io)
    sch.rolling_buffer(sch.get_sblock("B"), 0)
    with pytest.raises(s_tir.ScheduleError, match="rolling pattern"):
        # Already rolled: the region's minimum is now a modulo, not a tiled index.
        sch.rolling_buffer(sch.get_sblock("B"), 0)


def test_rolling_buffer_refuses_output_block():
    sch = s_tir.Schedule(window_sum, debug_mask="all")
    with pytest.raises(s_tir.ScheduleError, match="output block"):
        sch.rolling_buffer(sch.get_sblock("C"), 0)
