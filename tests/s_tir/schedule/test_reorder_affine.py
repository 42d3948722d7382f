"""reorder needs affine block bindings under the reordered loops (TVM's partial affine
binding check): strided or non-linear bindings and foreign predicates are refused; splits that
do not divide (with their guard), overlapping sums and outer non-linear terms are accepted."""

import pytest

from tvm import s_tir
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def strided_binding(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for i, j in T.grid(64, 16):
        with T.sblock("B"):
            vi = T.axis.spatial(64, i)
            vj = T.axis.spatial(64, j * 4)
            B[vi, vj] = A[vi, vj] + T.float32(1)


def test_reorder_refuses_strided_binding():
    sch = s_tir.Schedule(strided_binding, debug_mask="all")
    i, j = sch.get_loops("B")
    with pytest.raises(s_tir.ScheduleError, match="affine binding") as info:
        sch.reorder(j, i)
    assert "^^^" in str(info.value)


@T.prim_func(s_tir=True)
def flat_predicate(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i, j in T.grid(8, 8):
        with T.sblock("B"):
            T.where(i * 8 + j < 50)
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)


def test_reorder_refuses_predicate_on_unused_fusion():
    sch = s_tir.Schedule(flat_predicate, debug_mask="all")
    i, j = sch.get_loops("B")
    with pytest.raises(s_tir.ScheduleError, match="affine binding"):
        sch.reorder(j, i)


@T.prim_func(s_tir=True)
def rows(A: T.Buffer((127, 8), "float32"), B: T.Buffer((127, 8), "float32")):
    for i, j in T.grid(127, 8):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)


def test_reorder_accepts_guarded_split():
    sch = s_tir.Schedule(rows, debug_mask="all")
    i, j = sch.get_loops("B")
    io, ii = sch.split(i, [None, 16])
    sch.reorder(ii, j, io)
    names = [sch.get(lp).loop_var.name for lp in sch.get_loops("B")]
    assert names == ["i_1", "j", "i_0"]


@T.prim_func(s_tir=True)
def square_outer(A: T.Buffer((40, 4), "float32"), B: T.Buffer((40, 4), "float32")):
    for a, b, c in T.grid(6, 4, 4):
        with T.sblock("B"):
            vi = T.axis.spatial(40, a * a + b)
            vj = T.axis.spatial(4, c)
            B[vi, vj] = A[vi, vj] + T.float32(1)


def test_reorder_checks_bindings_below_the_outermost_reordered_loop():
    sch = s_tir.Schedule(square_outer, debug_mask="all")
    a, b, c = sch.get_loops("B")
    with pytest.raises(s_tir.ScheduleError, match="partial affine binding under a"):
        sch.reorder(a, c, b)
    sch.reorder(c, b)  # `a * a` is a constant below `a`
    assert [sch.get(lp).loop_var.name for lp in sch.get_loops("B")] == ["a", "c", "b"]
