"""``reindex_cache_read`` / ``reindex_cache_write``: a cache indexed by the block's iterators
through an index map (``cache_read`` / ``cache_write`` combined with ``reindex``).

For a block reading ``B[f(v...)]`` (a single point), ``reindex_cache_read(block, i, scope,
index_map)`` allocates ``B_<scope>`` of shape ``index_map.map_shape(iterator extents)`` and a
copy block ``B_<scope>[index_map(v...)] = B[f(v...)]`` over the iterators (and loops) that the
access uses, placed as ``cache_read`` places its copy; the block then reads
``B_<scope>[index_map(v...)]``. ``reindex_cache_write`` is the mirror image for the block's
written buffer, with the copy back placed as ``cache_write`` places it.
"""

from __future__ import annotations

from ...error import InternalError
from ...tirx.expr import Var
from ...tirx.expr_functor import post_order_visit
from ...tirx.generic import const
from ...tirx.index_map import IndexMap
from ...tirx.stmt import (
    BufferLoad,
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    IterVar,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ...tirx.stmt_functor import StmtExprMutator, substitute
from .base import SBlockRV
from .cache import _detect_cache_loc, _insert_stage, check_storage_scope
from .layout import _legalize
from .lookup import enclosing_block, scope_blocks
from .state import find_path, new_buffer, replace_stmts

__all__ = ["ReindexCachePrimitives"]


def _vars_of(exprs):
    found = set()

    def visit(node):
        if isinstance(node, Var):
            found.add(id(node))

    for e in exprs:
        post_order_visit(e, visit)
    return found


class _Reaccess(StmtExprMutator):
    """Inside ``target`` only: accesses of ``old`` become ``new[indices]`` (regions too)."""

    def __init__(self, target, old, new, indices, rewrite_stores):
        self.target, self.old, self.new = target, old, new
        self.indices, self.rewrite_stores = list(indices), rewrite_stores
        self.inside = False

    def _point(self, region):
        return BufferRegion.from_point(self.new, self.indices) if region.buffer is self.old \
            else region

    def visit_sblock_(self, op):
        if op is not self.target and not self.inside:
            return super().visit_sblock_(op)
        saved, self.inside = self.inside, True
        new = super().visit_sblock_(op)
        self.inside = saved
        if op is self.target:
            new = new.replace(reads=tuple(self._point(r) for r in new.reads),
                              writes=tuple(self._point(r) for r in new.writes))
        return new

    def visit_buffer_load_(self, op):
        if self.inside and op.buffer is self.old:
            return BufferLoad(self.new, self.indices)
        return super().visit_buffer_load_(op)

    def visit_buffer_store_(self, op):
        op = super().visit_buffer_store_(op)
        if self.inside and self.rewrite_stores and op.buffer is self.old:
            return BufferStore(self.new, op.value, self.indices)
        return op


class ReindexCachePrimitives:
    """Mixin: ``reindex_cache_read`` and ``reindex_cache_write``."""

    def _reindex_cache(self, block, index, storage_scope, index_map, is_read):
        prim = "reindex_cache_read" if is_read else "reindex_cache_write"
        field = "reads" if is_read else "writes"
        block = self._as_block(block)
        check_storage_scope(self, prim, storage_scope)
        func_name, path = self._block(block, prim)
        realize = path[-1]
        blk = realize.block
        regions = getattr(blk, field)
        if not isinstance(index, int) or not 0 <= index < len(regions):
            raise self._error(prim, f"The {field[:-1]} buffer index {index} is out of range: "
                              f"block {blk.name_hint!r} has {len(regions)} {field} buffers",
                              [blk])
        region = regions[index]
        buf = region.buffer
        if any(getattr(r.extent, "value", None) != 1 for r in region.region):
            raise self._error(prim, f"The {field[:-1]} region of {buf.name} in block "
                              f"{blk.name_hint!r} is not a single point: {region}", [blk])
        dtype = blk.iter_vars[0].var.dtype if blk.iter_vars else "int32"
        if not isinstance(index_map, IndexMap):
            index_map = IndexMap.from_func(index_map, ndim=len(blk.iter_vars),
                                           index_dtype=dtype)
        else:
            # A map built elsewhere (a replayed trace) is given the block's index dtype.
            index_map = _legalize(index_map, dtype)
        if len(index_map.initial_indices) != len(blk.iter_vars):
            raise self._error(prim, f"The index map takes {len(index_map.initial_indices)} "
                              f"indices, but block {blk.name_hint!r} has "
                              f"{len(blk.iter_vars)} iterators", [blk])
        ivars = [iv.var for iv in blk.iter_vars]
        new_idx = index_map.map_indices(ivars)
        new_shape = index_map.map_shape([iv.dom.extent for iv in blk.iter_vars])
        old_idx = [r.min for r in region.region]
        used_old, used_new = _vars_of(old_idx), _vars_of(new_idx)
        for iv in blk.iter_vars:
            if (id(iv.var) in used_old) != (id(iv.var) in used_new):
                has, lacks = (old_idx, new_idx) if id(iv.var) in used_old else (new_idx, old_idx)
                raise self._error(
                    prim, f"Error when applying {prim} on block {blk.name_hint}, the block "
                    f"itervar {iv.var.name} appears in {_tuple(has)}, but not in "
                    f"{_tuple(lacks)}.", [blk])
        body = self.mod[func_name].body
        scope = enclosing_block(path)
        writers = [r for r in scope_blocks(body, path)
                   if any(w.buffer is buf for w in r.block.writes)]
        if is_read:
            if writers:
                loc, pos = _detect_cache_loc(scope, writers[0].block, [blk])
            else:
                loc, pos = scope, 0
        else:
            related = [r.block for r in scope_blocks(body, path) if r is not realize
                       and any(rg.buffer is buf for rg in r.block.reads)]
            if related:
                loc, pos = _detect_cache_loc(scope, blk, related)
            else:
                loc = scope
                pos = len(scope.body.seq) if isinstance(scope.body, SeqStmt) else 1
        new = new_buffer(new_shape, buf.dtype, f"{buf.name}_{storage_scope}", storage_scope)
        # The copy stage: the used iterators, and the loops (below loc) their bindings use.
        kept = [(iv, v) for iv, v in zip(blk.iter_vars, realize.iter_values)
                if id(iv.var) in used_new]
        value_vars = _vars_of([v for _, v in kept])
        at = next(k for k, n in enumerate(path) if n is loc)
        loops = [n for n in path[at + 1:] if isinstance(n, For) and id(n.loop_var) in value_vars]
        vmap = {}
        for lp in loops:
            vmap[lp.loop_var] = Var(lp.loop_var.name, lp.loop_var.dtype)
        ivs, values = [], []
        for iv, v in kept:
            nv = Var(iv.var.name, iv.var.dtype)
            vmap[iv.var] = nv
            ivs.append(IterVar(iv.dom, nv, IterVar.DataPar))
            values.append(substitute(v, vmap))
        old_at = [substitute(e, vmap) for e in old_idx]
        new_at = [substitute(e, vmap) for e in new_idx]
        src, src_idx, dst, dst_idx = (buf, old_at, new, new_at) if is_read else \
            (new, new_at, buf, old_at)
        stage_blk = SBlock(ivs, [BufferRegion.from_point(src, src_idx)],
                           [BufferRegion.from_point(dst, dst_idx)],
                           self._unique_block_name(func_name, new.name),
                           BufferStore(dst, BufferLoad(src, src_idx), dst_idx))
        stage = SBlockRealize(values, const(True, "bool"), stage_blk)
        for lp in reversed(loops):
            stage = For(vmap[lp.loop_var], lp.min, lp.extent, ForKind.SERIAL, stage)
        # Rewrite the block, insert the stage, allocate the cache in the scope block.
        new_scope = _Reaccess(blk, buf, new, new_idx, not is_read).visit_stmt(scope)
        new_loc = new_scope if loc is scope else _find_same(new_scope, loc)
        inserted = new_loc.replace(body=_insert_stage(new_loc.body, pos, stage))
        new_scope = inserted if loc is scope else replace_stmts(new_scope, {id(new_loc): inserted})
        new_scope = new_scope.replace(alloc_buffers=tuple(new_scope.alloc_buffers) + (new,))
        self._commit(func_name, replace_stmts(body, {id(scope): new_scope}))
        rv = self._new_rv(SBlockRV, func_name, stage_blk.name_hint)
        key = "read_buffer_index" if is_read else "write_buffer_index"
        self._record(prim, kwargs={"block": block, key: index, "storage_scope": storage_scope,
                                   "index_map": index_map}, outputs=[rv])
        return rv

    def reindex_cache_read(self, block: SBlockRV | str, read_buffer_index: int,
                           storage_scope: str, index_map) -> SBlockRV:
        """Read the block's ``read_buffer_index``-th buffer through a cache indexed by
        ``index_map`` of the block's iterators (see the module docstring).

        Raises
        ------
        ScheduleError
            If the access is not a single point, the index map does not use exactly the
            iterators the access uses, or the storage scope is invalid.
        """
        return self._reindex_cache(block, read_buffer_index, storage_scope, index_map, True)

    def reindex_cache_write(self, block: SBlockRV | str, write_buffer_index: int,
                            storage_scope: str, index_map) -> SBlockRV:
        """Write the block's ``write_buffer_index``-th buffer through a cache indexed by
        ``index_map`` of the block's iterators, copied back after it (see the module
        docstring)."""
        return self._reindex_cache(block, write_buffer_index, storage_scope, index_map, False)


def _tuple(exprs):
    return "(" + ", ".join(str(e) for e in exprs) + ("," if len(exprs) == 1 else "") + ")"


def _find_same(root, old_loop):
    """The loop in the rewritten tree with ``old_loop``'s loop variable."""
    path = find_path(root, lambda n: isinstance(n, For) and n.loop_var is old_loop.loop_var)
    if path is None:
        raise InternalError("reindex_cache: the insertion loop vanished while rewriting")
    return path[-1]
