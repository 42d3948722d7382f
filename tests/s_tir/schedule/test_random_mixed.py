"""Random mixes of primitives: each either applies (and the function still computes the same
and replays) or refuses with ScheduleError; nothing else may happen."""

import random

import pytest

from tvm import s_tir

PRIMS = ["split", "fuse", "reorder", "compute_at", "reverse_compute_at", "compute_inline",
         "reverse_compute_inline", "cache_read", "cache_write", "decompose_reduction",
         "rfactor", "parallel", "unroll", "blockize", "merge", "vectorize", "bind",
         "set_scope", "reorder_block_iter_var", "add_unit_loop", "storage_align"]


def _blocks(sch):
    root = sch.get_sblock("root")
    return [b for b in sch.get_child_blocks(root)]


def _step(sch, rng):
    blocks = _blocks(sch)
    if not blocks:
        return
    block = rng.choice(blocks)
    loops = sch.get_loops(block)
    prim = rng.choice(PRIMS)
    if prim == "split" and loops:
        loop = rng.choice(loops)
        extent = int(sch.get(loop).extent)
        sch.split(loop, [None, rng.randint(1, max(1, extent))])
    elif prim == "fuse" and len(loops) >= 2:
        at = rng.randrange(len(loops) - 1)
        sch.fuse(loops[at], loops[at + 1])
    elif prim == "reorder" and len(loops) >= 2:
        sch.reorder(*rng.sample(loops, 2))
    elif prim in ("compute_at", "reverse_compute_at"):
        other = rng.choice(blocks)
        other_loops = sch.get_loops(other)
        if other_loops:
            getattr(sch, prim)(block, rng.choice(other_loops),
                               preserve_unit_loops=rng.random() < 0.5)
    elif prim in ("compute_inline", "reverse_compute_inline"):
        getattr(sch, prim)(block)
    elif prim in ("cache_read", "cache_write"):
        regions = sch.get(block).reads if prim == "cache_read" else sch.get(block).writes
        if regions:
            getattr(sch, prim)(block, rng.randrange(len(regions)),
                               rng.choice(["shared", "local"]))
    elif prim == "decompose_reduction" and loops:
        sch.decompose_reduction(block, rng.choice(loops))
    elif prim == "rfactor" and loops:
        sch.rfactor(rng.choice(loops), rng.randint(0, 1))
    elif prim == "parallel" and loops:
        sch.parallel(rng.choice(loops))
    elif prim == "unroll" and loops:
        sch.unroll(rng.choice(loops))
    elif prim == "blockize" and loops:
        sch.blockize(rng.choice(loops))
    elif prim == "vectorize" and loops:
        sch.vectorize(rng.choice(loops))
    elif prim == "bind" and loops:
        sch.bind(rng.choice(loops), rng.choice(["blockIdx.x", "threadIdx.x", "vthread.x"]))
    elif prim == "set_scope" and sch.get(block).writes:
        sch.set_scope(block, 0, rng.choice(["shared", "local"]))
    elif prim == "reorder_block_iter_var":
        n = len(sch.get(block).iter_vars)
        sch.reorder_block_iter_var(block, rng.sample(range(n), n))
    elif prim == "add_unit_loop":
        sch.add_unit_loop(rng.choice([block] + loops))
    elif prim == "storage_align" and sch.get(block).writes:
        sch.storage_align(block, 0, axis=0, factor=4, offset=1)
    elif prim == "merge":
        other = rng.choice(blocks)
        a, b = sch.get_loops(block), sch.get_loops(other)
        if a and b and other is not block:
            sch.merge(a[0], b[0])


@pytest.mark.parametrize("seed", range(25))
def test_random_mixed_schedules(wl, seed):
    rng = random.Random(seed)
    func = wl.matmul(6, 5, 4, relu=True) if seed % 2 else wl.chain(6, 5)
    sch = s_tir.Schedule(func, error_render_level="none")
    for _ in range(rng.randint(2, 6)):
        try:
            _step(sch, rng)
        except s_tir.ScheduleError:
            pass
    if seed % 2:
        inputs, out = [wl.rand(6, 4, seed=seed), wl.rand(5, 4, seed=seed + 1)], (6, 5)
    else:
        inputs, out = [wl.rand(6, 5, seed=seed)], (6,)
    wl.assert_same_result(func, sch, inputs, out)
    wl.assert_replays(sch, func)
