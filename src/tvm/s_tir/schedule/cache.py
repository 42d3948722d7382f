"""Caching primitives: ``cache_read`` and ``cache_write``.

Both add a buffer in the given storage scope (allocated by the scope block) and a copy block
``<buffer>_<scope>`` that copies the *whole* buffer (no region narrowing yet; ``compute_at``
the copy block to narrow it).
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx.expr import And, Var
from ...tirx.generic import const
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
from .lookup import enclosing_block, scope_blocks
from .state import (
    common_prefix_len,
    iter_blocks,
    make_seq,
    new_buffer,
    relax_region,
    replace_stmts,
    seq_of,
)

__all__ = ["CachePrimitives", "SwapBuffer"]


class SwapBuffer(StmtExprMutator):
    """Use ``new`` in place of ``old`` (loads, stores and regions)."""

    def __init__(self, old, new, stores=True):
        self.old, self.new, self.stores = old, new, stores

    def visit_buffer_use(self, buffer):
        return self.new if buffer is self.old else buffer

    def visit_buffer_def(self, buffer):
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


def _copy_nest(src, dst, name, region=None, outer=None):
    """``for ax...: with T.sblock(name): dst[v...] = src[v...]``.

    ``region`` is ``[(lo, hi)]`` per dimension (default: the whole buffer); ``outer`` maps the
    variables of the enclosing loops to their ranges, to decide whether a tile can overhang
    the buffer (then the block is guarded with ``T.where``, as in TVM).
    """
    ana = Analyzer()
    loop_vars, ivs, values, pred = [], [], [], None
    for i, e in enumerate(src.shape):
        dtype = getattr(e, "dtype", "int32")
        lo, ext = (const(0, dtype), e) if region is None else (
            region[i][0], ana.simplify(region[i][1] - region[i][0] + 1))
        ax = Var(f"ax{i}", dtype)
        loop_vars.append((ax, ext))
        value = ana.simplify(lo + ax)
        values.append(value)
        ivs.append(IterVar(Range.from_min_extent(const(0, dtype), e), Var(f"v{i}", dtype),
                           IterVar.DataPar))
        if region is not None:
            hi = ana.int_set(region[i][1], outer or {}).max_value
            if hi is None or not ana.can_prove(hi < e):
                cond = value < e
                pred = cond if pred is None else And(pred, cond)
    idx = [iv.var for iv in ivs]
    block = SBlock(ivs, [BufferRegion.from_point(src, idx)], [BufferRegion.from_point(dst, idx)],
                   name, BufferStore(dst, src[tuple(idx)] if idx else src[()], idx))
    stmt = SBlockRealize(values, const(True, "bool") if pred is None else pred, block)
    for v, e in reversed(loop_vars):
        stmt = For(v, const(0, v.dtype), e, ForKind.SERIAL, stmt)
    return stmt


def _write_back_site(path, scope_at, reader_paths):
    """Where the copy back of a cache_write goes, as in TVM: in the lowest sequence holding
    the writer (``path[-1]``) and every reader, right after the item holding the writer.

    Returns ``(seq, index of that item)``; ``seq`` is ``None`` when the scope block's body is
    the writer's item itself.
    """
    common = common_prefix_len([path, *reader_paths])
    if not reader_paths:
        # No reader: right after the writer's top-level item of the scope body.
        common = min(len(path) - 1, scope_at + 2)
    for k in range(common - 1, scope_at - 1, -1):
        if isinstance(path[k], SeqStmt):
            return path[k], next(i for i, x in enumerate(path[k].seq) if x is path[k + 1])
    return None, 0


def _lowest_common_seq(paths, scope_at):
    """The deepest ``SeqStmt`` on every path (below the scope block), or ``None``."""
    common = common_prefix_len(paths)
    for k in range(common - 1, scope_at, -1):
        if isinstance(paths[0][k], SeqStmt):
            return paths[0][k]
    return None


def _relaxed_reads(readers, seq, buf):
    """Union over ``readers`` of ``[(lo, hi)]`` they read of ``buf``, relaxing loops below
    ``seq``."""
    ana = Analyzer()
    region = None
    for realize, path in readers:
        at = next(i for i, n in enumerate(path) if n is seq)
        dom = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent)
               for lp in path[at:] if isinstance(lp, For)}
        vmap = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
        for reg in realize.block.reads:
            if reg.buffer is not buf:
                continue
            got = relax_region(reg, vmap, dom, ana)
            if region is None:
                region = got
            else:
                from ...tirx.generic import max as gmax  # Lazy: only unions need these.
                from ...tirx.generic import min as gmin

                region = [(ana.simplify(gmin(a, c)), ana.simplify(gmax(b, d)))
                          for (a, b), (c, d) in zip(region, got)]
    return region


def _top_level(scope, realize):
    """Index in the scope body of the statement holding ``realize``."""
    for i, s in enumerate(seq_of(scope.body)):
        if any(r is realize for r, _ in iter_blocks(s)):
            return i
    return None


def _relaxed_writes(realize, path, item, buf):
    """``[(lo, hi)]`` of what ``realize`` writes to ``buf`` over the loops inside ``item``."""
    ana = Analyzer()
    at = next(i for i, n in enumerate(path) if n is item)
    inner = [n for n in path[at:] if isinstance(n, For)]
    vmap = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
    dom = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent) for lp in inner}
    region = next(w for w in realize.block.writes if w.buffer is buf)
    return relax_region(region, vmap, dom, ana)


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
        body = self.mod[func_name].body
        writers = [r for r in scope_blocks(body, path)
                   if any(w.buffer is buf for w in r.block.writes)]
        if len(writers) > 1:
            raise self._error(
                primitive, f"The buffer {buf.name} is expected to be written by single block, "
                f"but got {len(writers)} blocks who write it "
                f"({[w.block.name_hint for w in writers]})", [w.block for w in writers])
        new = new_buffer(buf.shape, buf.dtype, f"{buf.name}_{scope}", scope)
        return func_name, path, realize, buf, new

    def _cache_commit(self, func_name, body, scope, new_scope, new, name, prim, kwargs,
                      consumer_blocks):
        """Allocate ``new`` in the rewritten scope, commit, record ``prim``; the copy block's RV."""
        new_scope = new_scope.replace(alloc_buffers=tuple(new_scope.alloc_buffers) + (new,))
        self._commit(func_name, replace_stmts(body, {id(scope): new_scope}))
        rv = self._new_rv(SBlockRV, func_name, name)
        if consumer_blocks is not None:
            kwargs["consumer_blocks"] = list(consumer_blocks)
        self._record(prim, kwargs=kwargs, outputs=[rv])
        return rv

    def cache_read(self, block: SBlockRV | str, read_buffer_index, storage_scope: str,
                   consumer_blocks=None) -> SBlockRV:
        """Read the block's ``read_buffer_index``-th buffer through a copy in ``storage_scope``.

        The copy block is placed after the buffer's writer, in the lowest sequence holding the
        writer and the readers (at the start of the scope for a function input);
        ``consumer_blocks`` (default: every reader in the scope) read the copy.
        """
        block = self._as_block(block)
        read_buffer_index = self._buffer_index(self.get(block), read_buffer_index, "reads", "cache_read")
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
        paths = {id(r): p for r, p in iter_blocks(body)}
        writers = [r for r in scope_blocks(body, path)
                   if any(w.buffer is buf for w in r.block.writes)]
        name = self._unique_block_name(func_name, new.name)
        scope_at = next(k for k, n in enumerate(path) if n is scope)
        swap = SwapBuffer(buf, new, stores=False)
        table = {id(t.block): swap.visit_stmt(t.block) for t in targets}
        if not writers:
            # A function input: copy the whole buffer first thing in the scope.
            items = [replace_stmts(s, table) for s in seq_of(scope.body)]
            new_body = make_seq([_copy_nest(buf, new, name)] + items)
            new_scope = scope.replace(body=new_body)
        else:
            # As in TVM: in the lowest sequence holding the writers and the readers, right
            # after the last item holding a writer; the copy covers what the readers read
            # inside that sequence (the whole buffer at the scope level).
            all_paths = [paths[id(r)] for r in writers + targets]
            seq = _lowest_common_seq(all_paths, scope_at)
            items = seq_of(seq) if seq is not None else [scope.body]
            holds = [{id(r) for r, _ in iter_blocks(item)} for item in items]
            pos = max(i for i, h in enumerate(holds) for w in writers if id(w) in h) + 1
            first_reader = min(i for i, h in enumerate(holds) for t in targets if id(t) in h)
            if first_reader < pos:
                raise self._error(
                    prim, f"cache_read: block {targets[0].block.name_hint!r} reads "
                    f"{buf.name} in the same loop-nest item that writes it; no place for the "
                    "copy lies between the writer and the readers", [targets[0].block])
            region, outer = None, {}
            if seq is not None:
                seq_at = next(k for k, n in enumerate(all_paths[0]) if n is seq)
                enclosing = [n for n in all_paths[0][scope_at:seq_at] if isinstance(n, For)]
                outer = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent) for lp in enclosing}
                if enclosing:
                    region = _relaxed_reads([(t, paths[id(t)]) for t in targets], seq, buf)
            new_items = [replace_stmts(s, table) for s in items]
            new_items.insert(pos, _copy_nest(buf, new, name, region, outer))
            if seq is None or seq is scope.body:
                new_scope = scope.replace(body=make_seq(new_items))
            else:
                new_scope = replace_stmts(scope, {id(seq): make_seq(new_items)})
        kwargs = {"block": block, "read_buffer_index": read_buffer_index,
                  "storage_scope": storage_scope}
        return self._cache_commit(func_name, body, scope, new_scope, new, name, prim, kwargs,
                                  consumer_blocks)

    def cache_write(self, block: SBlockRV | str, write_buffer_index, storage_scope: str,
                    consumer_blocks=None) -> SBlockRV:
        """Make the block write a copy in ``storage_scope``, copied back right after it.

        ``consumer_blocks`` is accepted for API compatibility; every consumer keeps reading the
        original buffer (after the copy back).
        """
        block = self._as_block(block)
        write_buffer_index = self._buffer_index(self.get(block), write_buffer_index, "writes", "cache_write")
        prim = "cache_write"
        func_name, path, realize, buf, new = self._cache_setup(
            block, write_buffer_index, storage_scope, prim, "writes")
        body = self.mod[func_name].body
        scope = enclosing_block(path)
        name = self._unique_block_name(func_name, new.name)
        scope_at = next(k for k, n in enumerate(path) if n is scope)
        reader_paths = [p for r, p in iter_blocks(body) if r is not realize
                        and any(rg.buffer is buf for rg in r.block.reads)]
        seq, pos = _write_back_site(path, scope_at, reader_paths)
        item = seq.seq[pos] if seq is not None else scope.body
        # The copy covers what the writer writes inside that item (the whole buffer when the
        # item is a top-level nest of the scope).
        at = next(k for k, n in enumerate(path) if n is item)
        enclosing = [n for n in path[scope_at:at] if isinstance(n, For)]
        outer = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent) for lp in enclosing}
        region = _relaxed_writes(realize, path, item, buf) if enclosing else None
        nest = _copy_nest(new, buf, name, region, outer)
        new_block = SwapBuffer(buf, new).visit_stmt(realize.block)
        new_item = replace_stmts(item, {id(realize.block): new_block})
        if seq is None:
            new_scope = scope.replace(body=make_seq([new_item, nest]))
        else:
            items = list(seq.seq)
            items[pos] = new_item
            items.insert(pos + 1, nest)
            new_scope = replace_stmts(scope, {id(seq): make_seq(items)})
        kwargs = {"block": block, "write_buffer_index": write_buffer_index,
                  "storage_scope": storage_scope}
        return self._cache_commit(func_name, body, scope, new_scope, new, name, prim, kwargs,
                                  consumer_blocks)
