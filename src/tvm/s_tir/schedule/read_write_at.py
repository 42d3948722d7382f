"""``read_at`` / ``write_at``: copy a buffer's tile into another storage scope at a loop.

TVM 0.27's ``ReadAt``/``WriteAt``: under a loop, the part of a buffer that the loop body's
blocks read (write) in one iteration of the loop -- their access regions relaxed over the loops
between them and the loop, and over the thread-bound loops above whose threads share the new
storage scope -- is copied by one ``auto_copy`` block into a buffer ``<buffer>_<scope>``
allocated by the scope block: before the first statement of the loop body that reads it
(``read_at``; that statement and the following ones read the copy), or after the last one that
writes it (``write_at``; those statements write the copy). The copy block's iter vars are the
loop variables its region depends on; its body is a loop nest over the region.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx import expr as E
from ...tirx.expr_functor import post_order_visit
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
from ...tirx.stmt_functor import substitute
from .base import SBlockRV
from .cache import SwapBuffer, check_storage_scope
from .lookup import enclosing_block
from .state import iter_blocks, new_buffer, replace_stmts

__all__ = ["ReadWriteAtPrimitives"]


def _storage_rank(scope):
    """TVM's ``StorageRank``: global 0, shared 1, warp 2, local 3."""
    for prefix, rank in (("shared", 1), ("warp", 2), ("local", 3)):
        if scope.startswith(prefix):
            return rank
    return 0


def _thread_shares(loop, rank):
    """TVM's ``CanRelaxStorageUnderThread`` for a thread-bound loop and a storage rank."""
    if loop.kind != ForKind.THREAD_BINDING or loop.thread_binding is None:
        return False
    tag = loop.thread_binding.thread_tag
    if tag.startswith("blockIdx"):
        thread_rank, dim = 0, tag[-1]
    elif tag.startswith(("threadIdx", "vthread", "cthread")):
        thread_rank, dim = 1, tag[-1]
    else:
        return False
    if rank == 2:
        return tag == "threadIdx.x" and dim == "x"
    return rank <= thread_rank


def _copy_block(src, dst, name, loop_dom, domain):
    """TVM's copy block: iter vars for the outer loop variables of ``domain``, a loop nest
    ``ax*`` over it copying ``src`` to ``dst``, annotated ``auto_copy``."""
    remap, ivs, values = {}, [], []

    def bind(expr):
        def visit(node):
            if isinstance(node, E.Var) and node in loop_dom and node not in remap:
                v = E.Var(f"v{len(ivs)}", node.dtype)
                remap[node] = v
                ivs.append(IterVar(loop_dom[node], v, IterVar.DataPar))
                values.append(node)

        post_order_visit(expr, visit)
        return substitute(expr, remap)

    region = []
    for r in domain:
        lo = bind(r.min)
        region.append(Range.from_min_extent(lo, bind(r.extent)))
    axes = [E.Var(f"ax{i}", "int32") for i in range(len(region))]
    idx = [r.min + ax for r, ax in zip(region, axes)]
    body = BufferStore(dst, E.BufferLoad(src, idx), idx)
    for ax, r in reversed(list(zip(axes, region))):
        body = For(ax, const(0, "int32"), r.extent, ForKind.SERIAL, body)
    blk = SBlock(ivs, [BufferRegion(src, region)], [BufferRegion(dst, region)], name, body,
                 annotations={"auto_copy": True})
    return SBlockRealize(values, const(True, "bool"), blk)


class ReadWriteAtPrimitives:
    """Mixin: ``read_at`` and ``write_at``."""

    def read_at(self, loop, block: SBlockRV | str, read_buffer_index,
                storage_scope: str) -> SBlockRV:
        """Copy what ``loop``'s body reads of a buffer, per iteration, into ``storage_scope``.

        As TVM 0.27 (see the module docstring): the ``auto_copy`` block goes before the first
        statement of the loop body reading the buffer, which with the statements after it
        read the copy ``<buffer>_<scope>``.

        Parameters
        ----------
        loop : LoopRV
            The loop at which the copy is made.
        block : SBlockRV or str
            A block under ``loop`` reading the buffer.
        read_buffer_index : int, str or Var
            The buffer, as a position in the block's reads, a name or a data variable.
        storage_scope : str
            The storage scope of the copy.

        Returns
        -------
        SBlockRV
            The copy block.

        Raises
        ------
        ScheduleError
            If the scope is invalid, the index out of range, nothing under the loop reads the
            buffer, or the loop body writes it after the first read.
        """
        return self._read_write_at("read_at", loop, block, read_buffer_index, storage_scope,
                                   True)

    def write_at(self, loop, block: SBlockRV | str, write_buffer_index,
                 storage_scope: str) -> SBlockRV:
        """Make ``loop``'s body write a buffer through a copy in ``storage_scope``.

        As TVM 0.27 (see the module docstring): the statements of the loop body up to the last
        one writing the buffer write the copy ``<buffer>_<scope>``, and an ``auto_copy`` block
        after them copies what they wrote, per iteration, back to the buffer.

        Parameters
        ----------
        loop : LoopRV
            The loop at which the copy is made.
        block : SBlockRV or str
            A block under ``loop`` writing the buffer.
        write_buffer_index : int, str or Var
            The buffer, as a position in the block's writes, a name or a data variable.
        storage_scope : str
            The storage scope of the copy.

        Returns
        -------
        SBlockRV
            The copy block.

        Raises
        ------
        ScheduleError
            If the scope is invalid, the index out of range, nothing under the loop writes the
            buffer, or the loop body reads it after the last write.
        """
        return self._read_write_at("write_at", loop, block, write_buffer_index, storage_scope,
                                   False)

    def _read_write_at(self, prim, loop, block, index, storage_scope, is_read):
        block = self._as_block(block)
        field = "reads" if is_read else "writes"
        index = self._buffer_index(self.get(block), index, field, prim)
        check_storage_scope(self, prim, storage_scope)
        func_name, bpath = self._block(block, prim)
        blk = bpath[-1].block
        regions = getattr(blk, field)
        if not isinstance(index, int) or not 0 <= index < len(regions):
            raise self._error(
                prim, f"The {field[:-1]} buffer index {index} is out of range: block "
                f"{blk.name_hint!r} has {len(regions)} {field} buffers "
                f"({[r.buffer.name for r in regions]})", [blk])
        src = regions[index].buffer
        lfunc, lpath = self._loop(loop, prim)
        for_loop = lpath[-1]
        if lfunc != func_name or not any(n is for_loop for n in bpath):
            raise self._error(
                prim, f"The block {blk.name_hint!r} is not under the loop "
                f"{for_loop.loop_var.name!r}", [blk, for_loop])
        dst = new_buffer(src.shape, src.dtype, f"{src.name}_{storage_scope}", storage_scope)
        rank = _storage_rank(storage_scope)
        # Loops above (and at) ``loop`` whose threads share the new scope are relaxed too.
        at = next(k for k, n in enumerate(lpath) if n is for_loop)
        outer_dom = {}
        for node in lpath[:at + 1]:
            if isinstance(node, For) and rank != 0 and _thread_shares(node, rank):
                outer_dom[node.loop_var] = Range.from_min_extent(node.min, node.extent)
        loop_dom = {}
        for node in reversed(lpath[:at + 1]):
            if isinstance(node, (SBlock, SBlockRealize)):
                break
            if not isinstance(node, For):
                continue
            loop_dom[node.loop_var] = Range.from_min_extent(node.min, node.extent)
        items = list(for_loop.body.seq) if isinstance(for_loop.body, SeqStmt) \
            else [for_loop.body]
        ana = Analyzer()
        reads_at, writes_at, bounds = [], [], []
        for i, item in enumerate(items):
            has_r = has_w = False
            for realize, rpath in iter_blocks(item):
                b = realize.block
                r = any(x.buffer is src for x in b.reads)
                w = any(x.buffer is src for x in b.writes)
                has_r, has_w = has_r or r, has_w or w
                if not (r if is_read else w):
                    continue
                dom = dict(outer_dom)
                for node in rpath:
                    if isinstance(node, For):
                        dom[node.loop_var] = Range.from_min_extent(node.min, node.extent)
                vmap = {iv.var: v for iv, v in zip(b.iter_vars, realize.iter_values)}
                for x in getattr(b, field):
                    if x.buffer is src:
                        bounds.append([
                            (ana.int_set(substitute(rg.min, vmap), dom).min_value,
                             ana.int_set(substitute(rg.min + rg.extent - 1, vmap),
                                         dom).max_value)
                            for rg in x.region])
            if has_r:
                reads_at.append(i)
            if has_w:
                writes_at.append(i)
        if is_read:
            if not reads_at or (writes_at and writes_at[-1] >= reads_at[0]):
                raise self._error(
                    prim, f"read_at needs the body of loop {for_loop.loop_var.name!r} to read "
                    f"buffer {src.name!r} and not write it after the first read", [for_loop])
            pos = reads_at[0]
            swap = range(pos, len(items))
        else:
            if not writes_at or (reads_at and reads_at[-1] > writes_at[-1]):
                raise self._error(
                    prim, f"write_at needs the body of loop {for_loop.loop_var.name!r} to "
                    f"write buffer {src.name!r} and not read it after the last write",
                    [for_loop])
            pos = writes_at[-1] + 1
            swap = range(pos)
        domain = []
        for dim in range(len(src.shape)):
            los = [b[dim][0] for b in bounds]
            his = [b[dim][1] for b in bounds]
            if any(v is None for v in los + his):
                lo, hi = const(0, src.shape[dim].dtype), src.shape[dim] - 1
            else:
                lo, hi = los[0], his[0]
                for v in los[1:]:
                    lo = E.Min(lo, v)
                for v in his[1:]:
                    hi = E.Max(hi, v)
            lo = ana.simplify(lo)
            domain.append(Range.from_min_extent(lo, ana.simplify(hi + 1 - lo)))
        swapper = SwapBuffer(src, dst)
        for i in swap:
            items[i] = swapper.visit_stmt(items[i])
        copy_name = self._unique_block_name(func_name, dst.name)
        copy = _copy_block(src, dst, copy_name, loop_dom, domain) if is_read else \
            _copy_block(dst, src, copy_name, loop_dom, domain)
        items.insert(pos, copy)
        new_loop = for_loop.replace(body=SeqStmt(items))
        scope = enclosing_block(lpath + [None])
        new_scope = replace_stmts(scope, {id(for_loop): new_loop})
        new_scope = new_scope.replace(alloc_buffers=tuple(scope.alloc_buffers) + (dst,))
        body = self.mod[func_name].body
        self._commit(func_name, replace_stmts(body, {id(scope): new_scope}))
        rv = self._new_rv(SBlockRV, func_name, copy_name)
        self._record(prim, kwargs={"loop": loop, "block": block,
                                   f"{field[:-1]}_buffer_index": index,
                                   "storage_scope": storage_scope}, outputs=[rv])
        return rv
