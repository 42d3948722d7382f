"""Caching primitives: ``cache_read`` and ``cache_write``.

Both add a buffer in the given storage scope (allocated by the scope block) and a copy block
``<buffer>_<scope>`` that copies the *whole* buffer (no region narrowing yet; ``compute_at``
the copy block to narrow it).
"""

from __future__ import annotations

from ...ir.expr import Range
from ...tirx.buffer import decl_buffer
from ...tirx.expr import Var
from ...tirx.generic import const
from ...tirx.stmt import BufferRegion, BufferStore, For, ForKind, IterVar, SBlock, SBlockRealize
from ...tirx.stmt_functor import StmtExprMutator
from .base import SBlockRV
from .lookup import enclosing_block, scope_blocks
from .state import iter_blocks, make_seq, replace_stmts, seq_of

__all__ = ["CachePrimitives"]


class _SwapBuffer(StmtExprMutator):
    """Use ``new`` in place of ``old`` (loads, stores and regions)."""

    def __init__(self, old, new, stores=True):
        self.old, self.new, self.stores = old, new, stores

    def visit_buffer_use(self, buffer):
        return self.new if buffer is self.old else buffer

    def visit_buffer_store_(self, op):
        if self.stores:
            return super().visit_buffer_store_(op)
        # Keep the stored buffer; rewrite only what the value reads.
        return op.replace(value=self.visit_expr(op.value), indices=self._exprs(op.indices))

    def visit_sblock_(self, op):
        new = super().visit_sblock_(op)
        if not self.stores:
            new = new.replace(writes=op.writes)
        return new


def _copy_nest(src, dst, name):
    """``for ax...: with T.sblock(name): dst[v...] = src[v...]`` over the whole buffer."""
    loop_vars = [Var(f"ax{i}", getattr(e, "dtype", "int32")) for i, e in enumerate(src.shape)]
    ivs = [IterVar(Range(const(0, v.dtype), e), Var(f"v{i}", v.dtype), IterVar.DataPar)
           for i, (v, e) in enumerate(zip(loop_vars, src.shape))]
    idx = [iv.var for iv in ivs]
    block = SBlock(ivs, [BufferRegion.from_point(src, idx)], [BufferRegion.from_point(dst, idx)],
                   name, BufferStore(dst, src[tuple(idx)] if idx else src[()], idx))
    stmt = SBlockRealize(loop_vars, const(True, "bool"), block)
    for v, e in reversed(list(zip(loop_vars, src.shape))):
        stmt = For(v, const(0, v.dtype), e, ForKind.SERIAL, stmt)
    return stmt


def _top_level(scope, realize):
    """Index in the scope body of the statement holding ``realize``."""
    for i, s in enumerate(seq_of(scope.body)):
        if any(r is realize for r, _ in iter_blocks(s)):
            return i
    return None


class CachePrimitives:
    """Mixin: cache reads and writes through a buffer of another storage scope."""

    def _cache_setup(self, block, index, scope, primitive, field):
        if not isinstance(scope, str):
            raise TypeError(f"{primitive}: storage_scope must be a str, got {scope!r}")
        func_name, path = self._block(block, primitive)
        realize = path[-1]
        regions = getattr(realize.block, field)
        if not isinstance(index, int) or not 0 <= index < len(regions):
            raise self._error(
                primitive, f"The {field[:-1]} buffer index {index} is out of range: block "
                f"{realize.block.name_hint!r} has {len(regions)} {field} buffers "
                f"({[r.buffer.name for r in regions]})", [realize.block])
        buf = regions[index].buffer
        new = decl_buffer(buf.shape, buf.dtype, name=f"{buf.name}_{scope}", scope=scope)
        return func_name, path, realize, buf, new

    def cache_read(self, block: SBlockRV, read_buffer_index: int, storage_scope: str,
                   consumer_blocks=None) -> SBlockRV:
        """Read the block's ``read_buffer_index``-th buffer through a copy in ``storage_scope``.

        The copy block is placed after the buffer's writer in the scope (at the start of the
        scope for a function input); ``consumer_blocks`` (default: every reader in the scope)
        read the copy.
        """
        prim = "cache_read"
        func_name, path, _, buf, new = self._cache_setup(
            block, read_buffer_index, storage_scope, prim, "reads")
        body = self.mod[func_name].body
        scope = enclosing_block(path)
        if consumer_blocks is None:
            targets = [r for r in scope_blocks(body, path)
                       if any(rg.buffer is buf for rg in r.block.reads)]
        else:
            targets = [self._block(b, prim)[1][-1] for b in consumer_blocks]
        writers = [r for r in scope_blocks(body, path)
                   if any(w.buffer is buf for w in r.block.writes)]
        name = self._unique_block_name(func_name, new.name)
        nest = _copy_nest(buf, new, name)
        items = seq_of(scope.body)
        pos = 0
        if writers:
            pos = max(_top_level(scope, w) for w in writers) + 1
        swap = _SwapBuffer(buf, new, stores=False)
        table = {id(t.block): swap.visit_stmt(t.block) for t in targets}
        new_items = [replace_stmts(s, table) for s in items]
        new_items.insert(pos, nest)
        new_scope = scope.replace(body=make_seq(new_items), alloc_buffers=tuple(
            scope.alloc_buffers) + (new,))
        self._commit(func_name, replace_stmts(body, {id(scope): new_scope}))
        rv = self._new_rv(SBlockRV, func_name, name)
        kwargs = {"block": block, "read_buffer_index": read_buffer_index,
                  "storage_scope": storage_scope}
        if consumer_blocks is not None:
            kwargs["consumer_blocks"] = list(consumer_blocks)
        self._record(prim, kwargs=kwargs, outputs=[rv])
        return rv

    def cache_write(self, block: SBlockRV, write_buffer_index: int, storage_scope: str,
                    consumer_blocks=None) -> SBlockRV:
        """Make the block write a copy in ``storage_scope``, copied back right after it.

        ``consumer_blocks`` is accepted for API compatibility; every consumer keeps reading the
        original buffer (after the copy back).
        """
        prim = "cache_write"
        func_name, path, realize, buf, new = self._cache_setup(
            block, write_buffer_index, storage_scope, prim, "writes")
        body = self.mod[func_name].body
        scope = enclosing_block(path)
        name = self._unique_block_name(func_name, new.name)
        nest = _copy_nest(new, buf, name)
        items = seq_of(scope.body)
        pos = _top_level(scope, realize) + 1
        new_block = _SwapBuffer(buf, new).visit_stmt(realize.block)
        new_items = [replace_stmts(s, {id(realize.block): new_block}) for s in items]
        new_items.insert(pos, nest)
        new_scope = scope.replace(body=make_seq(new_items), alloc_buffers=tuple(
            scope.alloc_buffers) + (new,))
        self._commit(func_name, replace_stmts(body, {id(scope): new_scope}))
        rv = self._new_rv(SBlockRV, func_name, name)
        kwargs = {"block": block, "write_buffer_index": write_buffer_index,
                  "storage_scope": storage_scope}
        if consumer_blocks is not None:
            kwargs["consumer_blocks"] = list(consumer_blocks)
        self._record(prim, kwargs=kwargs, outputs=[rv])
        return rv
