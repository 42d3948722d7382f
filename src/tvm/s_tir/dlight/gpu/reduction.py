"""``gpu.GeneralReduction`` / ``gpu.Reduction``: one row per CTA, reductions over threads.

The function's blocks (after inlining) must share their leading spatial loops (the *row*:
``i`` of ``sum(A[i, k])``, of softmax's max, exp-sum and divide). The row is fused and bound
to ``blockIdx.x``; the last block's remaining loops are fused and split over ``threadIdx.x``;
every earlier block is computed at the row loop, its remaining loops fused and split the same
way. A reduction loop bound to ``threadIdx.x`` is a cross-thread reduction, which
``s_tir.transform.LowerCrossThreadReduction`` turns into ``T.tvm_thread_allreduce`` and
``tirx.transform.LowerThreadAllreduce`` into warp shuffles and shared memory.
"""

from __future__ import annotations

import math

from ....ir.expr import PrimExpr
from ....tirx.expr import IntImm, Var
from ....tirx.stmt import IterVar
from ....tirx.stmt_functor import post_order_visit
from ...schedule import Schedule
from ...transform.lower_cross_thread_reduction import match_reduction_update
from ..analysis import normalize_prim_func
from ..base import max_threads_per_block, try_inline
from .base import GPUScheduleRule

__all__ = ["GeneralReduction", "Reduction"]

DEFAULT_REDUCTION_THREADS = 256


def _const(extent):
    return extent.value if isinstance(extent, IntImm) else extent


def _same_extent(a, b) -> bool:
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return isinstance(a, PrimExpr) and isinstance(b, PrimExpr) and str(a) == str(b)


def reduction_threads(extent, max_threads) -> int:
    """Threads for a reduction of ``extent`` terms: a power of two in ``[32, 256]``."""
    limit = min(DEFAULT_REDUCTION_THREADS, max_threads)
    if not isinstance(extent, int):
        return limit
    return max(32, min(limit, 1 << max(0, math.ceil(math.log2(max(extent, 1))))))


def _var_ids(expr):
    out = set()

    def visit(node):
        if isinstance(node, Var):
            out.add(id(node))

    post_order_visit(expr, visit)
    return out


def _row_reads(block) -> bool:
    """Whether no index of a read mixes spatial and reduction iterators (a row reduction;
    a convolution's ``x[h + ry]`` window is not one)."""
    spatial = {id(iv.var) for iv in block.iter_vars if iv.iter_type != IterVar.CommReduce}
    reduce = {id(iv.var) for iv in block.iter_vars if iv.iter_type == IterVar.CommReduce}
    for region in block.reads:
        for rng in region.region:
            used = _var_ids(rng.min)
            if used & spatial and used & reduce:
                return False
    return True


def _param_buffers(func):
    return [func.buffer_map[p] for p in func.param_vars if p in func.buffer_map]


class GeneralReduction(GPUScheduleRule):
    """Rows over ``blockIdx.x``, every stage of a row spread over ``threadIdx.x``.

    Applies when, after inlining, there is at least one reduction block and every block's
    loops are ``n`` leading spatial loops with the same extents (the row; ``n = 0``, a full
    reduction, runs on one CTA) followed
    by reduction loops only (reduction blocks) or spatial loops only (the others), and no
    read of a reduction block mixes row and reduction iterators in one index (a
    convolution's window ``x[h + ry]``: those go to :class:`Fallback`).
    """

    max_reductions = None

    def apply(self, func, target, tunable):
        """Put each row of the reduction on one CTA and spread every stage over ``threadIdx.x``.

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
            The schedule of a copy of ``func``; ``None`` when the blocks do not have the row
        structure described in the class docstring.
        """
        sch = Schedule(func)
        infos = normalize_prim_func(sch)
        if not infos:
            return None
        infos = try_inline(sch, infos)
        reductions = [info for info in infos if info.is_reduction()]
        if not reductions:
            return None
        if self.max_reductions is not None and len(reductions) > self.max_reductions:
            return None
        first = reductions[0]
        kinds = first.dom_kind()
        num_row = len(kinds) - len(kinds.lstrip("S"))
        if "S" in kinds[num_row:] or "O" in kinds:
            return None
        row_dom = [_const(e) for e in first.dom()[:num_row]]
        for info in infos:
            kinds = info.dom_kind()
            dom = [_const(e) for e in info.dom()]
            if len(dom) < num_row or kinds[:num_row] != "S" * num_row:
                return None
            if not all(_same_extent(a, b) for a, b in zip(dom[:num_row], row_dom)):
                return None
            rest = kinds[num_row:]
            if rest and set(rest) != ({"R"} if info.is_reduction() else {"S"}):
                return None
        if not all(_row_reads(sch.get(info.block_rv)) for info in reductions):
            return None
        # Only the reducers LowerCrossThreadReduction can lower (one value: + * max min).
        if not all(match_reduction_update(sch.get(info.block_rv)) for info in reductions):
            return None
        red_extent = 1
        for extent in first.dom()[num_row:]:
            extent = _const(extent)
            red_extent = red_extent * extent if isinstance(extent, int) and isinstance(
                red_extent, int) else None
        threads = reduction_threads(red_extent, max_threads_per_block(target))

        def spread(block, loops):
            # compute_at leaves unit loops for the row; fusing them in would blur the region.
            loops = [lp for lp in loops if _const(sch.get(lp).extent) != 1]
            if not loops:
                return
            fused = sch.fuse(*loops) if len(loops) > 1 else loops[0]
            _, tx = sch.split(fused, [None, threads])
            sch.bind(tx, "threadIdx.x")

        last = infos[-1]
        loops = sch.get_loops(last.block_rv)
        if num_row == 0:
            # A full reduction (sum of everything): one row, one CTA.
            row = sch.add_unit_loop(loops[0] if loops else last.block_rv)
        else:
            row = sch.fuse(*loops[:num_row]) if num_row > 1 else loops[0]
        sch.bind(row, "blockIdx.x")
        spread(last.block_rv, sch.get_loops(last.block_rv)[1:])
        outputs = {id(b) for b in _param_buffers(func)}
        for info in reversed(infos[:-1]):
            sch.compute_at(info.block_rv, row, preserve_unit_loops=True)
            spread(info.block_rv, sch.get_loops(info.block_rv)[1:])
            # An intermediate computed per row lives in the CTA's shared memory.
            if all(id(w.buffer) not in outputs for w in sch.get(info.block_rv).writes):
                sch.set_scope(info.block_rv, 0, "shared")
        return sch


class Reduction(GeneralReduction):
    """:class:`GeneralReduction` for functions with exactly one reduction block (a sum,
    a max, a mean's sum), optionally followed by spatial blocks over the same rows."""

    max_reductions = 1
