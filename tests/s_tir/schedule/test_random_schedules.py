"""Random sequences of loop primitives keep the computed result and replay exactly."""

import random

import pytest

from tvm import s_tir


def _random_schedule(sch, rng):
    c = sch.get_sblock("C")
    for _ in range(rng.randint(1, 4)):
        loops = sch.get_loops(c)
        choice = rng.choice(["split", "split", "fuse", "reorder", "kind"])
        if choice == "split":
            loop = rng.choice(loops)
            extent = int(sch.get(loop).extent)
            factor = rng.randint(1, max(1, extent + 1))
            sch.split(loop, rng.choice([[None, factor], [factor, None]]),
                      preserve_unit_iters=rng.random() < 0.5)
        elif choice == "fuse" and len(loops) >= 2:
            at = rng.randrange(len(loops) - 1)
            sch.fuse(loops[at], loops[at + 1])
        elif choice == "reorder" and len(loops) >= 2:
            picked = rng.sample(loops, rng.randint(2, len(loops)))
            sch.reorder(*picked)
        elif choice == "kind":
            # Spatial-only loops (the outermost ones here) may run in parallel.
            sch.unroll(rng.choice(loops))


@pytest.mark.parametrize("seed", range(12))
def test_random_loop_schedules(wl, seed):
    rng = random.Random(seed)
    n, m, k = rng.choice([(5, 3, 7), (4, 6, 3), (7, 2, 5)])
    func = wl.matmul(n, m, k)
    sch = s_tir.Schedule(func)
    _random_schedule(sch, rng)
    inputs = [wl.rand(n, k, seed=seed), wl.rand(m, k, seed=seed + 100)]
    wl.assert_same_result(func, sch, inputs, (n, m))
    wl.assert_replays(sch, func)


@pytest.mark.parametrize("seed", range(6))
def test_random_tiling_then_compute_at(wl, seed):
    rng = random.Random(seed)
    func = wl.matmul(7, 5, 3, relu=True)
    sch = s_tir.Schedule(func)
    i, j = sch.get_loops(sch.get_sblock("D"))
    io, ii = sch.split(i, [None, rng.randint(1, 7)])
    jo, ji = sch.split(j, [None, rng.randint(1, 5)])
    sch.reorder(io, jo, ii, ji)
    target = rng.choice([io, jo])
    sch.compute_at(sch.get_sblock("C"), target, preserve_unit_loops=rng.random() < 0.5)
    if rng.random() < 0.5:
        sch.decompose_reduction(sch.get_sblock("C"), sch.get_loops(sch.get_sblock("C"))[-1])
    inputs = [wl.rand(7, 3, seed=seed), wl.rand(5, 3, seed=seed + 1)]
    wl.assert_same_result(func, sch, inputs, (7, 5))
    wl.assert_replays(sch, func)
