"""Error kinds of the TVM stack, as native Python exceptions.

Every kind subclasses ``RuntimeError`` (directly or through another kind) and is registered
with ``tvm_ffi`` under its class name, so an error raised through a ``tvm_ffi`` Function (in
Python or in compiled code that reports the kind by name) comes back as the same class.

There is no common base class of our own above ``RuntimeError``: catch ``RuntimeError`` (or
the specific kind). Invalid
arguments and invalid IR raise the builtin ``ValueError`` / ``TypeError``.

Each class keeps the single ``(msg)`` constructor: ``tvm_ffi`` rebuilds an exception from its
kind name and message when it crosses a Function boundary.
"""

from __future__ import annotations

from tvm_ffi import register_error

__all__ = [
    "DiagnosticError",
    "InternalError",
    "OpAttributeInvalid",
    "OpAttributeRequired",
    "OpAttributeUnImplemented",
    "OpError",
    "OpNotImplemented",
    "RPCError",
    "RPCSessionTimeoutError",
    "check",
    "check_failed",
    "register_error",
]


@register_error
class InternalError(RuntimeError):
    """A broken internal invariant of the stack itself (a bug, not a user error).

    Examples
    --------
    >>> import tvm
    >>> try:
    ...     tvm.error.check(1 + 1 == 3, "arithmetic is broken")
    ... except tvm.error.InternalError as err:
    ...     print(err)
    Check failed: (1 + 1 == 3) is false: arithmetic is broken
    """


@register_error
class RPCError(RuntimeError):
    """An error in an RPC session."""


@register_error
class RPCSessionTimeoutError(RPCError, TimeoutError):
    """An RPC session that timed out."""


@register_error
class OpError(RuntimeError):
    """Base class of errors about an operator."""


@register_error
class OpNotImplemented(OpError, NotImplementedError):
    """An operator is not implemented for the requested case."""


@register_error
class OpAttributeRequired(OpError, AttributeError):
    """A required operator attribute is missing."""


@register_error
class OpAttributeInvalid(OpError, AttributeError):
    """An operator attribute has an invalid value."""


@register_error
class OpAttributeUnImplemented(OpError, NotImplementedError):
    """An operator attribute is not supported yet."""


@register_error
class DiagnosticError(RuntimeError):
    """TVMScript that does not parse; the message carries the underlined source location."""


def check_failed(cond_text: str, msg: str = "") -> InternalError:
    """Build the ``InternalError`` of a failed invariant check (the ``ICHECK`` message format)."""
    text = f"Check failed: ({cond_text}) is false"
    if msg:
        text += f": {msg}"
    return InternalError(text)


def check(cond, msg: str = "", cond_text: str | None = None) -> None:
    """Raise ``InternalError("Check failed: (<cond>) is false: <msg>")`` when ``cond`` is falsy.

    For our own invariants only; validate user input with ``ValueError``/``TypeError``.

    Parameters
    ----------
    cond
        The condition that must hold.
    msg
        What went wrong, for the message.
    cond_text
        The condition as text; by default it is read from the caller's source line.
    """
    if cond:
        return
    if cond_text is None:
        cond_text = _caller_condition_text()
    raise check_failed(cond_text, msg)


def _caller_condition_text() -> str:
    """The first argument of the ``check(...)`` call in the caller's source, or ``"cond"``."""
    import ast
    import linecache
    import sys

    # Only runs on failure, so reading the source costs nothing on the normal path.
    frame = sys._getframe(2)
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return "cond"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("check", "icheck"):
                return ast.unparse(node.args[0])
    return "cond"


#: The spelling TVM's C++ uses for the same check.
icheck = check
