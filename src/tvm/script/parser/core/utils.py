"""Capture of the names a decorated TVMScript object can see (globals, closure, caller)."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["capture_caller_vars", "capture_function_vars", "is_defined_in_class_body"]


def capture_function_vars(func) -> dict[str, Any]:
    """The globals of ``func`` overlaid with the values of its closure cells."""
    names = dict(getattr(func, "__globals__", {}))
    code = getattr(func, "__code__", None)
    closure = getattr(func, "__closure__", None) or ()
    if code is not None:
        for name, cell in zip(code.co_freevars, closure):
            try:
                names[name] = cell.cell_contents
            except ValueError:  # an empty cell: the name is not bound yet
                continue
    return names


def capture_caller_vars(depth: int) -> dict[str, Any]:
    """Globals and locals of the frame ``depth`` levels above the caller.

    A class body's names (or a function's local ``n = T.int64()``) are only reachable from the
    frame that runs the decorator, so decorators capture them when they are applied.
    """
    frame = sys._getframe(depth + 1)
    try:
        names = dict(frame.f_globals)
        names.update(frame.f_locals)
        return names
    finally:
        del frame


def is_defined_in_class_body(depth: int) -> bool:
    """Whether the frame ``depth`` levels above the caller executes a class body."""
    frame = sys._getframe(depth + 1)
    try:
        local_names = frame.f_locals
        return (
            frame.f_code.co_name != "<module>"
            and "__module__" in local_names
            and "__qualname__" in local_names
        )
    finally:
        del frame

