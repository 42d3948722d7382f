"""``cache_inplace``: a block that reads and writes one buffer works on a copy of it.

TVM 0.27's ``CacheInplace`` is a cache read followed by a cache write of the same buffer,
both placed right around the block: a copy of the block's read region into a new buffer of
the given storage scope just before the block, the block reading and writing that buffer, and
a copy of its write region back just after it. Both copies go in the innermost loop holding
the block (the scope block's body when no loop does), and copy the whole region
(not compacted).
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx.stmt import For, SBlock, SeqStmt
from ...tirx.stmt_functor import substitute
from .base import SBlockRV
from .cache import SwapBuffer, _cache_stage, _insert_stage, check_storage_scope
from .lookup import enclosing_block
from .state import new_buffer, replace_stmts

__all__ = ["CacheInplacePrimitives"]


class _SwapData(SwapBuffer):
    """``SwapBuffer`` that also replaces the old buffer's data variable (``A.data`` passed to
    an extern call) by the new buffer's."""

    def visit_var_(self, op):
        """Return the new buffer's data variable for the old one's."""
        return self.new.data if op is self.old.data else op


def _bound_region(region, realize, ana):
    """``region`` of a block with its iter vars replaced by their bindings."""
    vmap = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
    return [Range.from_min_extent(ana.simplify(substitute(r.min, vmap)),
                                  ana.simplify(substitute(r.extent, vmap))) for r in region]


class CacheInplacePrimitives:
    """Mixin: ``cache_inplace``."""

    def cache_inplace(self, block: SBlockRV | str, read_buffer_index,
                      storage_scope: str) -> list[SBlockRV]:
        """Make a block that reads and writes a buffer work on a copy in ``storage_scope``.

        As TVM: a block copying the block's read region of the buffer into a new buffer
        ``<buffer>_<scope>`` goes right before the block, and a block copying its write region
        back goes right after it, both in the innermost loop holding the block; the block
        reads and writes the new buffer (its data variable too, as passed to extern calls).

        Parameters
        ----------
        block : SBlockRV or str
            The block that both reads and writes the buffer.
        read_buffer_index : int, str or Var
            The buffer, as a position in the block's reads, a buffer name or a data variable.
        storage_scope : str
            The storage scope of the copy (``"local"``, ``"shared"``, ``"global"`` ...).

        Returns
        -------
        list of SBlockRV
            The copy-in block and the copy-back block.

        Raises
        ------
        ScheduleError
            If the scope is invalid, the index is out of range, or the block does not both
            read and write the buffer.
        """
        prim = "cache_inplace"
        block = self._as_block(block)
        read_buffer_index = self._buffer_index(self.get(block), read_buffer_index, "reads",
                                               prim)
        check_storage_scope(self, prim, storage_scope)
        func_name, path = self._block(block, prim)
        realize = path[-1]
        blk = realize.block
        if not isinstance(read_buffer_index, int) or not \
                0 <= read_buffer_index < len(blk.reads):
            raise self._error(
                prim, f"The read buffer index {read_buffer_index} is out of range: block "
                f"{blk.name_hint!r} has {len(blk.reads)} read buffers "
                f"({[r.buffer.name for r in blk.reads]})", [blk])
        buf = blk.reads[read_buffer_index].buffer
        read = next(r for r in blk.reads if r.buffer is buf)
        write = next((w for w in blk.writes if w.buffer is buf), None)
        if write is None:
            raise self._error(
                prim, f"The target block {blk.name_hint!r} does not both read & write target "
                f"buffer {buf.name!r}.", [blk])
        body = self.mod[func_name].body
        scope = enclosing_block(path)
        # The innermost loop holding the block below its scope, else the scope block itself.
        at = next(k for k in range(len(path) - 1, -1, -1) if path[k] is scope)
        loops = [k for k in range(at + 1, len(path) - 1) if isinstance(path[k], For)]
        loc_k = loops[-1] if loops else at
        loc = path[loc_k]
        items = list(loc.body.seq) if isinstance(loc.body, SeqStmt) else [loc.body]
        pos, child = next((i, s) for k in range(loc_k + 1, len(path))
                          for i, s in enumerate(items) if s is path[k])
        new = new_buffer(buf.shape, buf.dtype, f"{buf.name}_{storage_scope}", storage_scope)
        ana = Analyzer()
        name_in = self._unique_block_name(func_name, new.name)
        stage_in = _cache_stage(buf, new, name_in, _bound_region(read.region, realize, ana),
                                True, is_read=True)
        # Block names are handles here, so the copy back gets its own name (TVM repeats it).
        taken = set(self._block_names(func_name)) | {name_in}
        name_out, i = new.name, 0
        while name_out in taken:
            i += 1
            name_out = f"{new.name}_{i}"
        stage_out = _cache_stage(new, buf, name_out, _bound_region(write.region, realize, ana),
                                 True, is_read=False)
        new_blk = _SwapData(buf, new).visit_stmt(blk)
        new_child = replace_stmts(child, {id(blk): new_blk})
        items[pos] = new_child
        new_body = _insert_stage(SeqStmt(items) if len(items) > 1 else items[0], pos + 1,
                                 stage_out)
        new_body = _insert_stage(new_body, pos, stage_in)
        new_loc = loc.replace(body=new_body)
        if isinstance(loc, SBlock) and loc is scope:
            new_loc = new_loc.replace(alloc_buffers=tuple(loc.alloc_buffers) + (new,))
            new_func_body = replace_stmts(body, {id(scope): new_loc})
        else:
            new_scope = replace_stmts(scope, {id(loc): new_loc})
            new_scope = new_scope.replace(alloc_buffers=tuple(scope.alloc_buffers) + (new,))
            new_func_body = replace_stmts(body, {id(scope): new_scope})
        self._commit(func_name, new_func_body)
        rv_in = self._new_rv(SBlockRV, func_name, name_in)
        rv_out = self._new_rv(SBlockRV, func_name, name_out)
        self._record(prim, kwargs={"block": block, "read_buffer_index": read_buffer_index,
                                   "storage_scope": storage_scope},
                     outputs=[rv_in, rv_out], returns_list=True)
        return [rv_in, rv_out]
