"""Caching primitives: ``cache_read`` and ``cache_write``.

Both add a buffer in the given storage scope (allocated by the scope block) and a copy block
``<buffer>_<scope>`` that copies the *whole* buffer (no region narrowing yet; ``compute_at``
the copy block to narrow it).
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx.expr import LT, And, Var
from ...tirx.generic import const
from ...tirx.generic import min as gmin
from ...tirx.stmt import (
    BufferLoad,
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    IterVar,
    MatchBufferRegion,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ...tirx.stmt_functor import StmtExprMutator, substitute
from .base import SBlockRV
from .lookup import enclosing_block, scope_blocks
from .state import (
    children,
    common_prefix_len,
    const_int,
    iter_blocks,
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
        """Return ``new`` for a use of ``old`` (loads, stores, regions); others unchanged."""
        return self.new if buffer is self.old else buffer

    def visit_buffer_def(self, buffer):
        """Return ``new`` where ``old`` is defined (allocations, match buffers), else the buffer."""
        return self.new if buffer is self.old else buffer

    def visit_buffer_store_(self, op):
        """Rewrite a store: the whole store when ``stores`` is set, else only its value and
        indices (the stored buffer is kept).
        """
        if self.stores:
            return super().visit_buffer_store_(op)
        # Keep the stored buffer; rewrite only what the value reads.
        return op.replace(value=self.visit_expr(op.value), indices=self._exprs(op.indices))

    def visit_sblock_(self, op):
        """Rewrite a block; without ``stores`` its write regions keep the old buffer."""
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


# Storage scopes TVM accepts, by prefix (``shared.dyn``, ``local.fragment``, ``wmma.matrix_a``).
_STORAGE_PREFIXES = ("global", "shared", "warp", "local", "texture", "wmma.", "metal.",
                     "m16n8k8.")


def check_storage_scope(sch, prim, scope):
    """As TVM: a storage scope starts with a known rank (``global``, ``shared``, ``warp``,
    ``local``, ``texture``, ``wmma.``, ``metal.``...)."""
    if not isinstance(scope, str):
        raise TypeError(f"{prim}: storage_scope must be a str, got {scope!r}")
    if not scope.startswith(_STORAGE_PREFIXES):
        raise sch._error(prim, f"The input storage scope \"{scope}\" is invalid.")


def _detect_cache_loc(scope, writer, related):
    """TVM's ``CacheLocDetector``: ``(stmt, index)`` -- the loop or scope block whose body gets
    the cache stage, at ``index`` of its body sequence."""
    state = {"block": False, "related": False, "loc": None, "pos": -1}
    related_ids = {id(b) for b in related}

    def visit(stmt):
        if isinstance(stmt, SeqStmt):
            prev = state["block"]
            state["block"] = False
            for i, item in enumerate(stmt.seq):
                if state["pos"] != -1:
                    break
                visit(item)
                if state["block"] and state["related"] and state["pos"] == -1:
                    state["pos"] = i
                    break
                if state["related"]:
                    break
            state["block"] = state["block"] or prev
        elif isinstance(stmt, SBlockRealize):
            visit(stmt.block)
        elif isinstance(stmt, SBlock):
            if stmt is scope:
                visit(stmt.body)
                if state["related"] and state["loc"] is None:
                    state["loc"] = stmt
                    if not state["block"] and state["pos"] == -1:
                        state["pos"] = 0
            elif stmt is writer:
                state["block"] = True
            elif id(stmt) in related_ids:
                state["related"] = True
        elif isinstance(stmt, For):
            visit(stmt.body)
            if (state["block"] and state["related"] and state["loc"] is None
                    and state["pos"] != -1):
                state["loc"] = stmt
        else:
            for child in children(stmt):
                visit(child)

    visit(scope)
    if state["loc"] is None:
        # No reader after the writer: at the end of the scope.
        return scope, len(seq_of(scope.body))
    return state["loc"], max(state["pos"], 0)


def _insert_stage(body, pos, stage):
    items = seq_of(body)
    if isinstance(body, SeqStmt):
        items.insert(pos, stage)
    elif pos == 0:
        items = [stage] + items
    else:
        items = items + [stage]
    return SeqStmt(items)


def _cache_stage(src, dst, name, region, full, is_read):
    """TVM's ``MakeCacheStage``: the copy nest over ``region`` (full: indexed like the buffer;
    compact: the cache buffer indexed from 0)."""
    ivs, loop_vars, values, src_idx, dst_idx = [], [], [], [], []
    big = src if is_read else dst
    ana = Analyzer()
    for i, r in enumerate(region):
        dtype = r.extent.dtype
        ax = Var(f"ax{i}", dtype)
        loop_vars.append((ax, r.extent))
        v = Var(f"v{i}", dtype)
        if full:
            dim = big.shape[i]
            ivs.append(IterVar(Range.from_min_extent(const(0, dim.dtype), dim), v,
                               IterVar.DataPar))
            values.append(ana.simplify(r.min + ax))
            src_idx.append(v)
            dst_idx.append(v)
        else:
            ivs.append(IterVar(Range.from_min_extent(const(0, dtype), r.extent), v,
                               IterVar.DataPar))
            values.append(ax)
            offset = ana.simplify(r.min + v)
            src_idx.append(offset if is_read else v)
            dst_idx.append(v if is_read else offset)
    blk = SBlock(ivs, [BufferRegion.from_point(src, src_idx)],
                 [BufferRegion.from_point(dst, dst_idx)], name,
                 BufferStore(dst, BufferLoad(src, src_idx), dst_idx))
    stmt = SBlockRealize(values, const(True, "bool"), blk)
    for v, e in reversed(loop_vars):
        stmt = For(v, const(0, v.dtype), e, ForKind.SERIAL, stmt)
    return stmt


class _CacheReadRewriter(StmtExprMutator):
    """TVM's ``CacheReadRewriter``: readers load the cache (offset by the compact region's
    start), the stage is inserted at ``(loc, pos)``; blocks writing the buffer are kept."""

    def __init__(self, scope, old, new, compact, consumers, loc, pos, stage):
        self.scope, self.old, self.new, self.compact = scope, old, new, compact
        self.consumers, self.loc, self.pos, self.stage = consumers, loc, pos, stage
        self.consumes = False
        self.ana = Analyzer()

    def _sub(self, value, start):
        return value if const_int(start) == 0 else self.ana.simplify(value - start)

    def _offset(self, indices):
        if self.compact is None:
            return list(indices)
        return [self._sub(i, r.min) for i, r in zip(indices, self.compact)]

    def _region(self, region):
        if region.buffer is not self.old:
            return region
        if self.compact is None:
            return BufferRegion(self.new, list(region.region))
        return BufferRegion(self.new, [
            Range.from_min_extent(self._sub(r.min, c.min), r.extent)
            for r, c in zip(region.region, self.compact)])

    def visit_for_(self, op):
        new = super().visit_for_(op)
        if op is self.loc:
            new = new.replace(body=_insert_stage(new.body, self.pos, self.stage))
        return new

    def visit_sblock_(self, op):
        self.consumes = self.consumers is None or id(op) in self.consumers
        consumes = self.consumes
        if op is not self.scope and any(w.buffer is self.old for w in op.writes):
            return op
        new = super().visit_sblock_(op)
        if op is self.loc:
            new = new.replace(body=_insert_stage(new.body, self.pos, self.stage))
        if op is not self.scope and consumes:
            match = tuple(
                MatchBufferRegion(m.buffer, self._region(m.source))
                if m.source.buffer is self.old else m for m in new.match_buffers)
            new = new.replace(reads=tuple(self._region(r) for r in new.reads),
                              match_buffers=match)
        return new

    def visit_buffer_load_(self, op):
        if op.buffer is self.old and self.consumes:
            return BufferLoad(self.new, self._offset(self._exprs(op.indices)), op.predicate)
        return super().visit_buffer_load_(op)

    def visit_var_(self, op):
        return self.new.data if op is self.old.data else op


def _conjuncts(pred):
    if isinstance(pred, And):
        return _conjuncts(pred.a) + _conjuncts(pred.b)
    return [pred]


class _CacheWriteRewriter(_CacheReadRewriter):
    """TVM's ``CacheWriteRewriter``: the writer (and ``consumers``) access the cache; other
    blocks are kept; the copy back is inserted at ``(loc, pos)``."""

    def __init__(self, scope, writer, old, new, compact, consumers, loc, pos, stage):
        super().__init__(scope, old, new, compact, consumers, loc, pos, stage)
        self.writer = writer
        self.under_writer = False

    def _regions(self, regions):
        return tuple(self._region(r) for r in regions)

    def _update(self, blk):
        match = tuple(MatchBufferRegion(m.buffer, self._region(m.source))
                      if m.source.buffer is self.old else m for m in blk.match_buffers)
        return blk.replace(reads=self._regions(blk.reads), writes=self._regions(blk.writes),
                           match_buffers=match)

    def visit_sblock_(self, op):
        if id(op) in self.consumers:
            saved, self.under_writer = self.under_writer, True
            new = self._update(op).replace(body=self.visit_stmt(op.body))
            self.under_writer = saved
            return new
        if op is not self.writer and op is not self.scope and not self.under_writer:
            return op
        saved = self.under_writer
        self.under_writer = saved or op is self.writer
        new = StmtExprMutator.visit_sblock_(self, op)
        self.under_writer = saved
        if op is self.loc:
            new = new.replace(body=_insert_stage(new.body, self.pos, self.stage))
        if op is not self.scope:
            new = self._update(new)
        return new

    def visit_buffer_store_(self, op):
        op = StmtExprMutator.visit_buffer_store_(self, op)
        if op.buffer is self.old:
            return BufferStore(self.new, op.value, self._offset(op.indices), op.predicate)
        return op

    def visit_buffer_load_(self, op):
        if op.buffer is self.old:
            return BufferLoad(self.new, self._offset(self._exprs(op.indices)), op.predicate)
        return StmtExprMutator.visit_buffer_load_(self, op)


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

        As TVM: the copy goes right before the first reader that follows the buffer's writer,
        in the innermost loop (or the scope block) holding both (first thing in the scope for
        a function input). It copies what the writer writes under that place; when the place
        is the scope block, the copy buffer is compacted to that region and the readers index
        it relative to its start. ``consumer_blocks`` (default: every reader in the scope)
        read the copy.
        """
        block = self._as_block(block)
        if consumer_blocks is not None:
            consumer_blocks = [self._as_block(b) for b in consumer_blocks]
        read_buffer_index = self._buffer_index(self.get(block), read_buffer_index, "reads",
                                               "cache_read")
        prim = "cache_read"
        check_storage_scope(self, prim, storage_scope)
        func_name, path, _, buf, new = self._cache_setup(
            block, read_buffer_index, storage_scope, prim, "reads")
        body = self.mod[func_name].body
        scope = enclosing_block(path)
        consumers = None
        if consumer_blocks is not None:
            consumers = set()
            for b in consumer_blocks:
                cblk = self._block(b, prim)[1][-1].block
                consumers.add(id(cblk))
                consumers.update(id(r.block) for r, _ in iter_blocks(cblk.body))
        writers = [r for r in scope_blocks(body, path)
                   if any(w.buffer is buf for w in r.block.writes)]
        paths = {id(r): p for r, p in iter_blocks(body)}
        if writers:
            writer = writers[0]
            if consumers is not None:
                related = [r.block for r, _ in iter_blocks(scope.body) if id(r.block) in consumers]
            else:
                related = [r.block for r in scope_blocks(body, path) if r is not writer
                           and any(rg.buffer is buf for rg in r.block.reads)]
            loc, pos = _detect_cache_loc(scope, writer.block, related)
            region = self._cache_region(writer, paths[id(writer)], loc, buf)
        else:
            loc, pos = scope, 0
            reads = [r for r in scope.reads if r.buffer is buf]
            region = list(reads[0].region) if reads else [
                Range.from_min_extent(const(0, e.dtype), e) for e in buf.shape]
        full = not isinstance(loc, SBlock)
        if not full:
            new = new.replace(shape=tuple(r.extent for r in region))
        name = self._unique_block_name(func_name, new.name)
        stage = _cache_stage(buf, new, name, region, full, is_read=True)
        rewriter = _CacheReadRewriter(scope, buf, new, None if full else region, consumers,
                                      loc, pos, stage)
        new_scope = rewriter.visit_stmt(scope)
        kwargs = {"block": block, "read_buffer_index": read_buffer_index,
                  "storage_scope": storage_scope}
        return self._cache_commit(func_name, body, scope, new_scope, new, name, prim, kwargs,
                                  consumer_blocks)

    def cache_write(self, block: SBlockRV | str, write_buffer_index, storage_scope: str,
                    consumer_blocks=None) -> SBlockRV:
        """Make the block write a copy in ``storage_scope``, copied back to the buffer.

        As TVM: the copy back goes right before the first reader of the buffer (other than
        ``consumer_blocks``) in the innermost loop or scope block holding the writer and that
        reader (at the end of the scope when nothing else reads it); under a scope block the
        cache is compacted to what the writer writes there. ``consumer_blocks`` read the cache
        directly.
        """
        block = self._as_block(block)
        if consumer_blocks is not None:
            consumer_blocks = [self._as_block(b) for b in consumer_blocks]
        write_buffer_index = self._buffer_index(self.get(block), write_buffer_index, "writes",
                                                "cache_write")
        prim = "cache_write"
        check_storage_scope(self, prim, storage_scope)
        func_name, path, realize, buf, new = self._cache_setup(
            block, write_buffer_index, storage_scope, prim, "writes")
        body = self.mod[func_name].body
        scope = enclosing_block(path)
        consumers = set()
        for b in consumer_blocks or ():
            cblk = self._block(b, prim)[1][-1].block
            consumers.add(id(cblk))
            consumers.update(id(r.block) for r, _ in iter_blocks(cblk.body))
        # As TVM, only the writer's RAW consumers: readers after it in the scope.
        siblings = scope_blocks(body, path)
        after = siblings[next(i for i, r in enumerate(siblings) if r is realize) + 1:]
        related = [r.block for r in after if id(r.block) not in consumers
                   and any(rg.buffer is buf for rg in r.block.reads)]
        if related:
            loc, pos = _detect_cache_loc(scope, realize.block, related)
        else:
            loc = scope
            pos = len(scope.body.seq) if isinstance(scope.body, SeqStmt) else 1
        region = self._cache_region(realize, path, loc, buf)
        readers = [r.block for r in scope_blocks(body, path)
                   if any(rg.buffer is buf for rg in r.block.reads)]
        full = not isinstance(loc, SBlock) or not all(
            any(r.block is b for r, _ in iter_blocks(loc.body)) for b in readers)
        if not full:
            new = new.replace(shape=tuple(r.extent for r in region))
        name = self._unique_block_name(func_name, new.name)
        stage = _cache_stage(new, buf, name, region, full, is_read=False)
        rewriter = _CacheWriteRewriter(scope, realize.block, buf, new,
                                       None if full else region, consumers, loc, pos, stage)
        new_scope = rewriter.visit_stmt(scope)
        kwargs = {"block": block, "write_buffer_index": write_buffer_index,
                  "storage_scope": storage_scope}
        return self._cache_commit(func_name, body, scope, new_scope, new, name, prim, kwargs,
                                  consumer_blocks)

    def _cache_region(self, realize, path, loc, buf):
        """The writer's write region of ``buf``, relaxed over its loops below ``loc`` and kept
        inside the buffer (TVM's ``RelaxBufferRegion``)."""
        at = next(k for k, n in enumerate(path) if n is loc)
        inner = [n for n in path[at + 1:] if isinstance(n, For)]
        ana = Analyzer()
        vmap = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
        dom = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent) for lp in inner}
        for node in path[:at + 1]:
            if isinstance(node, For):
                ana.bind(node.loop_var, Range.from_min_extent(node.min, node.extent))
            elif isinstance(node, SBlock):
                for iv in node.iter_vars:
                    ana.bind(iv.var, iv.dom)
        wregion = next(w for w in realize.block.writes if w.buffer is buf)
        region = []
        # Upper bounds the writer's predicate puts on its indices (``index < bound``).
        limits = []
        for cond in _conjuncts(realize.predicate):
            if isinstance(cond, LT):
                limits.append((ana.simplify(cond.a), cond.b))
        for r, (lo, hi), dim in zip(wregion.region, relax_region(wregion, vmap, dom, ana),
                                    buf.shape):
            index = ana.simplify(substitute(r.min, vmap))
            for expr, bound in limits:
                if ana.can_prove_equal(expr, index) and not ana.can_prove(hi < bound):
                    # The guarded tail of a split loop writes nothing at or past the bound.
                    last = ana.simplify(bound - 1)
                    hi = last if ana.can_prove(last <= hi) else ana.simplify(gmin(hi, last))
            # What the writer writes lies in the buffer.
            top = ana.simplify(dim - 1)
            if not ana.can_prove(hi <= top) and ana.can_prove(hi >= top):
                hi = top
            if not ana.can_prove(lo >= 0) and ana.can_prove(lo <= 0):
                lo = const(0, lo.dtype)
            region.append(Range.from_min_extent(lo, ana.simplify(hi - lo + 1)))
        return region
