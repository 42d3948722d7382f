"""``rolling_buffer``: fold an intermediate buffer along a tiled axis into a circular buffer.

After ``compute_at`` of a producer into a tiled consumer, adjacent tiles of a sliding-window
consumer (pooling, convolution) read overlapping rows of the intermediate buffer. The primitive
keeps only one tile's rows (the *rolling extent*) of the outermost such axis, indexes the axis
modulo that extent in every access, and guards the producer so a tile after the first skips
the rows the previous tile already computed (TVM's behaviour, including its quirks: the
iterator at the rolling axis position becomes ``opaque`` in every block of the scope, and the
guard reads the producer's binding at that position).

Preconditions (each a ``ScheduleError`` with the block underlined): the block is not an output
block, no other block of the scope writes its buffers (only read-after-write dependencies), the lowest common ancestor of the block and
its consumers is a loop, and one dimension of the written region (relaxed over the loops below
that ancestor) is ``v * stride`` (or ``(v * stride) // d``, ``v``) with a positive overlap.
"""

from __future__ import annotations

import math

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx.expr import GE, LT, And, FloorDiv, FloorMod, IntImm, Mul, Or, Var
from ...tirx.generic import const
from ...tirx.stmt import For, IterVar, SBlock, SBlockRealize
from ...tirx.stmt_functor import StmtExprMutator, substitute
from ..access_region import infer_sblock_regions
from .base import SBlockRV
from .lookup import consumers, enclosing_block, scope_blocks
from .state import iter_blocks, relax_region, replace_stmts

__all__ = ["RollingBufferPrimitives"]


def _match_bound(lo):
    """``(var, stride, divisor)`` of a region minimum ``v * s // d``, ``v * s`` or ``v``;
    ``(None, 0, 1)`` for a constant; None when it has another form."""
    if isinstance(lo, FloorDiv) and isinstance(lo.b, IntImm) and isinstance(lo.a, Mul):
        got = _match_bound(lo.a)
        if got is not None and got[0] is not None and got[2] == 1:
            return got[0], math.ceil(got[1] / lo.b.value), lo.b.value
        return None
    if isinstance(lo, Mul):
        for v, s in ((lo.a, lo.b), (lo.b, lo.a)):
            if isinstance(v, Var) and isinstance(s, IntImm):
                return v, int(s.value), 1
        return None
    if isinstance(lo, Var):
        return lo, 1, 1
    if isinstance(lo, IntImm):
        return None, 0, 1
    return None


class _Rewriter(StmtExprMutator):
    """Swap the buffer, index the rolling axis modulo its extent, mark the rolling iterator
    opaque, re-infer the new buffer's regions and guard the writer."""

    def __init__(self, scope, old, new, axis, extent, iter_vars, overlaps):
        self.scope = scope
        self.old = old
        self.new = new
        self.axis = axis
        self.extent = extent
        self.iter_vars = iter_vars
        self.overlaps = overlaps
        self.guard_next = False

    def _indices(self, indices):
        return [FloorMod(i, self.extent) if k == self.axis else i for k, i in enumerate(indices)]

    def visit_buffer_store_(self, op):
        op = super().visit_buffer_store_(op)
        if op.buffer is self.old:
            self.guard_next = True
            return op.replace(buffer=self.new, indices=tuple(self._indices(op.indices)))
        return op

    def visit_buffer_load_(self, op):
        op = super().visit_buffer_load_(op)
        if op.buffer is self.old:
            return op.replace(buffer=self.new, indices=tuple(self._indices(op.indices)))
        return op

    def visit_sblock_(self, op):
        new = super().visit_sblock_(op)
        if op is self.scope:
            return new.replace(alloc_buffers=tuple(self.new if b is self.old else b
                                                   for b in new.alloc_buffers))
        ivs = list(new.iter_vars)
        if self.axis < len(ivs):
            iv = ivs[self.axis]
            ivs[self.axis] = IterVar(iv.dom, iv.var, IterVar.Opaque)
        reads, writes = infer_sblock_regions(new)
        got_r = [r for r in reads if r.buffer is self.new]
        got_w = [w for w in writes if w.buffer is self.new]

        def swap(regions, got):
            return tuple(got[0] if r.buffer is self.old and got else r for r in regions)

        return new.replace(iter_vars=tuple(ivs), reads=swap(new.reads, got_r),
                           writes=swap(new.writes, got_w))

    def visit_sblock_realize_(self, op):
        new = super().visit_sblock_realize_(op)
        if not self.guard_next:
            return new
        self.guard_next = False
        ana = Analyzer()
        cond = op.predicate
        for k, (var, overlap) in enumerate(zip(self.iter_vars, self.overlaps)):
            if var is None or overlap <= 0 or k >= len(op.iter_values):
                continue
            first = ana.simplify(substitute(op.iter_values[k], {var: const(0, var.dtype)}))
            cond = ana.simplify(And(cond, Or(LT(var, const(1, var.dtype)),
                                             GE(first, const(overlap, first.dtype)))))
        return new.replace(predicate=cond)


class RollingBufferPrimitives:
    """Mixin: ``rolling_buffer``."""

    def rolling_buffer(self, block: SBlockRV | str, write_buffer_index: int) -> None:
        """Turn the ``write_buffer_index``-th buffer the block writes into a rolling
        (circular) buffer along the outermost tiled axis whose tiles overlap.

        Parameters
        ----------
        block : SBlockRV or str
            The producer of the buffer (``compute_at`` into its tiled consumer first).
        write_buffer_index : int
            Position of the buffer in the block's writes.
        """
        prim = "rolling_buffer"
        block = self._as_block(block)
        func_name, path = self._block(block, prim)
        realize = path[-1]
        blk = realize.block
        idx = self._buffer_index(blk, write_buffer_index, "writes", prim)
        if not 0 <= idx < len(blk.writes):
            raise ValueError(f"{prim}: write_buffer_index {idx} is out of range; block "
                             f"{blk.name_hint!r} writes {len(blk.writes)} buffer(s)")
        region = blk.writes[idx]
        buf = region.buffer
        body = self.mod[func_name].body
        scope = enclosing_block(path)
        allocated = {id(b) for b in scope.alloc_buffers} if scope is not None else set()
        if any(id(w.buffer) not in allocated for w in blk.writes):
            raise self._error(prim, f"Cannot operate on an output block: the block "
                              f"{blk.name_hint!r} is an output block", [blk])
        self._check_raw_only(body, path, blk, prim)
        # The lowest common ancestor of the block and its consumers must be a loop.
        paths = [path] + [p for r, p in iter_blocks(body)
                          if any(r is c for c in consumers(body, path))]
        common = 0
        while all(len(p) > common and p[common] is paths[0][common] for p in paths):
            common += 1
        # As TVM's sref tree: sequences are not nodes of it, loops and blocks are.
        lca = next(n for n in reversed(paths[0][:common])
                   if isinstance(n, (For, SBlock, SBlockRealize)))
        if not isinstance(lca, For):
            raise self._error(
                prim, "rolling_buffer injection is invalid. The block "
                f"{blk.name_hint!r} should be tiled so that the lca of the access location of "
                f"the target buffer {buf.name} is a for loop", [blk])
        loops = [n for n in path if isinstance(n, For)]
        below = loops[loops.index(lca) + 1:]
        ana = Analyzer()
        vmap = {iv.var: v for iv, v in zip(blk.iter_vars, realize.iter_values)}
        dom = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent) for lp in below}
        bounds = relax_region(region, vmap, dom, ana)
        iter_vars, overlaps = [], []
        for lo, hi in bounds:
            extent = ana.simplify(hi - lo + 1)
            got = _match_bound(ana.simplify(lo))
            if got is None or not isinstance(extent, IntImm):
                raise self._match_error(prim, blk, buf, bounds)
            var, stride, _div = got
            overlap = 0
            if var is not None:
                overlap = int(extent.value) - stride
                if overlap <= 0:
                    var = None
            iter_vars.append(var)
            overlaps.append(overlap)
        axis = None
        for lp in loops:
            hit = [k for k, v in enumerate(iter_vars) if v is lp.loop_var]
            if hit:
                axis = hit[0]
                break
        if axis is None:
            raise self._match_error(prim, blk, buf, bounds)
        lo, hi = bounds[axis]
        extent = ana.simplify(hi - lo + 1)
        shape = list(buf.shape)
        shape[axis] = extent
        new_buf = buf.replace(shape=tuple(shape))
        rewriter = _Rewriter(scope, buf, new_buf, axis, extent, iter_vars, overlaps)
        new_scope = rewriter.visit_stmt(scope)
        self._commit(func_name, replace_stmts(body, {id(scope): new_scope}))
        self._record(prim, kwargs={"block": block, "write_buffer_index": write_buffer_index})

    def _match_error(self, prim, blk, buf, bounds):
        shown = ", ".join(f"{lo}:{hi} + 1" for lo, hi in bounds)
        return self._error(
            prim, f"The target buffer {buf.name} with region [{shown}] should have at least one "
            "dimension range that matches a rolling pattern such as hh.outer * stride + "
            "hh.inner, with tiles that overlap", [blk])

    def _check_raw_only(self, body, path, blk, prim):
        """TVM: the block must have only read-after-write dependencies in its scope (here:
        no other block of the scope writes a buffer it writes)."""
        realize = path[-1]
        writes = {id(w.buffer) for w in blk.writes}
        for other in scope_blocks(body, path):
            if other is not realize and writes & {id(w.buffer) for w in other.block.writes}:
                raise self._error(
                    prim, f"The target block {blk.name_hint!r} is required to have only RAW "
                    f"dependencies: block {other.block.name_hint!r} writes the same buffer",
                    [blk, other.block])
