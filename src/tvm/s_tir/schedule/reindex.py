"""``reindex``: stage a block's access to a buffer through a buffer indexed by its iterators.

For a block that accesses ``A[f(v...)]`` (one access pattern), ``reindex(block, ("read", i))``
allocates ``A_reindex`` with one dimension per block iterator that the pattern uses (in the
block's iterator order, extents from their domains), adds a block
``A_reindex[v...] = A[f(v...)]`` in its own loop nest right before the block's nest at the
scope level, and makes the block read ``A_reindex[v...]``. For a written buffer the copy
``A[f(v...)] = A_reindex[v...]`` goes right after the block's nest.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ffi.structural import structural_equal
from ...ir.expr import Range
from ...tirx.buffer import Buffer
from ...tirx.expr import Var
from ...tirx.generic import const
from ...tirx.stmt import (
    BufferLoad,
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    IterVar,
    SBlockRealize,
)
from ...tirx.stmt_functor import StmtExprMutator, post_order_visit, substitute
from .base import SBlockRV
from .lookup import enclosing_block
from .state import iter_blocks, make_seq, new_buffer, replace_stmts, seq_of

__all__ = ["ReindexPrimitives"]


class _Reaccess(StmtExprMutator):
    """Accesses of ``old`` become accesses of ``new`` at ``indices``."""

    def __init__(self, old, new, indices):
        self.old, self.new, self.indices = old, new, list(indices)

    def visit_buffer_load_(self, op):
        if op.buffer is self.old:
            return BufferLoad(self.new, self.indices)
        return super().visit_buffer_load_(op)

    def visit_buffer_store_(self, op):
        value = self.visit_expr(op.value)
        if op.buffer is self.old:
            return BufferStore(self.new, value, self.indices)
        return op.replace(value=value, indices=self._exprs(op.indices))


def _accesses(block, buf):
    found = []

    def visit(node):
        if isinstance(node, (BufferLoad, BufferStore)) and node.buffer is buf:
            found.append(list(node.indices))

    for stmt in (block.init, block.body):
        if stmt is not None:
            post_order_visit(stmt, visit)
    return found


class ReindexPrimitives:
    """Mixin: ``reindex``."""

    def _reindex_buffer(self, blk, buffer, prim):
        """``(buffer, is_write)`` from ``("read"|"write", index)``, a name or a Buffer."""
        if isinstance(buffer, (tuple, list)) and len(buffer) == 2:
            kind, index = buffer
            if kind not in ("read", "write"):
                raise ValueError(f"{prim}: the buffer kind must be 'read' or 'write', got {kind!r}")
            regions = blk.reads if kind == "read" else blk.writes
            if not isinstance(index, int) or not 0 <= index < len(regions):
                raise self._error(
                    prim, f"The {kind} buffer index {index} is out of range: block "
                    f"{blk.name_hint!r} has {len(regions)} {kind} buffers "
                    f"({[r.buffer.name for r in regions]})", [blk])
            return regions[index].buffer, kind == "write"
        # A buffer both read and written (C[i, j] += ...) is reindexed as written, as TVM.
        for is_write, regions in ((True, blk.writes), (False, blk.reads)):
            for region in regions:
                if (region.buffer is buffer if isinstance(buffer, Buffer)
                        else region.buffer.name == buffer):
                    return region.buffer, is_write
        raise ValueError(
            f"{prim}: block {blk.name_hint!r} does not access buffer "
            f"{buffer.name if isinstance(buffer, Buffer) else buffer!r}; it reads "
            f"{[r.buffer.name for r in blk.reads]} and writes {[r.buffer.name for r in blk.writes]}"
        )

    def reindex(self, block: SBlockRV | str, buffer) -> SBlockRV:
        """Stage the block's access to ``buffer`` through a buffer indexed by block iterators.

        Parameters
        ----------
        block : SBlockRV or str
            The block accessing the buffer.
        buffer : tuple of (str, int), str or Buffer
            ``("read", i)``/``("write", i)`` (the block's i-th read/written buffer), a buffer
            name, or the buffer.

        Returns
        -------
        SBlockRV
            The new copy block (``<buffer>_reindex``).

        Raises
        ------
        ScheduleError
            If the block accesses the buffer with different indices, or an index uses a
            variable that is not one of the block's iterators.
        """
        block = self._as_block(block)
        prim = "reindex"
        func_name, path = self._block(block, prim)
        realize = path[-1]
        blk = realize.block
        buf, is_write = self._reindex_buffer(blk, buffer, prim)
        patterns = []
        for idx in _accesses(blk, buf):
            if not any(structural_equal(idx, p) for p in patterns):
                patterns.append(idx)
        if len(patterns) != 1:
            raise self._error(
                prim, f"The buffer {buf.name} is accessed with {len(patterns)} different index "
                f"patterns in block {blk.name_hint!r}; reindex needs exactly one", [blk])
        ana = Analyzer()
        for iv in blk.iter_vars:
            ana.bind(iv.var, iv.dom)
        indices = [ana.simplify(e) for e in patterns[0]]
        iter_ids = {id(iv.var) for iv in blk.iter_vars}
        used = set()
        for e in indices:
            def note(node):
                if isinstance(node, Var):
                    used.add(id(node))
            post_order_visit(e, note)
        stray = used - iter_ids
        if stray:
            raise self._error(
                prim, f"The indices of {buf.name} in block {blk.name_hint!r} use variables that "
                "are not the block's iteration variables", [blk])
        covered = [iv for iv in blk.iter_vars if id(iv.var) in used]
        new = new_buffer([iv.dom.extent for iv in covered], buf.dtype, f"{buf.name}_reindex",
                         buf.scope())
        # The block accesses the new buffer at its covered iterators.
        block_idx = [iv.var for iv in covered]
        new_blk = _Reaccess(buf, new, block_idx).visit_stmt(blk)
        # The regions keep their order; the buffer's region becomes the new buffer's point.
        point = BufferRegion.from_point(new, block_idx)
        new_blk = new_blk.replace(
            reads=tuple(point if r.buffer is buf else r for r in blk.reads),
            writes=tuple(point if r.buffer is buf else r for r in blk.writes))
        # The copy block and its loops.
        name = self._unique_block_name(func_name, new.name)
        ivs, loops, vmap = [], [], {}
        for k, iv in enumerate(covered):
            v = Var(f"v{k}", iv.var.dtype)
            ivs.append(IterVar(Range.from_min_extent(iv.dom.min, iv.dom.extent), v,
                               IterVar.DataPar))
            loops.append(Var(f"ax{k}", iv.var.dtype))
            vmap[iv.var] = v
        src_idx = [substitute(e, vmap) for e in indices]
        dst_idx = [iv.var for iv in ivs]
        if is_write:
            store = BufferStore(buf, BufferLoad(new, dst_idx), src_idx)
            regions = ([BufferRegion.from_point(new, dst_idx)], [BufferRegion.from_point(buf, src_idx)])
        else:
            store = BufferStore(new, BufferLoad(buf, src_idx), dst_idx)
            regions = ([BufferRegion.from_point(buf, src_idx)], [BufferRegion.from_point(new, dst_idx)])
        copy = type(blk)(ivs, regions[0], regions[1], name, store)
        stmt = SBlockRealize([ax + iv.dom.min if not _is_zero(iv.dom.min) else ax
                              for ax, iv in zip(loops, covered)], const(True, "bool"), copy)
        for ax, iv in reversed(list(zip(loops, covered))):
            stmt = For(ax, const(0, ax.dtype), iv.dom.extent, ForKind.SERIAL, stmt)
        # Placement: next to the statement of the scope body that holds the block.
        body = self.mod[func_name].body
        scope = enclosing_block(path)
        items = seq_of(scope.body)
        at = next(i for i, s in enumerate(items) if any(r is realize for r, _ in iter_blocks(s)))
        new_items = [replace_stmts(s, {id(blk): new_blk}) for s in items]
        new_items.insert(at + 1 if is_write else at, stmt)
        new_scope = scope.replace(body=make_seq(new_items),
                                  alloc_buffers=tuple(scope.alloc_buffers) + (new,))
        self._commit(func_name, replace_stmts(body, {id(scope): new_scope}))
        rv = self._new_rv(SBlockRV, func_name, name)
        kind = "write" if is_write else "read"
        index = [r.buffer for r in (blk.writes if is_write else blk.reads)].index(buf)
        self._record(prim, kwargs={"block": block, "buffer": (kind, index)}, outputs=[rv])
        return rv


def _is_zero(expr):
    return getattr(expr, "value", None) == 0
