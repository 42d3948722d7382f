"""compute_at: the moved block's loop range is the needed range intersected with its
iterator domain, with guards only where it can overhang (expected outputs checked against
Apache TVM 0.27)."""

import numpy as np

import tvm
from tvm import s_tir
from tvm.s_tir.schedule.testing import assert_structural_equal_ignore_global_symbol
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def guarded_consumer(A: T.Buffer((16, 2), "float32"), C: T.Buffer((16, 2), "float32")):
    B = T.sblock_alloc_buffer((16, 2), "float32")
    for i, j in T.grid(16, 2):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(16, 8):
        with T.sblock("C"):
            vi = T.axis.spatial(16, i)
            vj = T.axis.spatial(2, j)
            T.where(j < 2)
            C[vi, vj] = B[vi, vj] * T.float32(3)


@T.prim_func(s_tir=True)
def guarded_consumer_after(A: T.Buffer((16, 2), "float32"), C: T.Buffer((16, 2), "float32")):
    B = T.sblock_alloc_buffer((16, 2), "float32")
    for i in range(16):
        for ax0, ax1 in T.grid(1, 2):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i + ax0)
                vj = T.axis.spatial(2, ax1)
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for j in range(8):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(2, j)
                T.where(j < 2)
                C[vi, vj] = B[vi, vj] * T.float32(3)


@T.prim_func(s_tir=True)
def two_halves(x: T.Buffer((4,), "float32"), y: T.Buffer((6,), "float32"),
               out: T.Buffer((10,), "float32")):
    X1 = T.sblock_alloc_buffer((4,), "float32")
    Y1 = T.sblock_alloc_buffer((6,), "float32")
    for i in range(4):
        with T.sblock("X1"):
            v = T.axis.remap("S", [i])
            X1[v] = x[v] * T.float32(2)
    for i in range(6):
        with T.sblock("Y1"):
            v = T.axis.remap("S", [i])
            Y1[v] = y[v] - T.float32(1)
    for i in range(10):
        with T.sblock("out"):
            v = T.axis.remap("S", [i])
            out[v] = T.if_then_else(v >= 4, Y1[v - 4], X1[v])


@T.prim_func(s_tir=True)
def two_halves_after(x: T.Buffer((4,), "float32"), y: T.Buffer((6,), "float32"),
                     out: T.Buffer((10,), "float32")):
    X1 = T.sblock_alloc_buffer((4,), "float32")
    Y1 = T.sblock_alloc_buffer((6,), "float32")
    for i in range(10):
        with T.sblock("Y1"):
            v = T.axis.spatial(6, i - 4)
            T.where(4 <= i)
            Y1[v] = y[v] - T.float32(1)
        with T.sblock("X1"):
            v = T.axis.spatial(4, i)
            T.where(i < 4)
            X1[v] = x[v] * T.float32(2)
        with T.sblock("out"):
            v = T.axis.remap("S", [i])
            out[v] = T.if_then_else(v >= 4, Y1[v - 4], X1[v])


def test_needed_range_past_the_domain_is_clipped_to_it():
    sch = s_tir.Schedule(guarded_consumer, debug_mask="all")
    i, _ = sch.get_loops(sch.get_sblock("C"))
    sch.compute_at(sch.get_sblock("B"), i, preserve_unit_loops=True)
    assert_structural_equal_ignore_global_symbol(guarded_consumer_after, sch.mod["main"])


def test_overhang_on_either_side_is_guarded():
    sch = s_tir.Schedule(two_halves, debug_mask="all")
    (i,) = sch.get_loops(sch.get_sblock("out"))
    sch.compute_at(sch.get_sblock("Y1"), i)
    sch.compute_at(sch.get_sblock("X1"), i)
    assert_structural_equal_ignore_global_symbol(two_halves_after, sch.mod["main"])
    x = np.arange(4, dtype="float32")
    y = np.arange(6, dtype="float32")
    out = tvm.runtime.tensor(np.zeros(10, "float32"))
    tvm.compile(sch.mod["main"], target="llvm")(tvm.runtime.tensor(x), tvm.runtime.tensor(y), out)
    np.testing.assert_allclose(out.numpy(), np.concatenate([x * 2, y - 1]))
