"""sample_partitioned_tile as Apache TVM 0.27 (decision handling checked against it)."""

import numpy as np
import pytest

import tvm
from tvm import s_tir
from tvm.s_tir.schedule.testing import verify_trace_roundtrip
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def fill(A: T.Buffer((96,), "float32")):
    for i in range(96):
        with T.sblock("A"):
            vi = T.axis.spatial(96, i)
            A[vi] = T.Cast("float32", vi)


def _sample(decision, partition_pos=1, innerpart_factor=8, func=fill):
    sch = s_tir.Schedule(func)
    (loop,) = sch.get_loops("A")
    rvs = sch.sample_partitioned_tile(loop, 3, partition_pos, innerpart_factor,
                                      decision=decision)
    return sch, [None if rv is None else sch.get(rv) for rv in rvs]


@pytest.mark.parametrize("decision, partition_pos, expected", [
    ([2, 3, 16], 1, [2, 3, 16]),  # valid: kept
    ([4, 6, 5], 1, [12, 8, 1]),   # inner part 30 not a multiple of 8: the default tiling
    ([4, 6, 5], 2, [12, 1, 8]),
    ([5, 4, 8], 1, [3, 4, 8]),    # made perfect again: 96 = 3 * 4 * 8
])
def test_sample_partitioned_tile_decisions(decision, partition_pos, expected):
    sch, values = _sample(decision, partition_pos)
    assert values == expected
    assert sch.trace.decisions[sch.trace.insts[-1]] == expected


def test_sample_partitioned_tile_indivisible_extent_is_trivial():
    sch, values = _sample(None, 1, 7)
    assert values == [None, 1, 1]
    assert sch.trace.decisions[sch.trace.insts[-1]] == [-1, 1, 1]


@pytest.mark.parametrize("seed", range(1, 7))
def test_sample_partitioned_tile_fresh_samples(seed):
    sch = s_tir.Schedule(fill, seed=seed)
    (loop,) = sch.get_loops("A")
    values = [sch.get(rv) for rv in sch.sample_partitioned_tile(loop, 4, 2, 8)]
    assert int(np.prod(values)) == 96
    assert values[2] * values[3] % 8 == 0
    assert ("sample_partitioned_tile(loop=l1, n=4, partition_pos=2, innerpart_factor=8, "
            f"decision={values})") in str(sch.trace).replace("'", "")


def test_sample_partitioned_tile_split_computes_the_same():
    sch = s_tir.Schedule(fill, seed=5, debug_mask="all")
    (loop,) = sch.get_loops("A")
    factors = sch.sample_partitioned_tile(loop, 3, 1, 4)
    sch.split(loop, factors)
    verify_trace_roundtrip(sch, fill)
    a = tvm.runtime.tensor(np.zeros(96, "float32"))
    tvm.compile(sch.mod["main"], target="llvm")(a)
    np.testing.assert_array_equal(a.numpy(), np.arange(96, dtype="float32"))


def test_sample_partitioned_tile_bad_arguments():
    sch = s_tir.Schedule(fill)
    (loop,) = sch.get_loops("A")
    with pytest.raises(ValueError, match="Cannot tile a loop into 1 splits"):
        sch.sample_partitioned_tile(loop, 1, 0, 8)
    with pytest.raises(ValueError, match="partition_pos must be in"):
        sch.sample_partitioned_tile(loop, 3, 3, 8)
    with pytest.raises(ValueError, match="innerpart_factor must be a positive int"):
        sch.sample_partitioned_tile(loop, 3, 1, 0)
