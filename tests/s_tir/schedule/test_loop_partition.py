"""loop_partition as Apache TVM 0.27 (expected outputs checked against it): a common opaque
block, one opaque partition block per piece, renamed block copies over each piece."""

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
def add_one(A: T.Buffer((10, 4), "float32"), B: T.Buffer((10, 4), "float32")):
    for i, j in T.grid(10, 4):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func(s_tir=True)
def add_one_partitioned_j(A: T.Buffer((10, 4), "float32"), B: T.Buffer((10, 4), "float32")):
    for i in range(10):
        with T.sblock("B_j_common"):
            T.reads()
            T.writes()
            with T.sblock("B_j0_partition"):
                T.reads()
                T.writes()
                for j0 in range(1):
                    with T.sblock("B_j0"):
                        vi, vj = T.axis.remap("SS", [i, j0])
                        T.reads(A[0:10, 0])
                        T.writes(B[0:10, 0])
                        B[vi, vj] = A[vi, vj] + T.float32(1)
            with T.sblock("B_j1_partition"):
                T.reads()
                T.writes()
                for j1 in range(1, 4):
                    with T.sblock("B_j1"):
                        vi, vj = T.axis.remap("SS", [i, j1])
                        T.reads(A[0:10, 1:4])
                        T.writes(B[0:10, 1:4])
                        B[vi, vj] = A[vi, vj] + T.float32(1)


def test_loop_partition_inner_loop():
    sch = s_tir.Schedule(add_one, debug_mask="all")
    _, j = sch.get_loops("B")
    loops = sch.loop_partition(j, [1])
    assert [sch.get(lp).loop_var.name for lp in loops] == ["j0", "j1"]
    assert_structural_equal_ignore_global_symbol(add_one_partitioned_j, sch.mod["main"])
    verify_trace_roundtrip(sch, add_one)
    assert "l3, l4 = sch.loop_partition(loop=l2, factors=[1], preserve_unit_iters=True)" in str(
        sch.trace)


def test_loop_partition_computes_the_same():
    sch = s_tir.Schedule(add_one)
    i, _ = sch.get_loops("B")
    first, _ = sch.loop_partition(i, [3, None])
    sch.loop_partition(sch.get_loops(sch.get_sblock("B_i0"))[1], [2])
    assert sch.get(first).extent.value == 3
    a = np.random.default_rng(3).standard_normal((10, 4)).astype("float32")
    b = tvm.runtime.tensor(np.zeros((10, 4), "float32"))
    tvm.compile(sch.mod["main"], target="llvm")(tvm.runtime.tensor(a), b)
    np.testing.assert_allclose(b.numpy(), a + 1)


@pytest.mark.parametrize("factors, message", [
    ([10], "sum of factors is larger than or equal to the extent"),
    ([None, None], "Only one factor can be specified"),
    ([3, 0], "the factor at position 1 is 0"),
])
def test_loop_partition_bad_factors(factors, message):
    sch = s_tir.Schedule(add_one)
    i, _ = sch.get_loops("B")
    with pytest.raises(s_tir.ScheduleError, match=message) as info:
        sch.loop_partition(i, factors)
    assert "^^^^" in str(info.value)


@T.prim_func(s_tir=True)
def add_one_bound(A: T.Buffer((10, 4), "float32"), B: T.Buffer((10, 4), "float32")):
    for i in T.thread_binding(10, thread="threadIdx.x"):
        for j in range(4):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)


@T.prim_func(s_tir=True)
def add_one_symbolic(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.sblock("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] + T.float32(1)


def test_loop_partition_rejected_loops():
    sch = s_tir.Schedule(add_one_bound)
    i, _ = sch.get_loops("B")
    with pytest.raises(s_tir.ScheduleError, match="has annotation or thread binding"):
        sch.loop_partition(i, [2])
    sch = s_tir.Schedule(add_one_symbolic)
    (i,) = sch.get_loops("B")
    with pytest.raises(s_tir.ScheduleError, match="dynamic shape"):
        sch.loop_partition(i, [2, None])
