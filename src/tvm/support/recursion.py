"""Deeply nested IR: room for the recursive visitors, and a clear error past it.

The printer, the parser, the well-formedness checks and the compiler walk IR recursively,
a few Python frames per nesting level. Python's default recursion limit (1,000 frames) stops
them at a few hundred levels with a raw ``RecursionError``. :func:`deep_recursion` wraps those
user-facing entry points: while one runs, the limit is raised to :data:`DEEP_RECURSION_LIMIT`,
and a ``RecursionError`` that still happens becomes an :class:`IRTooDeepError` (a
``ValueError``) that says which operation failed and what to do.

With the raised limit a 10,000-level TIR expression prints, parses, passes the
well-formedness check and compiles; 20,000 levels give the clear error. The C stack is not
the bound: with an even higher limit (10**6 frames) 40,000 levels still ran on the default
8 MiB stack (figures in docs/arch/reliability.md). The limit is process-wide in Python; a counter keeps it
raised while any thread is inside a guarded operation and restores the user's value after the
last one leaves.
"""

from __future__ import annotations

import contextlib
import sys
import threading

__all__ = ["DEEP_RECURSION_LIMIT", "IRTooDeepError", "deep_recursion"]

#: Python frames allowed while a guarded operation runs.
DEEP_RECURSION_LIMIT = 60_000

_lock = threading.Lock()
_active = 0
_saved_limit = None


class IRTooDeepError(ValueError):
    """The IR is nested more deeply than pytvm's recursive visitors can walk."""


@contextlib.contextmanager
def deep_recursion(what: str):
    """Run ``what`` (e.g. ``"printing"``) with room for deep IR; a RecursionError inside it
    becomes an :class:`IRTooDeepError` naming ``what``."""
    global _active, _saved_limit
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            if _saved_limit < DEEP_RECURSION_LIMIT:
                sys.setrecursionlimit(DEEP_RECURSION_LIMIT)
        _active += 1
    try:
        yield
    except RecursionError:
        raise IRTooDeepError(
            f"{what}: the IR is nested too deeply (Python's recursion limit of "
            f"{sys.getrecursionlimit()} frames was reached). Bind deep sub-expressions to "
            "variables (T.Bind / let, or separate Relax bindings) to flatten it"
        ) from None
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _saved_limit is not None:
                if sys.getrecursionlimit() == DEEP_RECURSION_LIMIT:
                    sys.setrecursionlimit(_saved_limit)
                _saved_limit = None
