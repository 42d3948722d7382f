"""Place and shrink the on-chip buffers of GPU schedules (``shared``, ``local``, ``warp``).

A schedule's ``cache_read(..., "shared")`` / ``cache_write(..., "local")`` buffers are
allocated in the root block with the full shape of the buffer they cache. Before the blocks
are lowered, two passes (TVM's names) make them what a GPU kernel needs:

1. :func:`PlanAndUpdateBufferAllocationLocation` (before ``ConvertBlocksToOpaque``): each such
   buffer's allocation moves from its block to the lowest common ancestor (a loop or a block)
   of the statements that access it: a ``local`` accumulator into the ``threadIdx`` loops
   (one per thread), a ``shared`` tile into the ``blockIdx`` loops or the ``k`` loop whose
   iterations fetch it. At a loop, the buffer is allocated by a new opaque block that wraps
   the loop's body.
2. :func:`CompactBufferAllocation` (after ``ConvertBlocksToOpaque``): each such buffer shrinks
   to the region one execution of its allocation site touches, and every access is shifted
   by the region's start. The region is the union of the accessed indices with the loops
   between the allocation and the access relaxed to their ranges, plus, for ``shared``
   buffers, the enclosing ``threadIdx`` loops (the threads of a block share it). A dimension
   whose region extent is not a constant, or not smaller, keeps its size (and start 0).

``global`` buffers are left where they are (they may be shared by several kernels).
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...ir.transform import PassInfo
from ...tirx.expr import IntImm, Sub
from ...tirx.function import PrimFunc
from ...tirx.stmt import (
    BufferLoad,
    BufferRegion,
    For,
    ForKind,
    SBlock,
    SBlockRealize,
)
from ...tirx.stmt_functor import StmtExprMutator, StmtExprVisitor, StmtMutator
from ...tirx.transform.common import PrimFuncPass

__all__ = ["CompactBufferAllocation", "PlanAndUpdateBufferAllocationLocation"]

ONCHIP_SCOPES = ("shared", "shared.dyn", "local", "warp")


def _onchip(buf) -> bool:
    return buf.scope() in ONCHIP_SCOPES


# --- 1. placement -------------------------------------------------------------------------------


class _AccessPaths(StmtExprVisitor):
    """For each on-chip buffer allocated by a block: the statement paths of its accesses."""

    def __init__(self):
        super().__init__()
        self.path = []
        self.owner = {}  # id(buf) -> owner SBlock
        self.buffers = {}  # id(buf) -> buf
        self.lca = {}  # id(buf) -> list of nodes (common prefix of access paths)

    def visit_stmt(self, stmt):
        self.path.append(stmt)
        try:
            super().visit_stmt(stmt)
        finally:
            self.path.pop()

    def visit_sblock_(self, op):
        for buf in op.alloc_buffers:
            if _onchip(buf):
                self.owner[id(buf)] = op
                self.buffers[id(buf)] = buf
        super().visit_sblock_(op)

    def _touch(self, buf):
        key = id(buf)
        if key not in self.owner:
            return
        old = self.lca.get(key)
        if old is None:
            self.lca[key] = list(self.path)
            return
        n = 0
        while n < len(old) and n < len(self.path) and old[n] is self.path[n]:
            n += 1
        del old[n:]

    def visit_buffer_load_(self, op):
        self._touch(op.buffer)
        super().visit_buffer_load_(op)

    def visit_buffer_store_(self, op):
        self._touch(op.buffer)
        super().visit_buffer_store_(op)


class _Mover(StmtMutator):
    def __init__(self, remove, add_at_loop, add_at_block):
        super().__init__()
        self.remove = remove  # id(owner block) -> set of buffer ids to drop
        self.add_at_loop = add_at_loop  # id(For) -> [buf]
        self.add_at_block = add_at_block  # id(SBlock) -> [buf]

    def visit_for_(self, op):
        new = super().visit_for_(op)
        bufs = self.add_at_loop.get(id(op))
        if bufs:
            block = SBlock((), [], [], "", new.body, alloc_buffers=bufs)
            new = new.replace(body=SBlockRealize((), True, block))
        return new

    def visit_sblock_(self, op):
        new = super().visit_sblock_(op)
        drop = self.remove.get(id(op), set())
        extra = self.add_at_block.get(id(op), [])
        if drop or extra:
            kept = [b for b in new.alloc_buffers if id(b) not in drop]
            new = new.replace(alloc_buffers=tuple(kept + extra))
        return new


def _plan(func: PrimFunc, mod, ctx):
    finder = _AccessPaths()
    finder.visit_stmt(func.body)
    remove, at_loop, at_block = {}, {}, {}
    for key, path in finder.lca.items():
        owner = finder.owner[key]
        # The deepest loop or block of the common path that is below the owner.
        target = None
        below_owner = False
        for node in path:
            if node is owner:
                below_owner = True
                continue
            if below_owner and isinstance(node, (For, SBlock)):
                target = node
        if target is None:
            continue
        # A loop body that *is* the access statement cannot be wrapped: use the loop itself.
        remove.setdefault(id(owner), set()).add(key)
        buf = finder.buffers[key]
        if isinstance(target, For):
            at_loop.setdefault(id(target), []).append(buf)
        else:
            at_block.setdefault(id(target), []).append(buf)
    if not remove:
        return func
    body = _Mover(remove, at_loop, at_block)(func.body)
    return func.with_body(body)


def PlanAndUpdateBufferAllocationLocation():
    """Move each on-chip buffer's allocation to the LCA of its accesses (module docstring)."""
    return PrimFuncPass(_plan, PassInfo(0, "s_tir.PlanAndUpdateBufferAllocationLocation"))


# --- 2. compaction ------------------------------------------------------------------------------


def _thread_tag(loop):
    if loop.kind != ForKind.THREAD_BINDING or loop.thread_binding is None:
        return ""
    return loop.thread_binding.thread_tag


class _Regions(StmtExprVisitor):
    """For each on-chip buffer allocated by a block: its accessed index intervals."""

    def __init__(self):
        super().__init__()
        self.loops = []
        self.alloc_depth = {}  # id(buf) -> (len(loops) at the allocation, buf)
        self.accesses = {}  # id(buf) -> [(indices, loops tuple)]

    def visit_for_(self, op):
        self.loops.append(op)
        try:
            super().visit_for_(op)
        finally:
            self.loops.pop()

    def visit_sblock_(self, op):
        for buf in op.alloc_buffers:
            if _onchip(buf) and not buf.strides:
                self.alloc_depth[id(buf)] = (len(self.loops), buf)
        super().visit_sblock_(op)

    def _touch(self, buf, indices):
        if id(buf) in self.alloc_depth:
            self.accesses.setdefault(id(buf), []).append((indices, tuple(self.loops)))

    def visit_buffer_load_(self, op):
        self._touch(op.buffer, op.indices)
        super().visit_buffer_load_(op)

    def visit_buffer_store_(self, op):
        self._touch(op.buffer, op.indices)
        super().visit_buffer_store_(op)


def _compact_region(buf, depth, accesses, ana):
    """``[(start, extent)]`` per dimension, or ``None`` when nothing shrinks."""
    shared = buf.scope().startswith("shared")
    lows, highs = None, None
    for indices, loops in accesses:
        relax = list(loops[depth:])
        if shared:
            relax += [lp for lp in loops[:depth] if _thread_tag(lp).startswith("threadIdx")]
        dom = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent) for lp in relax}
        lo_i, hi_i = [], []
        for index in indices:
            interval = ana.int_set(index, dom)
            if interval.min_value is None or interval.max_value is None:
                return None
            lo_i.append(interval.min_value)
            hi_i.append(interval.max_value)
        if lows is None:
            lows, highs = lo_i, hi_i
            continue
        for d in range(len(lows)):
            lows[d] = _pick(lows[d], lo_i[d], ana, lower=True)
            highs[d] = _pick(highs[d], hi_i[d], ana, lower=False)
    if lows is None:
        return None
    region, shrinks = [], False
    for d, dim in enumerate(buf.shape):
        lo, hi = lows[d], highs[d]
        extent = None if lo is None or hi is None else ana.simplify(hi - lo + 1)
        smaller = isinstance(extent, IntImm) and (
            not isinstance(dim, IntImm) or extent.value < dim.value)
        if smaller:
            region.append((lo, extent))
            shrinks = True
        else:
            region.append((None, dim))
    return region if shrinks else None


def _pick(a, b, ana, lower):
    """The smaller (``lower``) or larger of two bounds when their difference is constant."""
    if a is None or b is None:
        return None
    diff = ana.simplify(a - b)
    if not isinstance(diff, IntImm):
        return None
    if lower:
        return b if diff.value > 0 else a
    return a if diff.value > 0 else b


class _Rewriter(StmtExprMutator):
    def __init__(self, plans):
        super().__init__()
        self.plans = plans  # id(old buf) -> (new buf, starts)
        self.ana = Analyzer()

    def _shift(self, buf, indices):
        new, starts = self.plans[id(buf)]
        out = [idx if lo is None else self.ana.simplify(Sub(idx, lo))
               for idx, lo in zip(indices, starts)]
        return new, out

    def visit_buffer_def(self, buffer):
        plan = self.plans.get(id(buffer))
        return plan[0] if plan else buffer

    def visit_buffer_load_(self, op):
        op = super().visit_buffer_load_(op)
        if id(op.buffer) not in self.plans:
            return op
        new, indices = self._shift(op.buffer, op.indices)
        return BufferLoad(new, indices, op.predicate)

    def visit_buffer_store_(self, op):
        op = super().visit_buffer_store_(op)
        if id(op.buffer) not in self.plans:
            return op
        new, indices = self._shift(op.buffer, op.indices)
        return op.replace(buffer=new, indices=tuple(indices))

    def visit_buffer_region(self, region):
        region = super().visit_buffer_region(region)
        plan = self.plans.get(id(region.buffer))
        if plan is None:
            return region
        new, starts = plan
        ranges = []
        for r, lo, ext in zip(region.region, starts, new.shape):
            if lo is None:
                ranges.append(r)
            else:
                ranges.append(Range.from_min_extent(self.ana.simplify(Sub(r.min, lo)), r.extent))
        return BufferRegion(new, ranges)


def _compact(func: PrimFunc, mod, ctx):
    finder = _Regions()
    finder.visit_stmt(func.body)
    ana = Analyzer()
    plans = {}
    for key, (depth, buf) in finder.alloc_depth.items():
        accesses = finder.accesses.get(key)
        if not accesses:
            continue
        region = _compact_region(buf, depth, accesses, ana)
        if region is None:
            continue
        new = buf.replace(shape=tuple(ext for _, ext in region))
        plans[key] = (new, [lo for lo, _ in region])
    if not plans:
        return func
    return func.with_body(_Rewriter(plans)(func.body))


def CompactBufferAllocation():
    """Shrink each on-chip buffer to the region its allocation site touches (see the module
    docstring)."""
    return PrimFuncPass(_compact, PassInfo(0, "s_tir.CompactBufferAllocation"))

