"""``ThreadSync(scope)``: insert ``T.tvm_storage_sync(scope)`` where threads share memory.

Inside a GPU kernel (below the first thread-bound loop or ``thread_extent`` attribute), a
barrier is inserted in front of a statement that

* reads a ``scope`` buffer written since the last barrier (read after write), or
* writes a ``scope`` buffer read since the last barrier (write after read).

Two writes with no read between them are not separated (a loop filling a tile writes
distinct elements from every thread).

The analysis is conservative: every access counts as possibly another thread's (TVM also
proves some accesses thread-private; this pass does not). Barriers go as high as possible:
in front of the outermost statement of the current sequence that contains the conflicting
access, never inside an ``if`` whose condition may differ between threads (it uses a
``threadIdx`` variable, a variable bound inside the kernel, or a memory load; the ``if`` is
then treated as one statement) and never inside a thread-bound loop whose extent is smaller than the others
of its tag. Serial loops are analysed twice so that a conflict between the end of one
iteration and the start of the next gets a barrier at the top of the body.
Existing ``tvm_storage_sync`` calls are respected (they reset the pending accesses).

Only ``"shared"`` (and ``"shared.dyn"``) is supported; other scopes raise ``ValueError``.
"""

from __future__ import annotations

from ...ir.transform import PassInfo
from ..expr import Call, Var
from ..function import PrimFunc
from ..op import tvm_storage_sync
from ..stmt import (
    AttrStmt,
    BufferLoad,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    SeqStmt,
    Stmt,
)
from ..stmt_functor import post_order_visit
from .common import PrimFuncPass

__all__ = ["ThreadSync"]


def _sync(scope):
    return Evaluate(tvm_storage_sync(scope))


def _is_sync(stmt) -> bool:
    return (isinstance(stmt, Evaluate) and isinstance(stmt.value, Call)
            and getattr(stmt.value.op, "name", "") == "tirx.tvm_storage_sync")


def _thread_info(node):
    if isinstance(node, For) and node.kind == ForKind.THREAD_BINDING and \
            node.thread_binding is not None:
        tag = node.thread_binding.thread_tag
        return (tag, node.loop_var) if tag.startswith(("threadIdx", "blockIdx")) else None
    if isinstance(node, AttrStmt) and node.attr_key == "thread_extent":
        return node.node.thread_tag, node.node.var
    return None


class _State:
    __slots__ = ("reads", "writes")

    def __init__(self, reads=(), writes=()):
        self.reads, self.writes = set(reads), set(writes)

    def copy(self):
        return _State(self.reads, self.writes)

    def union(self, other):
        return _State(self.reads | other.reads, self.writes | other.writes)

    def same(self, other) -> bool:
        return self.reads == other.reads and self.writes == other.writes


class _Planner:
    def __init__(self, scopes):
        self.scopes = scopes
        self.thread_vars = set()
        self.full_extent = {}

    def accesses(self, stmt):
        """``(reads, writes)``: ids of the ``scope`` buffers' data vars ``stmt`` touches."""
        reads, writes = set(), set()

        def visit(node):
            if isinstance(node, BufferLoad) and node.buffer.scope() in self.scopes:
                reads.add(id(node.buffer.data))
            elif isinstance(node, BufferStore) and node.buffer.scope() in self.scopes:
                writes.add(id(node.buffer.data))

        post_order_visit(stmt, visit)
        return reads, writes

    def conflicts(self, stmt, state) -> bool:
        reads, writes = self.accesses(stmt)
        return bool(reads & state.writes or writes & state.reads)

    def thread_dependent(self, expr) -> bool:
        found = False

        def visit(node):
            nonlocal found
            # A threadIdx variable, a variable bound inside the kernel, or a memory load: the
            # value may differ between threads (a barrier under it could diverge).
            if isinstance(node, Var) and id(node) in self.thread_vars or \
                    isinstance(node, BufferLoad):
                found = True

        post_order_visit(expr, visit)
        return found

    def plan(self, stmt, state):
        """``(new_stmt, state_after)`` with barriers inserted; ``state`` is not modified."""
        if _is_sync(stmt):
            return stmt, _State()
        if isinstance(stmt, SeqStmt):
            out, cur = [], state
            for item in stmt.seq:
                if self.is_compound(item) and self.conflicts(item, cur):
                    out.append(_sync(self.scopes[0]))
                    cur = _State()
                new, cur = self.plan(item, cur)
                out.append(new)
            return SeqStmt.flatten(*out), cur
        if not self.is_compound(stmt):
            reads, writes = self.accesses(stmt)
            if reads & state.writes or writes & state.reads:
                cur = _State(reads, writes)
                return SeqStmt([_sync(self.scopes[0]), stmt]), cur
            return stmt, _State(state.reads | reads, state.writes | writes)
        if isinstance(stmt, For):
            info = _thread_info(stmt)
            if info is not None:
                if not info[0].startswith("blockIdx"):
                    self.thread_vars.add(id(info[1]))
                body, after = self.plan(stmt.body, state)
                return stmt.replace(body=body), after
            # Two passes: the state at the top of later iterations includes the end of the
            # body; iterate until it no longer grows.
            entry = state
            for _ in range(4):
                body, after = self.plan(stmt.body, entry)
                nxt = entry.union(after)
                if nxt.same(entry):
                    break
                entry = nxt
            return stmt.replace(body=body), state.union(after)
        if isinstance(stmt, IfThenElse):
            then, s1 = self.plan(stmt.then_case, state)
            if stmt.else_case is not None:
                other, s2 = self.plan(stmt.else_case, state)
            else:
                other, s2 = None, state
            return stmt.replace(then_case=then, else_case=other), s1.union(s2)
        if isinstance(stmt, AttrStmt):
            info = _thread_info(stmt)
            if info is not None and not info[0].startswith("blockIdx"):
                self.thread_vars.add(id(info[1]))
            body, after = self.plan(stmt.body, state)
            return stmt.replace(body=body), after
        raise TypeError(f"ThreadSync: unexpected compound statement {type(stmt).__name__}")

    def is_compound(self, stmt) -> bool:
        """Statements the planner descends into (barriers may go inside them)."""
        if isinstance(stmt, SeqStmt):
            return True
        if isinstance(stmt, For):
            info = _thread_info(stmt)
            if info is not None:
                if info[0].startswith("blockIdx"):
                    return True  # every thread of a CTA has the same blockIdx
                # A loop over fewer threads than the block has is divergent.
                full = self.full_extent.get(info[0])
                return full is not None and getattr(stmt.extent, "value", None) == full
            return True
        if isinstance(stmt, AttrStmt):
            return True
        if isinstance(stmt, IfThenElse):
            return not self.thread_dependent(stmt.condition)
        return False


def _full_extents(kernel):
    """``{tag: extent}`` of the widest thread loop of each tag (``None``: not constant)."""
    extents = {}

    def visit(node):
        info = _thread_info(node)
        if info is None:
            return
        ext = node.extent if isinstance(node, For) else node.value
        value = getattr(ext, "value", None)
        old = extents.get(info[0])
        if value is None:
            extents[info[0]] = None
        elif old is not None or info[0] not in extents:
            extents[info[0]] = max(value, old or 0)

    post_order_visit(kernel, visit)
    return extents


def _bound_vars(kernel):
    """Ids of the variables bound inside ``kernel`` by ``Bind``/``LetStmt``."""
    out = set()

    def visit(node):
        if type(node).__name__ in ("Bind", "LetStmt"):
            out.add(id(node.var))

    post_order_visit(kernel, visit)
    return out


def _visit_kernels(stmt, planner):
    """Apply the planner to each kernel (the outermost thread-bound statements)."""
    if _thread_info(stmt) is not None:
        planner.thread_vars = _bound_vars(stmt)
        planner.full_extent = _full_extents(stmt)
        new, _ = planner.plan(stmt, _State())
        return new
    if isinstance(stmt, SeqStmt):
        items = [_visit_kernels(s, planner) for s in stmt.seq]
        return stmt if all(a is b for a, b in zip(items, stmt.seq)) else SeqStmt(items)
    for name in ("body", "then_case", "else_case"):
        child = getattr(stmt, name, None)
        if isinstance(child, Stmt):
            new = _visit_kernels(child, planner)
            if new is not child:
                stmt = stmt.replace(**{name: new})
    return stmt


def ThreadSync(storage_scope: str):
    """Insert ``tvm_storage_sync(storage_scope)`` barriers (see the module docstring)."""
    if storage_scope not in ("shared", "shared.dyn"):
        raise ValueError(
            f"ThreadSync: storage scope {storage_scope!r} is not supported yet (only 'shared' "
            "and 'shared.dyn')"
        )
    scopes = (storage_scope,) if storage_scope == "shared.dyn" else ("shared", "shared.dyn")

    def run(func: PrimFunc, mod, ctx):
        body = _visit_kernels(func.body, _Planner(scopes))
        return func if body is func.body else func.with_body(body)

    return PrimFuncPass(run, PassInfo(0, "tirx.ThreadSync"))
