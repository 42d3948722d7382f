"""``StorageRewrite``: reuse the memory of dead allocations and drop unused ones.

Runs on flattened code (after ``FlattenBuffer``). Within each statement sequence, an
``AllocBuffer`` whose buffer is first used after another buffer of the same sequence is used
for the last time takes over that buffer's memory, when both have the same dtype and scope
and the new one is not larger (constant sizes, or the same size expression). Its
``AllocBuffer`` becomes a ``DeclBuffer`` of a view on the older buffer's ``data`` pointer.
Allocations that are never accessed are removed.

Before::

    T1 = T.alloc_buffer((1024,))
    T2 = T.alloc_buffer((1024,))
    for i in range(1024): T1[i] = A[i] * 2
    for i in range(1024): B[i] = T1[i] + 1
    for i in range(1024): T2[i] = B[i] * 3      # T1 is dead here
    for i in range(1024): C[i] = T2[i]

After: ``T2 = T.decl_buffer((1024,), data=T1.data)``; only ``T1`` is allocated.

Limitations: lifetimes are computed per statement of one sequence (a buffer used inside a loop
is live for the whole loop); buffers are not merged across different sequences or into one
larger arena, and no buffer is split.
"""

from __future__ import annotations

from ...ffi.structural import structural_equal
from ...ir.transform import PassInfo
from ..expr import IntImm
from ..function import PrimFunc
from ..stmt import AllocBuffer, BufferLoad, BufferStore, DeclBuffer, Evaluate, SeqStmt
from ..stmt_functor import StmtExprMutator, StmtExprVisitor, StmtMutator
from .common import PrimFuncPass

__all__ = ["StorageRewrite", "remove_unused_allocations", "reuse_storage"]


class _DataUses(StmtExprVisitor):
    """``id(buffer.data)`` of every buffer loaded, stored or declared (aliased) under a node."""

    # A plain visitor with three hooks: cheaper than ``post_order_visit``'s per-node callback
    # and seen-set, though a subtree shared by several statements is walked once per use.
    def __init__(self):
        self.used = set()

    def visit_buffer_load_(self, op: BufferLoad):
        self.used.add(id(op.buffer.data))
        super().visit_buffer_load_(op)

    def visit_buffer_store_(self, op: BufferStore):
        self.used.add(id(op.buffer.data))
        super().visit_buffer_store_(op)

    def visit_decl_buffer_(self, op: DeclBuffer):
        self.used.add(id(op.buffer.data))  # DeclBuffer aliasing
        super().visit_decl_buffer_(op)


def _accessed_data_ids(stmt) -> set:
    uses = _DataUses()
    uses(stmt)
    return uses.used


class _Remover(StmtMutator):
    def __init__(self, used):
        super().__init__()
        self.used = used

    def visit_alloc_buffer_(self, op: AllocBuffer):
        if id(op.buffer.data) not in self.used:
            return Evaluate(0)
        return op


def remove_unused_allocations(func: PrimFunc) -> PrimFunc:
    """Remove the ``AllocBuffer`` statements whose buffer is never accessed."""
    body = _Remover(_accessed_data_ids(func.body))(func.body)
    return func if body is func.body else func.with_body(body)


def _fits(owner, buf) -> bool:
    """Whether ``buf`` can live in ``owner``'s memory."""
    if owner.dtype != buf.dtype or owner.scope() != buf.scope():
        return False
    if len(owner.shape) != 1 or len(buf.shape) != 1:
        return False
    a, b = owner.shape[0], buf.shape[0]
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return b.value <= a.value
    return structural_equal(a, b)


class _Planner(StmtMutator):
    """Plan reuse per sequence; record ``id(buffer) -> owner buffer`` in ``remap``."""

    def __init__(self):
        super().__init__()
        self.remap = {}
        self.dropped = set()  # ids of AllocBuffer statements to remove

    def visit_seq_stmt_(self, op: SeqStmt):
        op = super().visit_seq_stmt_(op)
        if not isinstance(op, SeqStmt):
            return op
        stmts = list(op.seq)
        allocs = [s for s in stmts if isinstance(s, AllocBuffer)]
        if len(allocs) < 2:
            return op
        ranges = {}
        for k, stmt in enumerate(stmts):
            if isinstance(stmt, AllocBuffer):
                continue
            ids = _accessed_data_ids(stmt)
            for alloc in allocs:
                if id(alloc.buffer.data) in ids:
                    lo, hi = ranges.get(id(alloc), (k, k))
                    ranges[id(alloc)] = (min(lo, k), max(hi, k))
        live = sorted((a for a in allocs if id(a) in ranges), key=lambda a: ranges[id(a)][0])
        pools = []  # [owner buffer, last statement index using the pool]
        for alloc in live:
            lo, hi = ranges[id(alloc)]
            for pool in pools:
                if pool[1] < lo and _fits(pool[0], alloc.buffer):
                    self.remap[id(alloc.buffer)] = pool[0]
                    self.dropped.add(id(alloc))
                    pool[1] = hi
                    break
            else:
                pools.append([alloc.buffer, hi])
        return op


class _Rewriter(StmtExprMutator):
    def __init__(self, remap, dropped):
        super().__init__()
        self.remap, self.dropped = remap, dropped
        self._views = {}

    def _view(self, buffer):
        owner = self.remap.get(id(buffer))
        if owner is None:
            return buffer
        view = self._views.get(id(buffer))
        if view is None:
            view = buffer.replace(data=owner.data)
            self._views[id(buffer)] = view
        return view

    def visit_buffer_use(self, buffer):
        return self._view(buffer)

    def visit_buffer_def(self, buffer):
        return self._view(buffer)

    def visit_alloc_buffer_(self, op: AllocBuffer):
        if id(op) in self.dropped:
            # The buffer stays declared, as a view of the owner's memory; ``data`` is given
            # explicitly, as the TVMScript parser does, so the function round-trips.
            view = self._view(op.buffer)
            return DeclBuffer(view, view.data)
        return op

    def visit_buffer_load_(self, op: BufferLoad):
        new = super().visit_buffer_load_(op)
        view = self._view(op.buffer)
        return new if view is op.buffer else BufferLoad(view, new.indices, new.predicate)

    def visit_buffer_store_(self, op: BufferStore):
        new = super().visit_buffer_store_(op)
        view = self._view(op.buffer)
        if view is op.buffer:
            return new
        return BufferStore(view, new.value, new.indices, new.predicate)


def reuse_storage(func: PrimFunc) -> PrimFunc:
    """Let allocations with disjoint lifetimes share memory (see the module docstring)."""
    planner = _Planner()
    planner(func.body)
    if not planner.remap:
        return func
    body = _Rewriter(planner.remap, planner.dropped)(func.body)
    body = SeqStmt.flatten(body)
    return func.with_body(body)


def StorageRewrite():
    """The pass object: ``tvm.tirx.transform.StorageRewrite()(mod)``."""
    return PrimFuncPass(lambda f, m, c: reuse_storage(remove_unused_allocations(f)),
                        PassInfo(0, "tirx.StorageRewrite"))
