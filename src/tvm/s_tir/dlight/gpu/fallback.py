"""``gpu.Fallback``: bind every spatial loop nest to ``blockIdx.x`` x ``threadIdx.x``."""

from __future__ import annotations

from ...schedule import Schedule
from ..analysis import normalize_prim_func
from ..base import max_threads_per_block, try_inline
from .base import GPUScheduleRule

__all__ = ["Fallback"]


def _threads_for(extent, max_threads):
    """Threads per block for a fused spatial extent: all of it when it fits."""
    if isinstance(extent, int) and extent <= max_threads:
        return max(extent, 1)
    return max_threads


class Fallback(GPUScheduleRule):
    """Inline what can be inlined, then fuse each block's spatial loops and split them over
    ``blockIdx.x`` and ``threadIdx.x`` (at most ``max_num_threads`` threads per block).

    Reduction loops stay serial inside each thread (after the spatial ones); the reduction's
    init is decomposed in front of them. Blocks with a loop already bound to a thread are
    left as they are.
    """

    def apply(self, func, target, tunable):
        """Inline, then fuse each block's spatial loops and bind them to ``blockIdx.x`` and
        ``threadIdx.x``.

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
            The schedule of a copy of ``func``; ``None`` when the function cannot be normalized
            into blocks.
        """
        sch = Schedule(func)
        infos = normalize_prim_func(sch)
        if infos is None:
            return None
        infos = try_inline(sch, infos)
        max_threads = max_threads_per_block(target)
        decompose = []
        for info in infos:
            block = info.block_rv
            loops = sch.get_loops(block)
            if any(sch.get(lp).thread_binding is not None for lp in loops):
                continue
            s_loops = [it.loop_rv for it in info.iters if it.kind == "S"]
            r_loops = [it.loop_rv for it in info.iters if it.kind == "R"]
            o_loops = [it.loop_rv for it in info.iters if it.kind == "O"]
            if not s_loops:
                s_loops = [sch.add_unit_loop(block)]
            if len(info.iters) > 1:
                sch.reorder(*s_loops, *r_loops, *o_loops)
            fused = sch.fuse(*s_loops) if len(s_loops) > 1 else s_loops[0]
            extent = sch.get(fused).extent
            extent = extent.value if hasattr(extent, "value") else extent
            bx, tx = sch.split(fused, [None, _threads_for(extent, max_threads)])
            sch.bind(bx, "blockIdx.x")
            sch.bind(tx, "threadIdx.x")
            if r_loops:
                decompose.append((block, r_loops[0]))
        for block, r_loop in decompose:
            sch.decompose_reduction(block, r_loop)
        return sch
