"""``gpu.Matmul``: shared-memory tiles of both operands, a register tile per thread.

For a reduction block ``C[b.., i, j] += X(.., i, k) * Y(.., k, j)`` (any operand layout; the
loops are ``S...S S S R``)::

    for b in blockIdx.z:                 # the batch loops, fused (if any)
     for i0 in blockIdx.y:  for j0 in blockIdx.x:
      for i1 in threadIdx.y:  for j1 in threadIdx.x:
        C_local[tm, tn] = 0                                   # decomposed init
        for k0 in range(ceil(K / bk)):
          X_shared <- X tile (block_m x bk), all threads cooperating   (threadIdx.y/x again)
          Y_shared <- Y tile (bk x block_n)
          for k1, i2, j2 in T.grid(bk, tm, tn):
            C_local[i2, j2] += X_shared[...] * Y_shared[...]
        C[...] = C_local[...]    # with the epilogue (bias, relu...) inlined when possible

``block_m = threads_y * tm``, ``block_n = threads_x * tn``; the thread counts shrink (powers of
two) for small matrices. Shapes that are not multiples of the tiles get predicates from
``split``/``compute_at``. The lowering (``s_tir.transform.gpu_lowering_passes``) moves the
shared and local buffers into the kernel, shrinks them to the tiles and adds the barriers.
"""

from __future__ import annotations

import math

from ....tirx.expr import Add, Cast, IntImm, Mul
from ...schedule import Schedule, ScheduleError
from ..analysis import normalize_prim_func
from ..base import try_inline
from .base import GPUScheduleRule

__all__ = ["Matmul"]


def _pow2_at_most(n, limit):
    if not isinstance(n, int):
        return limit
    return max(1, min(limit, 1 << max(0, math.ceil(math.log2(max(n, 1))))))


def _is_multiply_accumulate(block) -> bool:
    store = block.body
    value = getattr(store, "value", None)
    if not isinstance(value, Add):
        return False
    other = value.b if _reads_self(value.a, store) else value.a if _reads_self(
        value.b, store) else None
    while isinstance(other, Cast):
        other = other.value
    return isinstance(other, Mul)


def _reads_self(expr, store) -> bool:
    return getattr(expr, "buffer", None) is store.buffer


class Matmul(GPUScheduleRule):
    """Tiled matmul (see the module docstring).

    Parameters
    ----------
    threads : tuple of int
        ``(threads_y, threads_x)``, at most; 16 x 16 = 256 threads by default.
    thread_tile : tuple of int
        ``(tm, tn)``: the outputs each thread accumulates in registers (4 x 4).
    k_tile : int
        ``bk``: the reduction length of one shared-memory tile (16).
    """

    def __init__(self, threads=(16, 16), thread_tile=(4, 4), k_tile=16):
        self.threads = tuple(threads)
        self.thread_tile = tuple(thread_tile)
        self.k_tile = k_tile

    def apply(self, func, target, tunable):
        """Tile the function's one multiply-accumulate reduction over a 2-D thread grid.

        Parameters
        ----------
        func : PrimFunc
            The function to schedule (not modified).
        target : Target
            The GPU target to schedule for.
        tunable : bool
            Unused: the rule has no tunable choices.

        Returns
        -------
        Schedule or None
            The schedule of a copy of ``func``; ``None`` when the function is not a (batched) matmul
        with optional spatial epilogues.
        """
        sch = Schedule(func)
        infos = normalize_prim_func(sch)
        if not infos:
            return None
        infos = try_inline(sch, infos)
        reductions = [info for info in infos if info.is_reduction()]
        if len(reductions) != 1:
            return None
        main = reductions[0]
        kinds = main.dom_kind()
        n_spatial = len(kinds) - 1
        if n_spatial < 2 or kinds != "S" * n_spatial + "R":
            return None
        block = sch.get(main.block_rv)
        if not _is_multiply_accumulate(block):
            return None
        epilogues = [info for info in infos if info is not main]
        if any(info.is_reduction() for info in epilogues):
            return None
        out_buffer = block.writes[0].buffer
        operands = [r.buffer for r in block.reads if r.buffer is not out_buffer]
        if len(operands) != 2:
            return None

        tm, tn = self.thread_tile
        dims = [d.value if isinstance(d, IntImm) else d for d in main.dom()]
        m, n = dims[n_spatial - 2], dims[n_spatial - 1]
        ty = _pow2_at_most(-(-m // tm) if isinstance(m, int) else None, self.threads[0])
        tx = _pow2_at_most(-(-n // tn) if isinstance(n, int) else None, self.threads[1])

        loops = sch.get_loops(main.block_rv)
        batch, i, j, k = loops[:n_spatial - 2], loops[-3], loops[-2], loops[-1]
        i0, i1, i2 = sch.split(i, [None, ty, tm])
        j0, j1, j2 = sch.split(j, [None, tx, tn])
        k0, k1 = sch.split(k, [None, self.k_tile])
        sch.reorder(*batch, i0, j0, i1, j1, k0, k1, i2, j2)
        if batch:
            bz = sch.fuse(*batch) if len(batch) > 1 else batch[0]
            sch.bind(bz, "blockIdx.z")
        sch.bind(i0, "blockIdx.y")
        sch.bind(j0, "blockIdx.x")
        sch.bind(i1, "threadIdx.y")
        sch.bind(j1, "threadIdx.x")

        local = sch.cache_write(main.block_rv, 0, "local")
        sch.reverse_compute_at(local, j1, preserve_unit_loops=True)
        for info in epilogues:
            try:
                sch.reverse_compute_inline(info.block_rv)
            except (ScheduleError, ValueError):
                return None

        k0_var = sch.get(k0).loop_var
        for buf in operands:
            index = next(x for x, r in enumerate(sch.get(main.block_rv).reads)
                         if r.buffer is buf)
            shared = sch.cache_read(main.block_rv, index, "shared")
            sch.compute_at(shared, k0, preserve_unit_loops=True)
            shared_loops = sch.get_loops(shared)
            pos = next(x for x, lp in enumerate(shared_loops) if sch.get(lp).loop_var is k0_var)
            rest = shared_loops[pos + 1:]
            fused = sch.fuse(*rest) if len(rest) > 1 else rest[0]
            _, fy, fx = sch.split(fused, [None, ty, tx])
            sch.bind(fy, "threadIdx.y")
            sch.bind(fx, "threadIdx.x")
        sch.decompose_reduction(main.block_rv, k0)
        return sch
