"""Passes that lower schedulable blocks (``SBlock``) into plain ``tirx`` loop nests.

Run in this order (``tvm.tirx.compilation_pipeline`` does):

1. :func:`LowerInitBlock`: a block's ``init`` statement runs when every reduction iterator
   sits at its first value: ``if v_k == 0: init`` is put in front of the body.
2. :func:`ConvertBlocksToOpaque`: block iterators are replaced by their bound values
   (``v_i`` -> ``i``), so the block no longer needs them (it becomes *opaque*).
3. :func:`LowerOpaqueBlock`: the blocks themselves go: ``alloc_buffers`` become
   ``AllocBuffer`` statements, a realize predicate becomes an ``IfThenElse``, loops whose
   ``thread_binding`` is set are kept as they are. Loads and stores of ``match_buffers``
   become accesses of their source regions (other uses of such a buffer, e.g. its data
   pointer, raise a ``ValueError`` naming the block).

Before::

    for i, k in T.grid(4, 8):
        with T.sblock("C"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            with T.init():
                C[v_i] = T.float32(0)
            C[v_i] = C[v_i] + A[v_i, v_k]

After all three::

    for i, k in T.grid(4, 8):
        if k == 0:
            C[i] = T.float32(0)
        C[i] = C[i] + A[i, k]
"""

from __future__ import annotations

from ...ir.expr import Range
from ...ir.transform import PassInfo
from ...tirx.expr import EQ, IntImm
from ...tirx.function import PrimFunc
from ...tirx.generic import convert
from ...tirx.stmt import (
    AllocBuffer,
    BufferRegion,
    IfThenElse,
    IterVar,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ...tirx.stmt_functor import StmtExprMutator, StmtMutator, substitute
from ...tirx.transform.common import PrimFuncPass

__all__ = ["ConvertBlocksToOpaque", "LowerInitBlock", "LowerOpaqueBlock", "lower_sblocks"]


def _is_true(expr) -> bool:
    return isinstance(expr, IntImm) and expr.value != 0


# The three lowerers rewrite blocks, which are statements: expressions cannot hold any, so the
# walks are statement-only (``StmtMutator``; ``substitute`` rewrites the expressions it must).


class _InitLowerer(StmtMutator):
    def visit_sblock_(self, op: SBlock):
        op = super().visit_sblock_(op)
        if op.init is None:
            return op
        cond = None
        for iv in op.iter_vars:
            if iv.iter_type != IterVar.CommReduce:
                continue
            term = EQ(iv.var, iv.dom.min)
            cond = term if cond is None else cond & term
        init = op.init if cond is None else IfThenElse(cond, op.init)
        return op.replace(init=None, body=SeqStmt.flatten(init, op.body))


def _substitute_region(region: BufferRegion, vmap) -> BufferRegion:
    """``region`` with ``vmap`` applied to each range's min and extent."""
    # ``substitute`` walks statements and expressions; a BufferRegion is neither, so it
    # came back unchanged and the reads/writes kept the removed block iterators.
    ranges = [
        Range.from_min_extent(substitute(r.min, vmap), substitute(r.extent, vmap))
        for r in region.region
    ]
    return BufferRegion(region.buffer, ranges)


class _Opaquer(StmtMutator):
    def visit_sblock_realize_(self, op: SBlockRealize):
        op = super().visit_sblock_realize_(op)
        block = op.block
        if not block.iter_vars:
            return op
        # One lookup function for all the substitutions below (a dict would be converted into
        # one again by every ``substitute`` call: one per region bound).
        vmap = {iv.var: convert(value, iv.var.dtype)
                for iv, value in zip(block.iter_vars, op.iter_values)}.get
        new_block = SBlock(
            (),
            reads=[_substitute_region(r, vmap) for r in block.reads],
            writes=[_substitute_region(w, vmap) for w in block.writes],
            name_hint=block.name_hint,
            body=substitute(block.body, vmap),
            init=None if block.init is None else substitute(block.init, vmap),
            alloc_buffers=block.alloc_buffers,
            match_buffers=[
                mb.replace(source=_substitute_region(mb.source, vmap))
                for mb in block.match_buffers
            ],
            annotations=block.annotations,
        )
        return SBlockRealize((), op.predicate, new_block)


class _OpaqueLowerer(StmtMutator):
    def visit_sblock_realize_(self, op: SBlockRealize):
        op = super().visit_sblock_realize_(op)
        block = op.block
        if block.iter_vars:
            raise ValueError(
                f"LowerOpaqueBlock: block '{block.name_hint}' still has iterators; "
                "run ConvertBlocksToOpaque first"
            )
        if block.match_buffers:
            block = block.replace(match_buffers=(),
                                  body=_MatchBufferInliner(block).visit_stmt(block.body))
        if block.init is not None:
            raise ValueError(
                f"LowerOpaqueBlock: block '{block.name_hint}' still has an init statement; "
                "run LowerInitBlock first"
            )
        body = block.body
        if not _is_true(op.predicate):
            body = IfThenElse(op.predicate, body)
        allocs = [AllocBuffer(buf) for buf in block.alloc_buffers]
        return SeqStmt.flatten(allocs, body)


class _MatchBufferInliner(StmtExprMutator):
    """Accesses of a block's ``match_buffers`` become accesses of their source regions:
    ``M[i]`` of ``M = match_buffer(X[a, b:b + 4])`` is ``X[a, b + i]`` (the buffer's dims
    match the region's trailing dims; leading region dims sit at their minimum)."""

    def __init__(self, block):
        self.block = block
        self.table = {id(mb.buffer): mb for mb in block.match_buffers}
        for mb in block.match_buffers:
            if not mb.buffer.strides and not _is_compact(mb.source):
                raise ValueError(
                    f"LowerOpaqueBlock: match_buffer {mb.buffer.name} of block "
                    f"'{block.name_hint}' has no strides, so its source region "
                    f"{mb.source.buffer.name}{[str(r.min) for r in mb.source.region]} must be "
                    "contiguous in memory (full extent in every dimension inside the first "
                    "one that spans several elements)")

    def _indices(self, mb, indices):
        region = mb.source.region
        lead = len(region) - len(indices)
        if lead < 0:
            raise ValueError(
                f"LowerOpaqueBlock: match_buffer {mb.buffer.name} of block "
                f"'{self.block.name_hint}' has more dimensions than its source region")
        out = [r.min for r in region[:lead]]
        for r, i in zip(region[lead:], indices):
            out.append(i if _is_zero(r.min) else r.min + i)
        return out

    def visit_buffer_load_(self, op):
        op = super().visit_buffer_load_(op)
        mb = self.table.get(id(op.buffer))
        if mb is None:
            return op
        return op.replace(buffer=mb.source.buffer, indices=tuple(self._indices(mb, op.indices)))

    def visit_buffer_store_(self, op):
        op = super().visit_buffer_store_(op)
        mb = self.table.get(id(op.buffer))
        if mb is None:
            return op
        return op.replace(buffer=mb.source.buffer, indices=tuple(self._indices(mb, op.indices)))

    def visit_var_(self, op):
        for mb in self.block.match_buffers:
            if op is mb.buffer.data:
                raise ValueError(
                    f"LowerOpaqueBlock: block '{self.block.name_hint}' uses the data pointer "
                    f"of match_buffer {mb.buffer.name}; only loads and stores of match "
                    "buffers are lowered so far")
        return op


def _is_compact(region) -> bool:
    """Whether a buffer region is one contiguous run of elements."""
    shape = region.buffer.shape
    spans = False
    for r, extent in zip(region.region, shape):
        if spans and not (_is_zero(r.min) and _same_int(r.extent, extent)):
            return False
        if not _same_int(r.extent, 1):
            spans = True
    return True


def _same_int(a, b) -> bool:
    a = a.value if isinstance(a, IntImm) else a
    b = b.value if isinstance(b, IntImm) else b
    return a is b or (isinstance(a, int) and isinstance(b, int) and a == b)


def _is_zero(expr) -> bool:
    return isinstance(expr, IntImm) and expr.value == 0


def _apply(mutator_cls, drop_s_tir=False):
    def run(func: PrimFunc, mod, ctx):
        body = mutator_cls()(func.body)
        if body is not func.body:
            func = func.with_body(body)
        if drop_s_tir and func.get_attr("s_tir") is not None:
            func = func.without_attr("s_tir")
        return func

    return run


def LowerInitBlock():
    """Turn each block's ``init`` into a guarded statement in front of its body."""
    return PrimFuncPass(_apply(_InitLowerer), PassInfo(0, "s_tir.LowerInitBlock"))


def ConvertBlocksToOpaque():
    """Substitute block iterators by their bound values, leaving iterator-free blocks."""
    return PrimFuncPass(_apply(_Opaquer), PassInfo(0, "s_tir.ConvertBlocksToOpaque"))


def LowerOpaqueBlock():
    """Remove iterator-free blocks: allocations become ``AllocBuffer``, predicates ``if``."""
    return PrimFuncPass(
        _apply(_OpaqueLowerer, drop_s_tir=True), PassInfo(0, "s_tir.LowerOpaqueBlock")
    )


def lower_sblocks(func: PrimFunc) -> PrimFunc:
    """All three block-lowering steps on one function (a helper for tests and the driver)."""
    for mutator_cls in (_InitLowerer, _Opaquer):
        func = _apply(mutator_cls)(func, None, None)
    return _apply(_OpaqueLowerer, drop_s_tir=True)(func, None, None)
