"""rfactor's scope and binding preconditions (as TVM's): a stage-pipeline scope, affine
bindings, and loops that drive one kind of iterator."""

import pytest

from tvm import s_tir
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def half_written(A: T.Buffer((16, 16), "float32"), D: T.Buffer((32,), "float32")):
    C = T.sblock_alloc_buffer((32,))
    for i, k in T.grid(16, 16):
        with T.sblock("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                C[vi] = T.float32(0)
            C[vi] = C[vi] + A[vi, vk]
    for i in range(32):
        with T.sblock("D"):
            vi = T.axis.remap("S", [i])
            D[vi] = C[vi]


def test_rfactor_needs_a_stage_pipeline():
    sch = s_tir.Schedule(half_written, debug_mask="all")
    _, k = sch.get_loops("C")
    with pytest.raises(s_tir.ScheduleError, match="stage pipeline") as info:
        sch.rfactor(k, 0)
    assert "^^^" in str(info.value)


@T.prim_func(s_tir=True)
def squared_index(A: T.Buffer((16, 64), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 8):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i)
            vk = T.axis.reduce(64, k * k)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_rfactor_needs_affine_bindings():
    sch = s_tir.Schedule(squared_index, debug_mask="all")
    _, k = sch.get_loops("B")
    with pytest.raises(s_tir.ScheduleError, match="affine binding"):
        sch.rfactor(k, 0)


@T.prim_func(s_tir=True)
def mixed_loop(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for f, ki in T.grid(64, 4):
        with T.sblock("B"):
            vi = T.axis.spatial(16, f // 4)
            vk = T.axis.reduce(16, f % 4 * 4 + ki)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_rfactor_refuses_loops_driving_both_kinds():
    sch = s_tir.Schedule(mixed_loop, debug_mask="all")
    _, ki = sch.get_loops("B")
    with pytest.raises(s_tir.ScheduleError, match="both data parallel and reduction"):
        sch.rfactor(ki, 0)


@T.prim_func(s_tir=True)
def rowsum(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.sblock("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]


def test_rfactor_still_accepts_a_split_reduction():
    sch = s_tir.Schedule(rowsum, debug_mask="all")
    _, k = sch.get_loops("B")
    _, ki = sch.split(k, [None, 4])
    rf = sch.rfactor(ki, 0)
    assert sch.get(rf).name_hint == "B_rf"
