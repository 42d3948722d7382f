"""``pad_einsum``: pad the iteration domain of an Einsum block to multiples of given factors.

TVM 0.27's ``PadEinsum``: the block's buffers must each be read or written once, at plain
iter vars (or constants). Each iter var's extent is rounded up to a multiple of its padding;
every buffer indexed by a padded iter var gets a copy ``<buffer>_pad`` whose dimensions are
the padded extents of those iter vars (the buffer's own extent for other iter vars, 1 for a
constant index). Inputs are copied into their padded copies (zeros outside the original
extent, through ``T.if_then_else``) by blocks before the block's top-level statement, outputs
copied back from theirs after it; the block and the loops bound directly to padded iter vars
run over the padded extents.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx import expr as E
from ...tirx.generic import const
from ...tirx.op import if_then_else
from ...tirx.stmt import (
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    IterVar,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ...tirx.stmt_functor import StmtExprMutator
from .base import SBlockRV
from .lookup import enclosing_block
from .state import new_buffer, replace_stmts

__all__ = ["PadEinsumPrimitives"]


def _trivial_access(region):
    """The iter vars of a point access at plain variables or constants, else ``None``."""
    out = []
    for r in region.region:
        if not (isinstance(r.extent, E.IntImm) and r.extent.value == 1):
            return None
        if isinstance(r.min, E.IntImm):
            continue
        if not isinstance(r.min, E.Var):
            return None
        out.append(r.min)
    return out


class _PadReplacer(StmtExprMutator):
    """Padded iter-var domains and loop extents; buffers swapped for their padded copies."""

    def __init__(self, iter_extents, loop_extents, buffers):
        self.iter_extents, self.loop_extents, self.buffers = iter_extents, loop_extents, buffers

    def visit_buffer_use(self, buffer):
        """The padded copy of a padded buffer."""
        return self.buffers.get(buffer, buffer)

    def visit_sblock_(self, op):
        """A block whose padded iter vars range over the padded extents."""
        new = super().visit_sblock_(op)
        ivs = [iv.replace(dom=Range.from_min_extent(iv.dom.min, self.iter_extents[iv.var]))
               if iv.var in self.iter_extents else iv for iv in new.iter_vars]
        return new.replace(iter_vars=tuple(ivs))

    def visit_for_(self, op):
        """A loop bound to a padded iter var runs over its padded extent."""
        new = super().visit_for_(op)
        if new.loop_var in self.loop_extents:
            new = new.replace(extent=self.loop_extents[new.loop_var])
        return new


def _copy_nest(buf, padded, name, is_read, ana):
    """TVM's copy block between a buffer and its padded copy, over ``i*`` loops."""
    shape = padded.shape if is_read else buf.shape
    loop_vars, ivs, idx = [], [], []
    for i, dim in enumerate(shape):
        loop_vars.append((E.Var(f"i{i}", dim.dtype), dim))
        v = E.Var(f"v{i}", dim.dtype)
        ivs.append(IterVar(Range.from_min_extent(const(0, dim.dtype), dim), v, IterVar.DataPar))
        idx.append(v)
    point = [Range.from_min_extent(v, const(1, v.dtype)) for v in idx]
    if is_read:
        pred = None
        for v, old, new in zip(idx, buf.shape, padded.shape):
            if not ana.can_prove_equal(old, new):
                cond = v < old
                pred = cond if pred is None else E.And(pred, cond)
        value = E.BufferLoad(buf, idx)
        if pred is not None:
            value = if_then_else(pred, value, const(0, buf.dtype))
        body = BufferStore(padded, value, idx)
        reads, writes = [BufferRegion(buf, point)], [BufferRegion(padded, point)]
    else:
        body = BufferStore(buf, E.BufferLoad(padded, idx), idx)
        reads, writes = [BufferRegion(padded, point)], [BufferRegion(buf, point)]
    stmt = SBlockRealize([v for v, _ in loop_vars], const(True, "bool"),
                         SBlock(ivs, reads, writes, name, body))
    for v, ext in reversed(loop_vars):
        stmt = For(v, const(0, v.dtype), ext, ForKind.SERIAL, stmt)
    return stmt


class PadEinsumPrimitives:
    """Mixin: ``pad_einsum``."""

    def pad_einsum(self, block: SBlockRV | str, padding) -> None:
        """Pad the block's iteration domain (and its buffers) to multiples of ``padding``.

        As TVM 0.27 (see the module docstring).

        Parameters
        ----------
        block : SBlockRV or str
            An Einsum block: each buffer accessed once, at plain iter vars.
        padding : list of int
            One positive padding factor per block iter var.

        Raises
        ------
        ScheduleError
            If ``padding`` is not one positive int per iter var, or the block is not an
            Einsum (a buffer accessed twice, or at an index other than an iter var or a
            constant).
        """
        prim = "pad_einsum"
        block = self._as_block(block)
        func_name, path = self._block(block, prim)
        realize = path[-1]
        blk = realize.block
        padding = list(padding)
        if len(padding) != len(blk.iter_vars) or any(
                not isinstance(p, int) or p <= 0 for p in padding):
            raise self._error(
                prim, f"The padding for the block {blk.name_hint!r} are invalid. It should be "
                f"a list of {len(blk.iter_vars)} positive integers. Got {padding}", [blk])
        seen = set()
        for region in (*blk.reads, *blk.writes):
            if id(region.buffer) in seen or _trivial_access(region) is None:
                raise self._error(
                    prim, f"The block {blk.name_hint!r} not a computation of Einsum pattern "
                    f"(buffer {region.buffer.name!r} is accessed more than once or not at "
                    "plain iter vars).", [blk])
            seen.add(id(region.buffer))
        ana = Analyzer()
        iter_extents, loop_extents = {}, {}
        for iv, value, pad in zip(blk.iter_vars, realize.iter_values, padding):
            dom = iv.dom.extent
            padded = ana.simplify((dom + pad - 1) // pad * pad)
            if not ana.can_prove_equal(padded, dom):
                iter_extents[iv.var] = padded
                if isinstance(value, E.Var):
                    iter_extents[value] = padded
                    loop_extents[value] = padded

        def needs_padding(region):
            return any(isinstance(r.min, E.Var) and r.min in iter_extents for r in region.region)

        buffers, reads, writes, allocs, names = {}, [], [], [], []
        taken = set(self._block_names(func_name))
        for is_read, regions in ((True, blk.reads), (False, blk.writes)):
            for region in regions:
                if not needs_padding(region):
                    continue
                buf = region.buffer
                shape = []
                for r, dim in zip(region.region, buf.shape):
                    if isinstance(r.min, E.IntImm):
                        shape.append(const(1, r.min.dtype))
                    else:
                        shape.append(iter_extents.get(r.min, dim))
                padded = new_buffer(shape, buf.dtype, f"{buf.name}_pad", buf.scope())
                buffers[buf] = padded
                allocs.append(padded)
                name = padded.name
                i = 0
                while name in taken:
                    i += 1
                    name = f"{padded.name}_{i}"
                taken.add(name)
                (reads if is_read else writes).append(_copy_nest(buf, padded, name, is_read,
                                                                 ana))
                names.append(name)
        scope = enclosing_block(path)
        items = list(scope.body.seq) if isinstance(scope.body, SeqStmt) else [scope.body]
        pos = next(i for i, s in enumerate(items) if any(s is n for n in path))
        items[pos:pos + 1] = [*reads,
                              _PadReplacer(iter_extents, loop_extents, buffers).visit_stmt(
                                  items[pos]), *writes]
        new_scope = scope.replace(body=SeqStmt(items) if len(items) > 1 else items[0],
                                  alloc_buffers=tuple(scope.alloc_buffers) + tuple(allocs))
        body = self.mod[func_name].body
        self._commit(func_name, replace_stmts(body, {id(scope): new_scope}))
        self._record(prim, kwargs={"block": block, "padding": padding})
