"""Statement functors: visitors and mutators over TIR statements (and their expressions).

* :class:`StmtVisitor` / :class:`StmtMutator` walk statements only; expressions go to
  :meth:`visit_expr`, which does nothing (visitor) or returns the expression (mutator).
* :class:`StmtExprVisitor` / :class:`StmtExprMutator` also walk expressions, through the
  expression functors of ``tvm.tirx.expr_functor``.

Dispatch is by node class: a ``For`` goes to ``visit_for_``, an ``SBlockRealize`` to
``visit_sblock_realize_`` (the class name in snake case, with a trailing underscore). Override
those methods in a subclass. Mutators rebuild a node with ``replace()`` only when a child
changed, so an unchanged tree comes back as the very same object.

Helpers: :func:`post_order_visit`, :func:`pre_order_visit`, :func:`ir_transform`,
:func:`substitute`, :func:`specialize_prim_func`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ..ir.expr import PrimExpr, Range
from . import expr_functor
from . import tile_primitive as _tile_call
from .buffer import Buffer
from .expr import IntImm, Var
from .function import BufferMap, PrimFunc
from .generic import convert
from .stmt import (
    AllocBuffer,
    AssertStmt,
    AttrStmt,
    Bind,
    Break,
    BufferLoad,
    BufferRegion,
    BufferStore,
    Continue,
    DeclBuffer,
    Evaluate,
    For,
    IfThenElse,
    IterVar,
    MatchBufferRegion,
    Return,
    SBlock,
    SBlockRealize,
    SeqStmt,
    Stmt,
    While,
)

__all__ = [
    "StmtExprMutator",
    "StmtExprVisitor",
    "StmtMutator",
    "StmtVisitor",
    "ir_transform",
    "post_order_visit",
    "pre_order_visit",
    "specialize_prim_func",
    "substitute",
]

_SNAKE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


_METHOD_NAMES: dict = {}  # class name -> method name


def _method_name(cls) -> str:
    method = _METHOD_NAMES.get(cls.__name__)
    if method is None:
        method = _METHOD_NAMES[cls.__name__] = _make_method_name(cls)
    return method


def _make_method_name(cls) -> str:
    name = cls.__name__
    if name.startswith("SBlock"):
        # ``SBlockRealize`` -> ``visit_sblock_realize_`` (not ``visit_s_block_realize_``).
        rest = _SNAKE.sub("_", name[len("SBlock"):]).lower()
        return "visit_sblock" + ("_" + rest if rest else "") + "_"
    return "visit_" + _SNAKE.sub("_", name).lower() + "_"


def _dispatch(functor, stmt):
    table = type(functor).__dict__.get("_stmt_table")
    if table is None:
        table = {}
        type.__setattr__(type(functor), "_stmt_table", table)
    method = table.get(type(stmt))
    if method is None:
        for klass in type(stmt).__mro__:
            method = getattr(type(functor), _method_name(klass), None)
            if method is not None:
                break
        if method is None:
            raise TypeError(
                f"{type(functor).__name__} cannot visit {type(stmt).__name__}: "
                "it is not a TIR statement"
            )
        table[type(stmt)] = method
    return method


class StmtVisitor:
    """Visit every statement of a tree; expressions go to :meth:`visit_expr`.

    Each ``visit_<node>_(self, op)`` method receives a statement ``op`` of that class and
    visits its children; override one to act on that kind of statement (call the base method
    to keep walking below it).
    """

    #: statement class -> method; each functor class gets its own (``__init_subclass__``).
    _stmt_table: ClassVar[dict] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._stmt_table = {}  # why: see ``ExprFunctor.__init_subclass__``

    def visit_stmt(self, stmt: Stmt) -> None:
        """Dispatch ``stmt`` to the ``visit_<node>_`` method of its class.

        Parameters
        ----------
        stmt : Stmt
            The statement to visit.

        Returns
        -------
        object
            Whatever the per-node method returns (``None`` in the plain visitor).

        Raises
        ------
        TypeError
            When ``stmt`` is not a TIR statement this functor knows.
        """
        try:
            method = self._stmt_table[type(stmt)]
        except KeyError:
            method = _dispatch(self, stmt)
        return method(self, stmt)

    def __call__(self, node: Any) -> Any:
        return _visit_any(self, node)

    def visit_expr(self, expr: PrimExpr) -> None:
        """Called on every expression; does nothing here."""

    def visit_buffer_def(self, buffer: Buffer) -> None:
        """Called where a buffer is defined (allocations, declarations, match buffers)."""
        for e in buffer.shape:
            self.visit_expr(e)

    def visit_buffer_region(self, region: BufferRegion) -> None:
        """Visit the ``min`` and ``extent`` of every range of a buffer region.

        Parameters
        ----------
        region : BufferRegion
            A block's read or write region, or a match buffer's source.
        """
        for r in region.region:
            self.visit_expr(r.min)
            self.visit_expr(r.extent)

    # --- per statement ------------------------------------------------------------------------
    def visit_buffer_store_(self, op: BufferStore) -> None:
        """Visit a ``BufferStore``: its value, its indices and its predicate (when set)."""
        self.visit_expr(op.value)
        for i in op.indices:
            self.visit_expr(i)
        if op.predicate is not None:
            self.visit_expr(op.predicate)

    def visit_for_(self, op: For) -> None:
        """Visit a ``For``: its ``min``, ``extent`` and ``step`` (when set), then its body."""
        self.visit_expr(op.min)
        self.visit_expr(op.extent)
        if op.step is not None:
            self.visit_expr(op.step)
        self.visit_stmt(op.body)

    def visit_while_(self, op: While) -> None:
        """Visit a ``While``: its condition, then its body."""
        self.visit_expr(op.condition)
        self.visit_stmt(op.body)

    def visit_if_then_else_(self, op: IfThenElse) -> None:
        """Visit an ``IfThenElse``: its condition, then branch and else branch (when set)."""
        self.visit_expr(op.condition)
        self.visit_stmt(op.then_case)
        if op.else_case is not None:
            self.visit_stmt(op.else_case)

    def visit_bind_(self, op: Bind) -> None:
        """Visit a ``Bind``: the bound value (the variable is a definition, not visited)."""
        self.visit_expr(op.value)

    def visit_scope_id_def_stmt_(self, op: Any) -> None:
        """Visit a scope-id definition: the extents it declares (when given)."""
        for e in op.def_.extents or ():
            self.visit_expr(e)

    def visit_attr_stmt_(self, op: AttrStmt) -> None:
        """Visit an ``AttrStmt``: its value, then its body."""
        self.visit_expr(op.value)
        self.visit_stmt(op.body)

    def visit_alloc_buffer_(self, op: AllocBuffer) -> None:
        """Visit an ``AllocBuffer``: the allocated buffer, through :meth:`visit_buffer_def`."""
        self.visit_buffer_def(op.buffer)

    def visit_decl_buffer_(self, op: DeclBuffer) -> None:
        """Visit a ``DeclBuffer``: the declared buffer, then its data pointer (an expression)."""
        self.visit_buffer_def(op.buffer)
        if isinstance(op.data, PrimExpr):
            self.visit_expr(op.data)

    def visit_evaluate_(self, op: Evaluate) -> None:
        """Visit an ``Evaluate``: its value."""
        self.visit_expr(op.value)

    def visit_seq_stmt_(self, op: SeqStmt) -> None:
        """Visit each statement of a ``SeqStmt`` in order."""
        for s in op.seq:
            self.visit_stmt(s)

    def visit_assert_stmt_(self, op: AssertStmt) -> None:
        """Visit an ``AssertStmt``: its condition (the message is a string, not visited)."""
        self.visit_expr(op.condition)

    def visit_tile_primitive_call_(self, op: Any) -> None:
        """Visit a tile-primitive call: the expressions and regions of its arguments."""
        _tile_call.functor_visit(self, op)

    def visit_break_(self, op: Break) -> None:
        """Visit a ``Break`` (no children: nothing to do)."""

    def visit_return_(self, op: Return) -> None:
        """Visit a ``Return``: its value."""
        self.visit_expr(op.value)

    def visit_continue_(self, op: Continue) -> None:
        """Visit a ``Continue`` (no children: nothing to do)."""

    def visit_sblock_(self, op: SBlock) -> None:
        """Visit an ``SBlock``: iteration domains, allocated and matched buffers, read and
        write regions, the init statement (when set), then the body.
        """
        for iv in op.iter_vars:
            self.visit_expr(iv.dom.min)
            self.visit_expr(iv.dom.extent)
        for buf in op.alloc_buffers:
            self.visit_buffer_def(buf)
        for mb in op.match_buffers:
            self.visit_buffer_def(mb.buffer)
            self.visit_buffer_region(mb.source)
        for region in op.reads:
            self.visit_buffer_region(region)
        for region in op.writes:
            self.visit_buffer_region(region)
        if op.init is not None:
            self.visit_stmt(op.init)
        self.visit_stmt(op.body)

    def visit_sblock_realize_(self, op: SBlockRealize) -> None:
        """Visit an ``SBlockRealize``: the iteration values, the predicate, then the block."""
        for v in op.iter_values:
            self.visit_expr(v)
        self.visit_expr(op.predicate)
        self.visit_stmt(op.block)


def _same(new, old) -> bool:
    if len(new) != len(old):
        return False
    return all(a is b for a, b in zip(new, old))


class StmtMutator:
    """Rebuild statements bottom-up; unchanged subtrees are returned as the same objects.

    Each ``visit_<node>_(self, op)`` method receives a statement ``op`` of that class and
    returns the statement that replaces it (``op`` itself when nothing changed).
    """

    _stmt_table: ClassVar[dict] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._stmt_table = {}  # why: see ``ExprFunctor.__init_subclass__``

    def visit_stmt(self, stmt: Stmt) -> Stmt:
        """Dispatch ``stmt`` to the ``visit_<node>_`` method of its class.

        Parameters
        ----------
        stmt : Stmt
            The statement to rebuild.

        Returns
        -------
        Stmt
            The rebuilt statement; ``stmt`` itself when nothing in it changed.

        Raises
        ------
        TypeError
            When ``stmt`` is not a TIR statement this functor knows.
        """
        try:
            method = self._stmt_table[type(stmt)]
        except KeyError:
            method = _dispatch(self, stmt)
        return method(self, stmt)

    def __call__(self, node: Any) -> Any:
        return _visit_any(self, node)

    def visit_expr(self, expr: PrimExpr) -> PrimExpr:
        """Called on every expression; returns it unchanged here."""
        return expr

    def visit_buffer_def(self, buffer: Buffer) -> Buffer:
        """Called where a buffer is defined; may return a new buffer (unchanged here)."""
        return buffer

    def visit_buffer_use(self, buffer: Buffer) -> Buffer:
        """Called on a buffer referenced by a load, store or region (unchanged here)."""
        return buffer

    def _exprs(self, values):
        visit = self.visit_expr
        new = [visit(v) for v in values]
        for a, b in zip(new, values):
            if a is not b:
                return tuple(new)
        return values

    def _opt_expr(self, value):
        return None if value is None else self.visit_expr(value)

    def visit_buffer_region(self, region: BufferRegion) -> BufferRegion:
        """Rebuild a buffer region from its mutated buffer and ranges.

        Parameters
        ----------
        region : BufferRegion
            A block's read or write region, or a match buffer's source.

        Returns
        -------
        BufferRegion
            ``region`` itself when the buffer and every ``min``/``extent`` came back unchanged.
        """
        buf = self.visit_buffer_use(region.buffer)
        ranges = []
        for r in region.region:
            lo, ext = self.visit_expr(r.min), self.visit_expr(r.extent)
            ranges.append(r if lo is r.min and ext is r.extent else Range.from_min_extent(lo, ext))
        ranges = tuple(ranges)
        if buf is region.buffer and _same(ranges, region.region):
            return region
        return region.replace(buffer=buf, region=ranges)

    # --- per statement ------------------------------------------------------------------------
    # The most frequent statements compare their children here, so an unchanged one is
    # returned without building ``replace``'s keyword arguments.
    def visit_buffer_store_(self, op: BufferStore) -> Stmt:
        """Rebuild a ``BufferStore`` from its buffer, value, indices, predicate (or keep ``op``)."""
        buffer = self.visit_buffer_use(op.buffer)
        value = self.visit_expr(op.value)
        indices = self._exprs(op.indices)
        predicate = self._opt_expr(op.predicate)
        if (buffer is op.buffer and value is op.value and indices is op.indices
                and predicate is op.predicate):
            return op
        return op.replace(buffer=buffer, value=value, indices=indices, predicate=predicate)

    def visit_for_(self, op: For) -> Stmt:
        """Rebuild a ``For`` from its ``min``, ``extent``, ``step``, body (or keep ``op``)."""
        lo = self.visit_expr(op.min)
        extent = self.visit_expr(op.extent)
        step = self._opt_expr(op.step)
        body = self.visit_stmt(op.body)
        if lo is op.min and extent is op.extent and step is op.step and body is op.body:
            return op
        return op.replace(min=lo, extent=extent, step=step, body=body)

    def visit_while_(self, op: While) -> Stmt:
        """Rebuild a ``While`` from its mutated condition and body."""
        return op.replace(condition=self.visit_expr(op.condition), body=self.visit_stmt(op.body))

    def visit_if_then_else_(self, op: IfThenElse) -> Stmt:
        """Rebuild an ``IfThenElse`` from its mutated condition and branches."""
        else_case = None if op.else_case is None else self.visit_stmt(op.else_case)
        return op.replace(
            condition=self.visit_expr(op.condition),
            then_case=self.visit_stmt(op.then_case),
            else_case=else_case,
        )

    def visit_bind_(self, op: Bind) -> Stmt:
        """Rebuild a ``Bind`` with its mutated value (the variable is kept)."""
        return op.replace(value=self.visit_expr(op.value))

    def visit_scope_id_def_stmt_(self, op: Any) -> Stmt:
        """Rebuild a scope-id definition with mutated extents; ``op`` if none changed."""
        scope_def = op.def_
        if scope_def.extents is None:
            return op
        extents = tuple(self.visit_expr(e) for e in scope_def.extents)
        if all(a is b for a, b in zip(extents, scope_def.extents)):
            return op
        return op.replace(def_=scope_def.replace(extents=extents))

    def visit_attr_stmt_(self, op: AttrStmt) -> Stmt:
        """Rebuild an ``AttrStmt`` from its mutated value and body."""
        return op.replace(value=self.visit_expr(op.value), body=self.visit_stmt(op.body))

    def visit_alloc_buffer_(self, op: AllocBuffer) -> Stmt:
        """Rebuild an ``AllocBuffer`` with the buffer :meth:`visit_buffer_def` returns."""
        return op.replace(buffer=self.visit_buffer_def(op.buffer))

    def visit_decl_buffer_(self, op: DeclBuffer) -> Stmt:
        """Rebuild a ``DeclBuffer`` from its (re)defined buffer and its mutated data pointer."""
        data = self.visit_expr(op.data) if isinstance(op.data, PrimExpr) else op.data
        return op.replace(buffer=self.visit_buffer_def(op.buffer), data=data)

    def visit_evaluate_(self, op: Evaluate) -> Stmt:
        """Rebuild an ``Evaluate`` with its mutated value."""
        return op.replace(value=self.visit_expr(op.value))

    def visit_seq_stmt_(self, op: SeqStmt) -> Stmt:
        """Rebuild a ``SeqStmt`` from its mutated statements (flattened); ``op`` if none changed."""
        visit = self.visit_stmt
        new = [visit(s) for s in op.seq]
        if _same(new, op.seq):
            return op
        return SeqStmt.flatten(new)

    def visit_assert_stmt_(self, op: AssertStmt) -> Stmt:
        """Rebuild an ``AssertStmt`` with its mutated condition."""
        return op.replace(condition=self.visit_expr(op.condition))

    def visit_tile_primitive_call_(self, op: Any) -> Stmt:
        """Rebuild a tile-primitive call from its mutated argument expressions and regions."""
        return _tile_call.functor_mutate(self, op)

    def visit_break_(self, op: Break) -> Stmt:
        """Return a ``Break`` unchanged (it has no children)."""
        return op

    def visit_return_(self, op: Return) -> Stmt:
        """Rebuild a ``Return`` with its mutated value; ``op`` if it did not change."""
        value = self.visit_expr(op.value)
        return op if value is op.value else op.replace(value=value)

    def visit_continue_(self, op: Continue) -> Stmt:
        """Return a ``Continue`` unchanged (it has no children)."""
        return op

    def visit_sblock_(self, op: SBlock) -> Stmt:
        """Rebuild an ``SBlock`` from its mutated iteration domains, buffers, regions, init and
        body; each field whose items all came back unchanged keeps its old value.
        """
        iter_vars = []
        for iv in op.iter_vars:
            lo, ext = self.visit_expr(iv.dom.min), self.visit_expr(iv.dom.extent)
            if lo is iv.dom.min and ext is iv.dom.extent:
                iter_vars.append(iv)
            else:
                iter_vars.append(iv.replace(dom=Range.from_min_extent(lo, ext)))
        iter_vars = tuple(iter_vars)
        alloc = tuple(self.visit_buffer_def(b) for b in op.alloc_buffers)
        match = []
        for mb in op.match_buffers:
            buf = self.visit_buffer_def(mb.buffer)
            src = self.visit_buffer_region(mb.source)
            match.append(mb if buf is mb.buffer and src is mb.source
                         else MatchBufferRegion(buf, src))
        match = tuple(match)
        reads = tuple(self.visit_buffer_region(r) for r in op.reads)
        writes = tuple(self.visit_buffer_region(r) for r in op.writes)
        init = None if op.init is None else self.visit_stmt(op.init)
        return op.replace(
            iter_vars=iter_vars if not _same(iter_vars, op.iter_vars) else op.iter_vars,
            alloc_buffers=alloc if not _same(alloc, op.alloc_buffers) else op.alloc_buffers,
            match_buffers=match if not _same(match, op.match_buffers) else op.match_buffers,
            reads=reads if not _same(reads, op.reads) else op.reads,
            writes=writes if not _same(writes, op.writes) else op.writes,
            init=init,
            body=self.visit_stmt(op.body),
        )

    def visit_sblock_realize_(self, op: SBlockRealize) -> Stmt:
        """Rebuild an ``SBlockRealize`` from its mutated iteration values, predicate and block."""
        return op.replace(
            iter_values=self._exprs(op.iter_values),
            predicate=self.visit_expr(op.predicate),
            block=self.visit_stmt(op.block),
        )


class StmtExprVisitor(StmtVisitor, expr_functor.ExprVisitor):
    """Visit statements and every expression inside them (including buffer loads)."""

    # The expression functors' dispatch itself (not a wrapper calling it): one frame less per
    # expression node.
    visit_expr = expr_functor.ExprFunctor.visit_expr

    def visit_buffer_load_(self, op: BufferLoad) -> None:
        """Visit a ``BufferLoad``: its indices and its predicate (when set)."""
        for i in op.indices:
            self.visit_expr(i)
        if op.predicate is not None:
            self.visit_expr(op.predicate)


class StmtExprMutator(StmtMutator, expr_functor.ExprMutator):
    """Rebuild statements and the expressions inside them."""

    visit_expr = expr_functor.ExprFunctor.visit_expr  # why: see StmtExprVisitor

    def visit_buffer_load_(self, op: BufferLoad) -> PrimExpr:
        """Rebuild a ``BufferLoad`` from its buffer, indices and predicate; ``op`` if unchanged."""
        buffer = self.visit_buffer_use(op.buffer)
        indices = self._exprs(op.indices)
        predicate = self._opt_expr(op.predicate)
        if buffer is op.buffer and indices is op.indices and predicate is op.predicate:
            return op
        return op.replace(buffer=buffer, indices=indices, predicate=predicate)


def _visit_any(functor, node):
    """Dispatch a node given to a functor directly (``substitute(region, vmap)``...).

    Statements and expressions, and also the non-expression nodes that statements hold:
    buffer regions, match-buffer regions, buffers, iteration variables (their domain; the
    variable itself is a definition), and lists/tuples of any of these. Mutators return the
    rebuilt node (the same object when nothing changed).
    """
    if isinstance(node, Stmt):
        return functor.visit_stmt(node)
    mutate = isinstance(functor, StmtMutator)
    if isinstance(node, BufferRegion):
        return functor.visit_buffer_region(node)
    if isinstance(node, MatchBufferRegion):
        buf = functor.visit_buffer_def(node.buffer)
        src = functor.visit_buffer_region(node.source)
        if not mutate or (buf is node.buffer and src is node.source):
            return node
        return MatchBufferRegion(buf, src)
    if isinstance(node, Buffer):
        if mutate:
            return functor.visit_buffer_use(node)
        functor.visit_buffer_def(node)
        return node
    if isinstance(node, IterVar):
        lo, ext = functor.visit_expr(node.dom.min), functor.visit_expr(node.dom.extent)
        if not mutate or (lo is node.dom.min and ext is node.dom.extent):
            return node
        return node.replace(dom=Range.from_min_extent(lo, ext))
    if isinstance(node, (list, tuple)):
        items = [_visit_any(functor, item) for item in node]
        if not mutate or _same(items, node):
            return node
        return type(node)(items)
    return functor.visit_expr(node)


class _OrderVisitor(StmtExprVisitor):
    """Calls ``fvisit`` on each statement and expression once (by identity)."""

    def __init__(self, fvisit, pre):
        self.fvisit = fvisit
        self.pre = pre
        self.seen: set = set()
        self.keep: list = []

    def _enter(self, node) -> bool:
        if id(node) in self.seen:
            return False
        self.seen.add(id(node))
        self.keep.append(node)
        return True

    def visit_stmt(self, stmt):
        if not self._enter(stmt):
            return
        if self.pre:
            if self.fvisit(stmt) is False:
                return
            super().visit_stmt(stmt)
        else:
            super().visit_stmt(stmt)
            self.fvisit(stmt)

    def visit_expr(self, expr):
        # ``_enter`` inlined: this runs once per expression node of every walk.
        key = id(expr)
        seen = self.seen
        if key in seen:
            return
        seen.add(key)
        self.keep.append(expr)
        if self.pre:
            if self.fvisit(expr) is False:
                return
            super().visit_expr(expr)
        else:
            super().visit_expr(expr)
            self.fvisit(expr)


def post_order_visit(stmt: Any, fvisit: Callable[..., object]) -> None:
    """Call ``fvisit(node)`` on every statement and expression under ``stmt``, children first.

    Each node object is visited once, even when it is shared.
    """
    expr_functor._ensure_recursion_limit()
    _visit_any(_OrderVisitor(fvisit, pre=False), stmt)


def pre_order_visit(stmt: Any, fvisit: Callable[..., object]) -> None:
    """Call ``fvisit(node)`` parents first; when it returns ``False`` the children are skipped."""
    expr_functor._ensure_recursion_limit()
    _visit_any(_OrderVisitor(fvisit, pre=True), stmt)


def _type_key_matches(node, only_enable):
    if only_enable is None:
        return True
    key = node.type_key
    short = key.split(".", 1)[-1]
    return key in only_enable or short in only_enable or type(node).__name__ in only_enable


class _Transform(StmtExprMutator):
    def __init__(self, preorder, postorder, only_enable):
        self.preorder = preorder
        self.postorder = postorder
        self.only_enable = only_enable
        self._enabled: dict = {}  # node class -> whether the callbacks apply (by type key)

    def _apply(self, node, base):
        enabled = self._enabled.get(type(node))
        if enabled is None:
            enabled = self._enabled[type(node)] = _type_key_matches(node, self.only_enable)
        if enabled and self.preorder is not None:
            new = self.preorder(node)
            if new is not None:
                return new
        new = base(node)
        if enabled and self.postorder is not None:
            out = self.postorder(new)
            if out is not None:
                return out
        return new

    def visit_stmt(self, stmt):
        return self._apply(stmt, super().visit_stmt)

    def visit_expr(self, expr):
        return self._apply(expr, super().visit_expr)


def ir_transform(
    stmt: Any,
    preorder: Callable[[Any], Any] | None,
    postorder: Callable[[Any], Any] | None,
    only_enable: Sequence[str] | None = None,
) -> Any:
    """Rewrite ``stmt``: ``preorder(node)`` may replace a node before its children are visited
    (its result is used as is), ``postorder(node)`` after (``None`` keeps the node).

    ``only_enable`` restricts the callbacks to some node types (type keys such as
    ``"tirx.For"`` or class names such as ``"For"``).
    """
    expr_functor._ensure_recursion_limit()
    return _visit_any(_Transform(preorder, postorder, only_enable), stmt)


class _Substitute(StmtExprMutator):
    """Replace variables; buffers whose shape/strides/offset change are rebuilt (memoized)."""

    def __init__(self, fn):
        self.fn = fn
        self.buffer_memo: dict = {}

    def visit_var_(self, op):
        value = self.fn(op)
        return op if value is None else value

    def _buffer(self, buf):
        memo = self.buffer_memo.get(id(buf))
        if memo is not None:
            return memo[1]
        if _constant_layout(buf):
            return buf  # no variable to replace (most buffers): skip the walks and the memo
        shape = self._exprs(buf.shape)
        strides = self._exprs(buf.strides)
        offset = self._opt_expr(buf.elem_offset)
        new = buf.replace(shape=shape, strides=strides, elem_offset=offset)
        self.buffer_memo[id(buf)] = (buf, new)
        return new

    def visit_buffer_def(self, buffer):
        return self._buffer(buffer)

    def visit_buffer_use(self, buffer):
        return self._buffer(buffer)


def _constant_layout(buf) -> bool:
    """Whether a buffer's shape, strides and offset are all integer constants."""
    offset = buf.elem_offset
    return ((offset is None or type(offset) is IntImm)
            and all(type(e) is IntImm for e in buf.shape)
            and all(type(e) is IntImm for e in buf.strides))


def _var_map_fn(vmap):
    if callable(vmap) and not isinstance(vmap, dict):
        return vmap
    table = {}
    for var, value in dict(vmap).items():
        if isinstance(var, IterVar):
            var = var.var
        if not isinstance(var, expr_functor.Var):
            raise TypeError(f"substitute keys must be tirx.Var, got {type(var).__name__}")
        table[var] = convert(value, var.dtype)
    return table.get


def substitute(node: Any, vmap: Mapping[Var, Any] | Callable[[Var], Any]) -> Any:
    """Replace variables in a statement or expression.

    ``vmap`` is ``{Var: PrimExpr}`` (Python numbers become constants of the variable's dtype)
    or a function returning the replacement of a Var, or ``None`` to keep it. Buffers whose
    shapes mention a replaced variable are rebuilt consistently everywhere they appear.

    Examples
    --------
    >>> from tvm import tirx
    >>> x, y = tirx.Var("x", "int32"), tirx.Var("y", "int32")
    >>> tirx.stmt_functor.substitute(x + 1, {x: y * 2})
    y * 2 + 1
    """
    expr_functor._ensure_recursion_limit()
    return _visit_any(_Substitute(_var_map_fn(vmap)), node)


def specialize_prim_func(func: PrimFunc, param_map: Mapping[Any, Any]) -> PrimFunc:
    """``PrimFunc.specialize``: bind scalar params to values and buffer params to buffers.

    As in Apache TVM 0.27, a buffer given for a buffer parameter binds the variables of the
    parameter's shape to that buffer's extents: the parameter keeps its own buffer (its name
    too), rebuilt with the bound extents, and scalar parameters so bound are removed.
    """
    vmap = {}
    removed = set()
    for param, value in param_map.items():
        if isinstance(param, Buffer):
            # A buffer parameter as ``func.params`` lists it: bind its handle.
            handle = func.buffer_map.handle_of(param)
            if handle is None:
                raise ValueError(
                    f"specialize: buffer {param.name} is not a parameter of the function"
                )
            param = handle
        if not any(param is p for p in func.param_vars):
            raise ValueError(f"specialize: {param} is not a parameter of the function")
        if isinstance(value, Buffer):
            target = func.buffer_map.get(param)
            if target is None:
                raise ValueError(f"specialize: parameter {param.name} is not mapped to a buffer")
            if len(target.shape) != len(value.shape):
                raise ValueError(
                    f"specialize: buffer {value.name} has {len(value.shape)} dims, parameter "
                    f"{param.name} expects {len(target.shape)}"
                )
            for old, new in zip(target.shape, value.shape):
                if isinstance(old, expr_functor.Var) and old not in vmap:
                    vmap[old] = new
            continue
        vmap[param] = value
        removed.add(id(param))
    bound_ids = {id(k) for k in vmap}
    removed.update(id(p) for p in func.param_vars if id(p) in bound_ids)
    fn = _var_map_fn(vmap)
    sub = _Substitute(fn)
    body = sub.visit_stmt(func.body)
    new_map = {param: sub._buffer(buf) for param, buf in func.buffer_map.items()}
    params = tuple(p for p in func.param_vars if id(p) not in removed)
    return func.replace(param_vars=params, buffer_map=BufferMap(new_map, params), body=body)
