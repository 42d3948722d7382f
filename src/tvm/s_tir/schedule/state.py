"""Schedule state: the module being scheduled, and the IR-tree helpers the primitives share.

IR nodes are immutable here, so a primitive never edits a statement: it builds the new
statements and :func:`replace_stmts` rebuilds the path from the function body down to them
(unchanged subtrees are kept as the same objects). Random variables stay valid across such
rebuilds because they are resolved by *stable identities*: a block by its name (unique in a
function), a loop by its loop variable object (loop rebuilds keep the variable).
"""

from __future__ import annotations

import enum

from ...ir.expr import Range
from ...tirx.expr import IntImm, Var
from ...tirx.stmt import (
    AttrStmt,
    For,
    IfThenElse,
    SBlock,
    SBlockRealize,
    SeqStmt,
    While,
)
from ...tirx.stmt_functor import StmtMutator, substitute

__all__ = [
    "ScheduleDebugMask",
    "ScheduleState",
    "StmtSRef",
    "children",
    "common_prefix_len",
    "const_int",
    "find_path",
    "iter_blocks",
    "new_buffer",
    "relax_region",
    "replace_stmts",
    "seq_of",
    "sref_of_path",
]


class StmtSRef:
    """A reference to a block or loop of the IR (``sch.get_sref``).

    ``stmt`` is the statement when the reference was taken; ``parent`` the nearest enclosing
    block or loop reference (``None`` at the function's root block). Two references are equal
    when they refer to the same statement.
    """

    def __init__(self, stmt, parent=None, seq_index=-1):
        self.stmt = stmt
        self.parent = parent
        self.seq_index = seq_index

    def same_as(self, other) -> bool:
        """Whether ``other`` refers to the same statement."""
        return isinstance(other, StmtSRef) and other.stmt is self.stmt

    def __eq__(self, other):
        return self.same_as(other)

    def __hash__(self):
        return id(self.stmt)

    @staticmethod
    def inline_mark() -> StmtSRef:
        """The marker location "inline" (of compute-location sampling)."""
        return _INLINE_MARK

    @staticmethod
    def root_mark() -> StmtSRef:
        """The marker location "root" (of compute-location sampling)."""
        return _ROOT_MARK

    def __repr__(self):
        kind = type(self.stmt).__name__ if self.stmt is not None else "mark"
        return f"StmtSRef({kind})"


_INLINE_MARK = StmtSRef(None)
_ROOT_MARK = StmtSRef(None)


def sref_of_path(path):
    """The :class:`StmtSRef` of the last block or loop on ``path`` (with its parents)."""
    sref = None
    for node in path:
        if isinstance(node, For):
            sref = StmtSRef(node, sref)
        elif isinstance(node, SBlockRealize):
            sref = StmtSRef(node.block, sref)
    return sref


class ScheduleDebugMask(enum.IntFlag):
    """``debug_mask`` bits of a Schedule; any of them (or ``"all"``) verifies each result."""

    VERIFY_SREF_TREE = 1
    VERIFY_CACHED_FLAGS = 2


def verifies(debug_mask) -> bool:
    """Whether a ``debug_mask`` asks for verification after every primitive."""
    if isinstance(debug_mask, str):
        if debug_mask not in ("all", "none"):
            raise ValueError(f"debug_mask must be 'all', 'none' or an int, got {debug_mask!r}")
        return debug_mask == "all"
    return int(debug_mask) != 0


class ScheduleState:
    """The module under scheduling (``sch.state``); ``mod`` is replaced by every primitive."""

    def __init__(self, mod, *, debug_mask="none", enable_check=True):
        from ...ir.module import IRModule  # Lazy: keeps this module's imports to the IR nodes.
        from ...tirx.function import PrimFunc

        if isinstance(mod, PrimFunc):
            mod = IRModule({"main": mod})
        self.mod = mod
        self.debug_mask = debug_mask
        self.enable_check = enable_check

    def _find(self, target):
        from ...tirx.function import PrimFunc  # Lazy: see __init__.

        for func in self.mod.functions.values():
            if not isinstance(func, PrimFunc):
                continue
            path = find_path(func.body, lambda n: n is target or (
                isinstance(n, SBlockRealize) and n.block is target))
            if path is not None:
                return path
        raise ValueError(
            f"ScheduleState: the {type(target).__name__} is not in the module (a primitive may "
            "have replaced it)"
        )

    def get_sref(self, stmt) -> StmtSRef:
        """The reference of a block or loop of the current module."""
        if not isinstance(stmt, (SBlock, For)):
            raise TypeError(f"get_sref expects an SBlock or For, got {type(stmt).__name__}")
        return sref_of_path(self._find(stmt))

    def get_sblock_scope(self, scope_root):
        """The dependencies among the child blocks of a block (a ``StmtSRef`` of it)."""
        from .sblock_scope import SBlockScope  # Lazy: sblock_scope builds on this module.

        block = scope_root.stmt if isinstance(scope_root, StmtSRef) else scope_root
        if not isinstance(block, SBlock):
            raise TypeError("get_sblock_scope expects the sref of a block")
        self._find(block)
        return SBlockScope(block)


def const_int(expr):
    """The Python int of a constant integer expression, else ``None``."""
    return int(expr.value) if isinstance(expr, IntImm) else None


def children(stmt):
    """Direct child statements that can hold blocks or loops, in program order."""
    if isinstance(stmt, (For, While, AttrStmt)):
        return [stmt.body]
    if isinstance(stmt, SBlockRealize):
        return [stmt.block]
    if isinstance(stmt, SBlock):
        return [stmt.body]
    if isinstance(stmt, SeqStmt):
        return list(stmt.seq)
    if isinstance(stmt, IfThenElse):
        return [stmt.then_case] + ([stmt.else_case] if stmt.else_case is not None else [])
    return []


def _child_steps(stmt):
    """``(step, child)`` pairs: the access step from ``stmt`` to each child statement."""
    if isinstance(stmt, (For, While, AttrStmt, SBlock)):
        return [(("attr", "body"), stmt.body)]
    if isinstance(stmt, SBlockRealize):
        return [(("attr", "block"), stmt.block)]
    if isinstance(stmt, SeqStmt):
        return [(("item", i), s) for i, s in enumerate(stmt.seq)]
    if isinstance(stmt, IfThenElse):
        out = [(("attr", "then_case"), stmt.then_case)]
        return out + ([(("attr", "else_case"), stmt.else_case)] if stmt.else_case else [])
    return []


def access_path(mod, func_name, target):
    """The printer's linked access path of statement ``target`` in ``mod[func_name]``."""
    gvar = mod.get_global_var(func_name)
    base = ((((), "attr", "functions"), "map", gvar), "attr", "body")
    stack = [(mod[func_name].body, base)]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        for (kind, key), child in _child_steps(node):
            if kind == "item":
                stack.append((child, ((path, "attr", "seq"), "item", key)))
            else:
                stack.append((child, (path, kind, key)))
    return None


def find_path(root, pred):
    """Ancestors ``[root, ..., node]`` of the first node (pre-order) with ``pred(node)``."""
    stack = [(root, (root,))]
    while stack:
        node, path = stack.pop()
        if pred(node):
            return list(path)
        for child in reversed(children(node)):
            stack.append((child, path + (child,)))
    return None


def common_prefix_len(paths):
    """How many leading nodes all ``paths`` (ancestor lists) share, compared by identity."""
    common = min(len(p) for p in paths)
    for p in paths[1:]:
        n = 0
        while n < common and p[n] is paths[0][n]:
            n += 1
        common = n
    return common


def iter_blocks(root):
    """Every ``(realize, path)`` below ``root`` in pre-order (``path`` ends at the realize)."""
    out = []
    stack = [(root, (root,))]
    while stack:
        node, path = stack.pop()
        if isinstance(node, SBlockRealize):
            out.append((node, list(path)))
        for child in reversed(children(node)):
            stack.append((child, path + (child,)))
    return out


def seq_of(stmt):
    """The statements of a body: a ``SeqStmt``'s items or the statement alone."""
    if stmt is None:
        return []
    return list(stmt.seq) if isinstance(stmt, SeqStmt) else [stmt]


def make_seq(stmts):
    """A body from statements, nested sequences flattened (``None`` when empty, the statement
    itself when single)."""
    flat = []
    for s in stmts:
        flat.extend(seq_of(s))
    if not flat:
        return None
    return flat[0] if len(flat) == 1 else SeqStmt(flat)


class _Replacer(StmtMutator):
    """Swap statements by identity; a ``None`` replacement removes the statement and prunes
    the loops/sequences left empty by the removal."""

    def __init__(self, table):
        self.table = table

    def visit_stmt(self, stmt):
        if id(stmt) in self.table:
            return self.table[id(stmt)]
        return super().visit_stmt(stmt)

    def visit_seq_stmt_(self, op):
        items = [self.visit_stmt(s) for s in op.seq]
        if all(a is b for a, b in zip(items, op.seq)):
            return op
        flat = []
        for s in items:
            flat.extend(seq_of(s))
        return make_seq(flat)

    def visit_for_(self, op):
        body = self.visit_stmt(op.body)
        if body is None:
            return None
        return op if body is op.body else op.replace(body=body)

    def visit_sblock_(self, op):
        body = self.visit_stmt(op.body)
        if body is None:
            body = SeqStmt([])
        return op if body is op.body else op.replace(body=body)


def replace_stmts(root, table):
    """``root`` with each statement ``old`` replaced by ``table[id(old)]`` (``None``: removed)."""
    return _Replacer(table).visit_stmt(root)


def relax_region(region, vmap, dom, ana):
    """``[(lo, hi)]`` bounds of ``region`` after substituting ``vmap`` (block iter vars to
    their bindings) and letting each variable of ``dom`` range over its ``Range``.

    A dimension that interval arithmetic cannot bound falls back to the whole buffer extent
    (a safe over-approximation).
    """
    out = []
    for dim, r in enumerate(region.region):
        lo = ana.int_set(substitute(r.min, vmap), dom).min_value
        hi = ana.int_set(substitute(r.min + r.extent - 1, vmap), dom).max_value
        if lo is None or hi is None:
            extent = region.buffer.shape[dim]
            lo, hi = IntImm(extent.dtype, 0), extent - 1
        out.append((ana.simplify(lo), ana.simplify(hi)))
    return out


def new_buffer(shape, dtype, name, scope):
    """A buffer for a schedule to allocate; global memory is the empty scope, as the TVMScript
    parser and ``te`` make it (so results compare equal to parsed functions)."""
    from ...tirx.buffer import decl_buffer  # Lazy: only the buffer-creating primitives use it.

    return decl_buffer(shape, dtype, name=name, scope="" if scope == "global" else scope)


def loop_range(loop):
    """The loop's range as a ``Range``."""
    return Range.from_min_extent(loop.min, loop.extent)


def fresh_var(name, dtype="int32"):
    """A new index variable."""
    return Var(name, dtype)
