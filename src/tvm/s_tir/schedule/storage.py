"""Storage primitives: ``set_scope``, ``unsafe_set_dtype``, ``storage_align``,
``reorder_block_iter_var`` and ``unsafe_hide_buffer_access``."""

from __future__ import annotations

from ...tirx.buffer import decl_buffer
from ...tirx.expr import Cast
from ...tirx.stmt import BufferLoad
from .base import SBlockRV
from .cache import SwapBuffer
from .state import iter_blocks, new_buffer, replace_stmts

__all__ = ["StoragePrimitives"]


class _SetDtype(SwapBuffer):
    """Swap a buffer for one of another dtype, casting what is stored and loaded. A
    ``match_buffer`` view of the buffer changes dtype with it (as TVM)."""

    def __init__(self, old, new):
        super().__init__(old, new)
        self.pairs = {id(old): (old, new)}

    def visit_buffer_use(self, buffer):
        pair = self.pairs.get(id(buffer))
        return pair[1] if pair is not None else buffer

    visit_buffer_def = visit_buffer_use

    def visit_sblock_(self, op):
        for mb in op.match_buffers:
            if id(mb.source.buffer) in self.pairs and id(mb.buffer) not in self.pairs:
                view = mb.buffer
                fresh = decl_buffer(view.shape, self.new.dtype, view.name,
                                    strides=list(view.strides) or None,
                                    scope="" if view.scope() == "global" else view.scope(),
                                    offset_factor=view.offset_factor)
                self.pairs[id(view)] = (view, fresh)
        return super().visit_sblock_(op)

    def visit_buffer_load_(self, op):
        new = super().visit_buffer_load_(op)
        pair = self.pairs.get(id(op.buffer))
        if pair is not None:
            # A fresh load: its dtype is the new buffer's.
            return Cast(pair[0].dtype, BufferLoad(pair[1], new.indices, new.predicate))
        return new

    def visit_buffer_store_(self, op):
        new = super().visit_buffer_store_(op)
        pair = self.pairs.get(id(op.buffer))
        if pair is not None:
            return new.replace(value=Cast(pair[1].dtype, new.value))
        return new


class StoragePrimitives:
    """Mixin: change how a block's buffers are stored, or its iterator order."""

    def _allocated_write(self, block, buffer_index, primitive):
        func_name, path = self._block(block, primitive)
        blk = path[-1].block
        if not isinstance(buffer_index, int) or not 0 <= buffer_index < len(blk.writes):
            raise self._error(
                primitive, f"The write buffer index {buffer_index} is out of range: block "
                f"{blk.name_hint!r} writes {len(blk.writes)} buffers "
                f"({[w.buffer.name for w in blk.writes]})", [blk])
        buf = blk.writes[buffer_index].buffer
        body = self.mod[func_name].body
        owner = next((r.block for r, _ in iter_blocks(body)
                      if any(b is buf for b in r.block.alloc_buffers)), None)
        if owner is None:
            raise self._error(
                primitive, f"The input buffer {buf.name} is not allocated by a block. This "
                "means the buffer is either a function parameter or defined in `match_buffer` "
                "of a block", [blk])
        return func_name, blk, buf

    def set_scope(self, block: SBlockRV | str, buffer_index, storage_scope: str) -> None:
        """Move the block's ``buffer_index``-th written buffer (allocated in the function) to
        ``storage_scope``; the buffer is renamed ``<name>_<scope>``, as in TVM."""
        block = self._as_block(block)
        buffer_index = self._buffer_index(self.get(block), buffer_index, "writes", "set_scope")
        prim = "set_scope"
        if not isinstance(storage_scope, str):
            raise TypeError(f"set_scope: storage_scope must be a str, got {storage_scope!r}")
        func_name, _, buf = self._allocated_write(block, buffer_index, prim)
        if buf.scope() != storage_scope:
            new = new_buffer(buf.shape, buf.dtype, f"{buf.name}_{storage_scope}",
                             storage_scope)
            body = SwapBuffer(buf, new).visit_stmt(self.mod[func_name].body)
            self._commit(func_name, body)
        self._record(prim, kwargs={"block": block, "buffer_index": buffer_index,
                                   "storage_scope": storage_scope})

    def unsafe_set_dtype(self, block: SBlockRV | str, buffer_index: int, dtype: str) -> None:
        """Store the block's ``buffer_index``-th written buffer in ``dtype``: stores cast to it
        and loads cast back (unsafe: precision may be lost)."""
        block = self._as_block(block)
        prim = "unsafe_set_dtype"
        func_name, _, buf = self._allocated_write(block, buffer_index, prim)
        if buf.dtype != dtype:
            new = new_buffer(buf.shape, dtype, buf.name, buf.scope())
            body = _SetDtype(buf, new).visit_stmt(self.mod[func_name].body)
            self._commit(func_name, body)
        self._record(prim, kwargs={"block": block, "buffer_index": buffer_index,
                                   "dtype": dtype})

    def storage_align(self, block: SBlockRV | str, buffer_index: int, axis: int, factor: int,
                      offset: int) -> None:
        """Ask that the stride of ``axis`` of a written buffer be ``factor * k + offset``.

        Recorded as the block annotation ``buffer_dim_align`` (as in TVM); the lowering pass
        that applies it to the allocation is not part of this package.
        """
        block = self._as_block(block)
        prim = "storage_align"
        func_name, path = self._block(block, prim)
        blk = path[-1].block
        if not isinstance(buffer_index, int) or not 0 <= buffer_index < len(blk.writes):
            raise self._error(prim, f"The write buffer index {buffer_index} is out of range "
                              f"for block {blk.name_hint!r}", [blk])
        # As TVM: only a buffer a block allocates has a layout to align.
        _, _, buf = self._allocated_write(block, buffer_index, prim)
        ndim = len(buf.shape)
        if not -ndim <= axis < ndim:
            raise self._error(
                prim, f"The buffer to set storage alignment of, {buf.name}, has {ndim} "
                f"dimension(s), so `axis` is required to be in [{-ndim}, {ndim}) for "
                f"storage_align. However, the input `axis` is {axis}, which is out of the "
                "expected range", [blk])
        if factor <= 0:
            raise self._error(prim, f"storage_align: factor must be positive, got {factor}",
                              [blk])
        axis = axis % ndim
        anns = dict(blk.annotations or {})
        entries = [list(e) for e in anns.get("buffer_dim_align", ())]
        entries = [e for e in entries if e[:2] != [buffer_index, axis]]
        entries.append([buffer_index, axis, factor, offset])
        anns["buffer_dim_align"] = entries
        new = blk.replace(annotations=anns)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(blk): new}))
        self._record(prim, kwargs={"block": block, "buffer_index": buffer_index, "axis": axis,
                                   "factor": factor, "offset": offset})

    def reorder_block_iter_var(self, block: SBlockRV | str, new_order) -> None:
        """Permute the block's iteration variables (and their bindings)."""
        block = self._as_block(block)
        prim = "reorder_block_iter_var"
        func_name, path = self._block(block, prim)
        realize = path[-1]
        blk = realize.block
        order = [int(i) for i in new_order]
        if sorted(order) != list(range(len(blk.iter_vars))):
            raise self._error(
                prim, f"The user provided block itervar index order {tuple(order)} is not a "
                "valid permutation of [0, 1, ..., num_block_iter_vars-1] in block "
                f"{blk.name_hint!r}", [blk])
        new_blk = blk.replace(iter_vars=tuple(blk.iter_vars[i] for i in order))
        new = realize.replace(iter_values=tuple(realize.iter_values[i] for i in order),
                              block=new_blk)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(realize): new}))
        self._record(prim, kwargs={"block": block, "new_order": order})

    def unsafe_hide_buffer_access(self, block: SBlockRV, buf_type: str,
                                  buf_index_array) -> None:
        """Drop read (``buf_type="read"``) or write regions, by index, from the block's
        declared accesses (unsafe: dependence analysis no longer sees them)."""
        prim = "unsafe_hide_buffer_access"
        func_name, path = self._block(block, prim)
        blk = path[-1].block
        if buf_type not in ("read", "write"):
            raise self._error(prim, "The buffer type for hide_buffer_access schedule should "
                              f"either be 'read' or 'write', got {buf_type} instead", [blk])
        regions = blk.reads if buf_type == "read" else blk.writes
        indices = [int(i) for i in buf_index_array]
        for i in indices:
            if not 0 <= i < len(regions):
                raise self._error(
                    prim, "The buffer index array for hide_buffer_access schedule should be a "
                    f"list of integers between 0 and {len(regions) - 1}, got {i} instead", [blk])
        kept = tuple(r for i, r in enumerate(regions) if i not in indices)
        new = blk.replace(**{"reads" if buf_type == "read" else "writes": kept})
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(blk): new}))
        self._record(prim, kwargs={"block": block, "buf_type": buf_type,
                                   "buf_index_array": indices})

