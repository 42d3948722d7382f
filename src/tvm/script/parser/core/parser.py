"""The TVMScript parser core: a variable table, dialect dispatch, and error reporting.

The parser walks the Python AST of the program. Statements are handed to the handler that
the current dialect (``"ir"``, ``"relax"``, ``"tirx"``) registered for their AST node type
(see :mod:`.dispatch`); expressions inside them are evaluated by :class:`ExprEvaluator`.
Handlers drive the IR builder (``tvm.script.ir_builder``), which produces the IR.

Any exception raised while a statement is handled becomes a
:class:`tvm.error.DiagnosticError` located at that statement (or, for a failing call, at the
call), rendered by :class:`~.diagnostics.Diagnostics`.
"""

from __future__ import annotations

import ast
import builtins
import importlib
from collections import defaultdict
from contextlib import contextmanager
from typing import Any

from tvm.error import DiagnosticError

from . import dispatch
from .diagnostics import Diagnostics, Source, reduce_error_message
from .evaluator import ExprEvaluator, UndefinedVariableError

__all__ = ["Parser", "VarTable"]

_NOT_FOUND = object()


class VarTable:
    """Names defined by the script, in nested scopes (a frame per function, branch...)."""

    def __init__(self):
        self.frames: list[set] = [set()]
        self.name2value: dict[str, list] = defaultdict(list)

    @contextmanager
    def with_frame(self):
        """A new innermost scope; its names disappear when the ``with`` block ends."""
        self.frames.append(set())
        try:
            yield
        finally:
            for name in self.frames.pop():
                stack = self.name2value[name]
                stack.pop()
                if not stack:
                    del self.name2value[name]

    def add(self, name: str, value: Any, allow_shadowing: bool = False) -> None:
        """Define ``name`` in the innermost scope (re-definition there needs ``allow_shadowing``)."""
        frame = self.frames[-1]
        if name in frame:
            if not allow_shadowing:
                raise ValueError(f"Variable {name} already defined in current scope")
            self.name2value[name][-1] = value
            return
        frame.add(name)
        self.name2value[name].append(value)

    def lookup(self, name: str, default=_NOT_FOUND):
        """The innermost value of ``name``, or ``default``."""
        stack = self.name2value.get(name)
        if stack:
            return stack[-1]
        return default

    def get(self) -> dict[str, Any]:
        """A snapshot ``{name: innermost value}``."""
        return {name: stack[-1] for name, stack in self.name2value.items() if stack}

    def exist(self, value: Any) -> bool:
        """Whether ``value`` is currently bound to some name."""
        return any(stack and stack[-1] is value for stack in self.name2value.values())


class Parser:
    """Parses one :class:`~.diagnostics.Source` into IR through the IR builder.

    Parameters
    ----------
    source : Source
        The program text and its location.
    extra_vars : dict
        Names visible to the script besides those it defines (the decorated object's
        globals and closure, or the default dialect namespaces).
    s_tir : bool
        Whether TIR functions are parsed as schedulable (``s_tir``) functions.
    absent_params : object, optional
        Passed through to dialects that accept it (TIR); the Relax dialect ignores it.
    """

    def __init__(self, source: Source, extra_vars: dict, s_tir=False, absent_params=None):
        self.source = source
        self.diag = Diagnostics(source)
        self.extra_vars = dict(extra_vars)
        self.var_table = VarTable()
        self.evaluator = ExprEvaluator(self)
        self.s_tir = s_tir
        self.absent_params = absent_params
        self._tokens: list[str] = ["default"]
        # Per-dialect scratch state (e.g. the Relax dialect's function-nesting depth).
        self.state: dict[str, Any] = {}

    # Dispatch -----------------------------------------------------------------------------
    @property
    def current_token(self) -> str:
        """The dialect whose scope the parser is in."""
        return self._tokens[-1]

    @contextmanager
    def with_dispatch_token(self, token: str):
        """Parse the enclosed nodes with ``token``'s handlers."""
        self._tokens.append(token)
        try:
            yield
        finally:
            self._tokens.pop()

    def parse(self, default_token: str | None = None, node: ast.AST | None = None):
        """Parse the whole source (or ``node``); ``default_token`` is the dialect of a
        top-level definition that carries no decorator (a class read back by ``inspect``)."""
        if node is None:
            node = self.source.as_ast()
        #: The parsed tree; whole-program diagnostics are located at it.
        self.tree = node
        self.state["default_token"] = default_token
        self.visit(node)

    def visit(self, node: ast.AST) -> Any:
        """Dispatch ``node`` to the current dialect's handler; errors are located at ``node``."""
        handler = dispatch.get(self.current_token, type(node).__name__)
        if handler is None:
            self.report_error(
                node,
                f"Unsupported statement in the {self.current_token!r} dialect: "
                f"{type(node).__name__}",
            )
        try:
            return handler(self, node)
        except DiagnosticError:
            raise
        except Exception as err:  # noqa: BLE001 - every failure becomes a located diagnostic
            self.report_error(node, err)

    def visit_body(self, stmts: list[ast.stmt]) -> None:
        """Visit statements in order."""
        for stmt in stmts:
            self.visit(stmt)

    def decorator_token(self, node: ast.AST) -> str | None:
        """The dialect token of a definition, from its first decorator (``R.function``...)."""
        for deco in getattr(node, "decorator_list", ()):
            target = deco.func if isinstance(deco, ast.Call) else deco
            value = self.eval_expr(target)
            token = getattr(value, "dispatch_token", None)
            if token is not None:
                return token
        return None

    # Names and expressions ----------------------------------------------------------------
    def lookup(self, name: str) -> Any:
        """The value of ``name``: script-defined, then captured, then a Python builtin."""
        value = self.var_table.lookup(name)
        if value is not _NOT_FOUND:
            return value
        value = self.extra_vars.get(name, _NOT_FOUND)
        if value is not _NOT_FOUND:
            return value
        value = getattr(builtins, name, _NOT_FOUND)
        if value is not _NOT_FOUND:
            return value
        raise UndefinedVariableError(name)

    def eval_expr(self, node: ast.AST) -> Any:
        """Evaluate an expression node."""
        return self.evaluator.eval(node)

    # Errors -------------------------------------------------------------------------------
    def report_error(self, node: ast.AST, err) -> None:
        """Raise a :class:`DiagnosticError` for ``err`` (a message or an exception) at ``node``.

        A ``DiagnosticError`` passes through unchanged; other exceptions are reduced to one
        message (see :func:`~.diagnostics.reduce_error_message`) and keep their traceback.
        """
        if isinstance(err, DiagnosticError):
            raise err
        if isinstance(err, BaseException):
            text = self.diag.format(node, reduce_error_message(err))
            raise DiagnosticError(text).with_traceback(err.__traceback__) from err
        self.diag.error(node, str(err))


# Default handlers: Python statements that mean the same in every dialect. ------------------


@dispatch.register("default", "Module")
def _visit_module(parser: Parser, node: ast.Module) -> None:
    parser.visit_body(node.body)


def _visit_definition(parser: Parser, node) -> None:
    token = parser.decorator_token(node) or parser.state.get("default_token")
    if token is None:
        parser.report_error(
            node,
            "Cannot tell which dialect this definition belongs to: decorate it with "
            "@I.ir_module, @R.function or @T.prim_func",
        )
    with parser.with_dispatch_token(token):
        handler = dispatch.get(token, type(node).__name__)
        if handler is None:
            parser.report_error(node, f"The {token!r} dialect cannot parse a {type(node).__name__}")
        handler(parser, node)


dispatch.register("default", "ClassDef")(_visit_definition)
dispatch.register("default", "FunctionDef")(_visit_definition)


@dispatch.register("default", "Assign")
def _visit_assign(parser: Parser, node: ast.Assign) -> None:
    # Top-level Python assignments (``n = TypeVar("n")`` in printed modules) bind names.
    value = parser.eval_expr(node.value)
    for target in node.targets:
        bind_python_target(parser, target, value)


@dispatch.register("default", "Expr")
def _visit_expr(parser: Parser, node: ast.Expr) -> None:
    parser.eval_expr(node.value)


@dispatch.register("default", "Import")
def _visit_import(parser: Parser, node: ast.Import) -> None:
    # ``import numpy as np`` at the top of a script binds the module, as Python would.
    for alias in node.names:
        module = importlib.import_module(alias.name)
        if alias.asname:
            parser.var_table.add(alias.asname, module, allow_shadowing=True)
        else:
            top = alias.name.partition(".")[0]
            parser.var_table.add(top, importlib.import_module(top), allow_shadowing=True)


@dispatch.register("default", "ImportFrom")
def _visit_import_from(parser: Parser, node: ast.ImportFrom) -> None:
    # ``from tvm.script import relax as R``: the same module the default names hold.
    if node.level:
        parser.report_error(node, "Relative imports are not supported in TVMScript")
    module = importlib.import_module(node.module)
    for alias in node.names:
        if alias.name == "*":
            parser.report_error(node, "`import *` is not supported in TVMScript")
        try:
            value = getattr(module, alias.name)
        except AttributeError:
            value = importlib.import_module(f"{node.module}.{alias.name}")
        parser.var_table.add(alias.asname or alias.name, value, allow_shadowing=True)


@dispatch.register("default", "Pass")
def _visit_pass(parser: Parser, node) -> None:
    return None


def bind_python_target(parser: Parser, target: ast.AST, value: Any) -> None:
    """Bind a Python value to an assignment target (a name or a tuple of names)."""
    if isinstance(target, ast.Name):
        parser.var_table.add(target.id, value, allow_shadowing=True)
    elif isinstance(target, (ast.Tuple, ast.List)):
        values = list(value)
        if len(values) != len(target.elts):
            parser.report_error(
                target,
                f"Cannot unpack {len(values)} values into {len(target.elts)} names",
            )
        for elt, item in zip(target.elts, values):
            bind_python_target(parser, elt, item)
    else:
        parser.report_error(target, f"Unsupported assignment target: {type(target).__name__}")
