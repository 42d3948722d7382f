"""IR-builder frames of TIR: a PrimFunc, loops, SBlocks, branches, ``while``, ``T.attr``.

Every frame that holds statements is a :class:`TIRFrame`; statements built inside it are
appended to its ``stmts`` (:func:`add_to_parent`), and when the frame exits it turns them into
one statement (``SeqStmt.flatten``) and hands its own product to the enclosing frame. 0.27
statements such as ``Bind`` and ``AllocBuffer`` have no body: they are plain entries of the
list, in effect for the statements after them.
"""

from __future__ import annotations

from tvm.ir import Range
from tvm.tirx import stmt as _stmt
from tvm.tirx.expr import IntImm, Var
from tvm.tirx.function import PrimFunc
from tvm.tirx.stmt_functor import post_order_visit

from ..base import IRBuilder, IRBuilderFrame

__all__ = [
    "AttrFrame",
    "ElseFrame",
    "ForFrame",
    "IfFrame",
    "InitFrame",
    "LaunchThreadFrame",
    "PrimFuncFrame",
    "SBlockFrame",
    "TIRFrame",
    "ThenFrame",
    "WhileFrame",
    "add_to_parent",
    "current_frame",
]


class TIRFrame(IRBuilderFrame):
    """A frame whose body is a list of statements."""

    def __init__(self):
        self.stmts: list = []

    def body(self):
        """The collected statements as one statement (``Evaluate(0)`` when empty).

        As in TVM 0.27, a no-op ``T.evaluate(0)`` next to other statements is dropped."""
        stmts = self.stmts
        if len(stmts) > 1:
            kept = [s for s in stmts if not _is_nop(s)]
            stmts = kept or stmts[:1]
        return _stmt.SeqStmt.flatten(stmts)


def _is_nop(stmt) -> bool:
    return (isinstance(stmt, _stmt.Evaluate) and isinstance(stmt.value, IntImm)
            and stmt.value.value == 0)


def current_frame(frame_type, what: str):
    """The innermost open frame of ``frame_type``; a ``ValueError`` naming ``what`` if none."""
    frame = IRBuilder.current().find_frame(frame_type)
    if frame is None:
        raise ValueError(f"{what} must be used inside a {frame_type.__name__}")
    return frame


def add_to_parent(stmt) -> None:
    """Append ``stmt`` to the innermost statement-holding frame; with no frame open, the
    statement is the builder's result (``with IRBuilder() as ib: with T.grid(...): ...``
    builds a bare ``For``, as in TVM)."""
    builder = IRBuilder.current()
    frames = builder.frames
    if not frames:
        builder.set_result(stmt)
        return
    if not isinstance(frames[-1], TIRFrame):
        where = type(frames[-1]).__name__
        raise ValueError(  # noqa: TRY004 - a misplaced statement, not a wrong argument type
            f"A TIR statement cannot be added here (innermost frame: {where})"
        )
    frames[-1].stmts.append(stmt)


def _contains_sblock(stmt) -> bool:
    from tvm.ffi.node import walk  # local: only needed when a function is finished

    return any(isinstance(node, _stmt.SBlockRealize) for node in walk(stmt))


class PrimFuncFrame(TIRFrame):
    """``@T.prim_func``: parameters, buffer map, attributes and the body."""

    def __init__(self, s_tir: bool = False, private: bool = False, persistent: bool = False):
        super().__init__()
        self.name: str | None = None
        self.args: list = []
        self.buffer_map: dict = {}
        self.attrs: dict | None = None
        self.ret_type = None
        self.s_tir = s_tir
        self.private = private
        #: ``@T.prim_func(persistent=True)``: attribute ``"tirx.persistent_kernel": True``.
        self.persistent = persistent
        #: ``T.sblock_alloc_buffer`` at function level: buffers of the implicit root block.
        self.root_alloc_buffers: list = []
        #: Symbolic variables by name (strings in buffer shapes, ``n = T.int32()``).
        self.sym_vars: dict[str, Var] = {}
        #: Variables returned by ``T.Bind``/``T.let`` whose ``Bind`` is already emitted.
        self.bound_vars: set[int] = set()
        #: ``T.env_thread`` variables (by id) -> their IterVar, for ``T.launch_thread(tx, n)``.
        self.env_threads: dict = {}
        self.result: PrimFunc | None = None

    def exit_with_scope(self) -> None:
        """Build the ``PrimFunc`` from the collected parameters, buffer map, attributes and body.

        A schedulable function's blocks are wrapped in a ``"root"`` block; a public function gets
        ``global_symbol``. The function is added to the enclosing ``IRModuleFrame``, or becomes the
        builder's result at top level.

        Raises
        ------
        ValueError
            When the frame is nested in a frame other than an ``IRModuleFrame``.
        """
        self._run_callbacks()
        body = self.body()
        if self.root_alloc_buffers or (self.s_tir and _contains_sblock(body)
                                       and not _is_root(body)):
            # As in TVM, a schedulable function's blocks live under a "root" block.
            root = _stmt.SBlock([], [], [], "root", body, alloc_buffers=self.root_alloc_buffers)
            body = _stmt.SBlockRealize([], IntImm("bool", 1), root)
        _name_matched_handles(self.buffer_map, body)
        attrs = dict(self.attrs or {})
        if not self.private and self.name is not None:
            attrs.setdefault("global_symbol", self.name)
        if self.s_tir:
            attrs["s_tir"] = True
        if self.persistent:
            attrs["tirx.persistent_kernel"] = True
        func = PrimFunc(self.args, body, self.ret_type, self.buffer_map, attrs or None)
        self.result = func
        builder = IRBuilder.current()
        from ..ir.frame import IRModuleFrame, def_function

        if builder.find_frame(IRModuleFrame) is not None:
            def_function(self.name or "main", func)
        elif builder.frames:
            raise ValueError("A PrimFunc can only be defined at top level or in an IRModule")
        else:
            builder.set_result(func)


def _name_matched_handles(buffer_map: dict, body) -> None:
    """A handle parameter bound by ``B = T.match_buffer(b_handle, ...)`` takes the buffer's
    name when the body does not use the handle itself: in TVM 0.27 the parameter *is* the
    buffer (``func.params`` names ``B``), and the printed ``def f(B: T.Buffer(...))`` parses
    back to a parameter named ``B``."""
    renames = {id(h): (h, buf.name) for h, buf in buffer_map.items()
               if buf.name and h.name != buf.name}
    if not renames:
        return

    def visit(node):
        renames.pop(id(node), None)

    post_order_visit(body, visit)
    for handle, name in renames.values():
        IRBuilder.name(name, handle)


def _is_root(stmt) -> bool:
    return (isinstance(stmt, _stmt.SBlockRealize) and stmt.block.name_hint == "root"
            and not stmt.block.iter_vars)


class ForFrame(TIRFrame):
    """One or more directly nested loops (``T.grid`` gives several)."""

    def __init__(self, loop_vars, mins, extents, kind=_stmt.ForKind.SERIAL, thread=None,
                 annotations=None, step=None):
        super().__init__()
        self.vars = list(loop_vars)
        self.mins = list(mins)
        self.extents = list(extents)
        self.kind = kind
        self.thread = thread
        self.annotations = annotations
        self.step = step

    def __enter__(self):
        super().__enter__()
        return self.vars[0] if len(self.vars) == 1 else list(self.vars)

    def dom_of(self, var):
        """The ``Range`` of loop variable ``var`` of this frame, or ``None``."""
        for v, lo, ext in zip(self.vars, self.mins, self.extents):
            if v is var:
                return Range.from_min_extent(lo, ext)
        return None

    def exit_with_scope(self) -> None:
        """Wrap the body in one ``For`` per loop var (the first outermost); add it to the parent."""
        body = self.body()
        for i in reversed(range(len(self.vars))):
            thread = None
            if self.kind == _stmt.ForKind.THREAD_BINDING:
                thread = _stmt.IterVar(Range.from_min_extent(self.mins[i], self.extents[i]),
                                       Var(self.thread, self.vars[i].dtype),
                                       _stmt.IterVar.ThreadIndex, self.thread)
            body = _stmt.For(self.vars[i], self.mins[i], self.extents[i], self.kind, body,
                             thread_binding=thread, annotations=self.annotations,
                             step=self.step)
        add_to_parent(body)


class SBlockFrame(TIRFrame):
    """``with T.sblock("name"):``: iteration variables, regions, init and body."""

    def __init__(self, name: str = "", no_realize: bool = False):
        super().__init__()
        self.name = name
        self.no_realize = no_realize
        self.iter_vars: list = []
        self.iter_values: list = []
        self.reads: list | None = None
        self.writes: list | None = None
        self.predicate = None
        self.annotations: dict | None = None
        self.alloc_buffers: list = []
        self.match_buffers: list = []
        self.init = None

    def exit_with_scope(self) -> None:
        """Build the ``SBlock`` (read/write regions inferred when not given), wrap it in an
        ``SBlockRealize`` unless ``no_realize``, and add it to the parent.
        """
        block = _stmt.SBlock(self.iter_vars, [], [], self.name, self.body(), init=self.init,
                             alloc_buffers=self.alloc_buffers,
                             match_buffers=self.match_buffers, annotations=self.annotations)
        if self.reads is None or self.writes is None:
            # Lazy: s_tir sits above the IR builder's tirx imports only for this inference.
            from tvm.s_tir import infer_sblock_regions

            # As in TVM, a reduction block (one with an init) does not list the buffers it
            # writes among its reads.
            reads, writes = infer_sblock_regions(
                block, exclude_written_from_reads=self.init is not None
            )
            block = block.replace(reads=tuple(self.reads if self.reads is not None else reads),
                                  writes=tuple(self.writes if self.writes is not None
                                               else writes))
        else:
            block = block.replace(reads=tuple(self.reads), writes=tuple(self.writes))
        if self.no_realize:
            add_to_parent(block)
            return
        predicate = self.predicate if self.predicate is not None else IntImm("bool", 1)
        add_to_parent(_stmt.SBlockRealize(self.iter_values, predicate, block))


class InitFrame(TIRFrame):
    """``with T.init():`` inside a block: the reduction's initialisation."""

    def exit_with_scope(self) -> None:
        """Store the body as the ``init`` of the enclosing block.

        Raises
        ------
        ValueError
            When the parent frame is not a ``T.sblock()`` or the block already has an init.
        """
        frames = IRBuilder.current().frames
        parent = frames[-1] if frames else None
        if not isinstance(parent, SBlockFrame):
            raise ValueError("T.init() must be used directly inside a T.sblock()")  # noqa: TRY004
        if parent.init is not None:
            raise ValueError(f"Block {parent.name!r} has two T.init() sections")
        parent.init = self.body()


class WhileFrame(TIRFrame):
    """``while condition:``."""

    def __init__(self, condition):
        super().__init__()
        self.condition = condition

    def exit_with_scope(self) -> None:
        """Add a ``While`` of the condition and the body to the parent."""
        add_to_parent(_stmt.While(self.condition, self.body()))


class AttrFrame(TIRFrame):
    """``with T.attr(node, key, value):``; several ``entries`` nest, the first outermost."""

    def __init__(self, entries):
        super().__init__()
        self.entries = list(entries)

    def exit_with_scope(self) -> None:
        """Wrap the body in one ``AttrStmt`` per entry (first outermost); add it to the parent."""
        body = self.body()
        for node, attr_key, value in reversed(self.entries):
            body = _stmt.AttrStmt(node, attr_key, value, body)
        add_to_parent(body)


class LaunchThreadFrame(AttrFrame):
    """``bx = T.launch_thread("blockIdx.x", 4)``: ``AttrStmt(iter_var, "thread_extent",
    extent, body)``. Entering it gives the thread variable; written as an assignment it lasts
    to the end of the enclosing body."""

    def __init__(self, iter_var, extent):
        super().__init__([(iter_var, "thread_extent", extent)])
        self.iter_var = iter_var

    def __enter__(self):
        super().__enter__()
        return self.iter_var.var


class IfFrame(IRBuilderFrame):
    """``with T.If(cond):`` holding a ``T.Then()`` and an optional ``T.Else()`` frame."""

    def __init__(self, condition):
        self.condition = condition
        self.then_case = None
        self.else_case = None

    def exit_with_scope(self) -> None:
        """Add an ``IfThenElse`` of the condition and the collected branches to the parent.

        Raises
        ------
        ValueError
            When no ``T.Then()`` branch was given.
        """
        if self.then_case is None:
            raise ValueError("T.If() needs a T.Then() branch")
        add_to_parent(_stmt.IfThenElse(self.condition, self.then_case, self.else_case))


class ThenFrame(TIRFrame):
    """The then-branch of the enclosing :class:`IfFrame`."""

    def exit_with_scope(self) -> None:
        """Store the body as the then-branch of the enclosing ``T.If()``.

        Raises
        ------
        ValueError
            When the parent frame is not a ``T.If()``.
        """
        frames = IRBuilder.current().frames
        if not frames or not isinstance(frames[-1], IfFrame):
            raise ValueError("T.Then() must be used directly inside T.If()")
        frames[-1].then_case = self.body()


class ElseFrame(TIRFrame):
    """The else-branch of the enclosing :class:`IfFrame`."""

    def exit_with_scope(self) -> None:
        """Store the body as the else-branch of the enclosing ``T.If()``.

        Raises
        ------
        ValueError
            When the parent frame is not a ``T.If()`` or no ``T.Then()`` came before.
        """
        frames = IRBuilder.current().frames
        if not frames or not isinstance(frames[-1], IfFrame):
            raise ValueError("T.Else() must be used directly inside T.If()")
        if frames[-1].then_case is None:
            raise ValueError("T.Else() must follow T.Then()")
        frames[-1].else_case = self.body()
