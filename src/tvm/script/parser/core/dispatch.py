"""The table of parse handlers, keyed by dialect token and Python AST node type.

A dialect (``"ir"``, ``"relax"``, ``"tirx"``) registers one handler per AST node type it
gives meaning to; the parser looks up ``(token, type(node).__name__)`` for the dialect whose
scope it is in, falling back to the ``"default"`` token. New dialects register here without
the parser core knowing them.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["get", "get_op", "register", "register_op"]

# (token, AST node type name) -> handler(parser, node)
_HANDLERS: dict[tuple[str, str], Callable] = {}
# (token, AST operator type name, operand count) -> function(*operands)
_OPERATORS: dict[tuple[str, str, int], Callable] = {}


def register(token: str, type_name: str) -> Callable:
    """Decorator registering ``handler(parser, node)`` for AST nodes of ``type_name``."""

    def _register(handler: Callable) -> Callable:
        _HANDLERS[(token, type_name)] = handler
        return handler

    return _register


def get(token: str, type_name: str, default: Callable | None = None) -> Callable | None:
    """The handler of ``token`` for ``type_name``, else the default dialect's, else ``default``."""
    handler = _HANDLERS.get((token, type_name))
    if handler is None:
        handler = _HANDLERS.get(("default", type_name), default)
    return handler


def register_op(token: str, op_name: str, num_operands: int) -> Callable:
    """Decorator overriding a Python operator (``"Add"``, ``"USub"``...) inside a dialect."""

    def _register(func: Callable) -> Callable:
        _OPERATORS[(token, op_name, num_operands)] = func
        return func

    return _register


def get_op(token: str, op_name: str, num_operands: int) -> Callable | None:
    """The dialect's override of a Python operator, or ``None`` to use Python's own."""
    return _OPERATORS.get((token, op_name, num_operands))
