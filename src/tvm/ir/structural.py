"""Structural comparison at the ``tvm.ir`` level, with a readable failure report.

``structural_equal``, ``structural_hash`` and ``get_first_structural_mismatch`` are the object
model's (``tvm.ffi.structural``). :func:`assert_structural_equal` adds the report: the first
mismatch's access path on each side, and each side printed as TVMScript with the mismatch
underlined (for objects that have ``script(path_to_underline=...)``; others are shown with
``repr``).
"""

from __future__ import annotations

from ..ffi.structural import (
    first_mismatch_paths,
    format_path,
    get_first_structural_mismatch,
    path_to_access_path,
    structural_equal,
    structural_hash,
)

__all__ = [
    "assert_structural_equal",
    "get_first_structural_mismatch",
    "structural_equal",
    "structural_hash",
]


def assert_structural_equal(lhs, rhs, map_free_vars: bool = False) -> None:
    """Raise ``ValueError`` describing the first difference unless ``lhs`` and ``rhs`` are
    structurally equal.

    Parameters
    ----------
    lhs, rhs
        IR objects (or tuples, lists, dicts and leaves holding them).
    map_free_vars : bool
        Map free variables of ``lhs`` onto those of ``rhs`` instead of requiring identity.

    Raises
    ------
    ValueError
        ``StructuralEqual check failed, caused by lhs at <path>:`` followed by the lhs
        (underlined at the mismatch when it prints as TVMScript), then the same for rhs.

    Examples
    --------
    >>> from tvm.ir import assert_structural_equal
    >>> assert_structural_equal((1, 2), (1, 2))
    >>> assert_structural_equal((1, 2), (1, 3))
    Traceback (most recent call last):
    ...
    ValueError: StructuralEqual check failed, caused by lhs at <root>[1]:
    ...
    """
    paths = first_mismatch_paths(lhs, rhs, map_free_vars)
    if paths is None:
        return
    lpath, rpath = paths
    message = (
        f"StructuralEqual check failed, caused by lhs at {format_path(lpath)}:\n"
        f"{_render(lhs, lpath)}\n"
        f"and rhs at {format_path(rpath)}:\n"
        f"{_render(rhs, rpath)}"
    )
    raise ValueError(message)


def _render(value, path) -> str:
    """``value`` as TVMScript underlined at ``path`` when it can print itself, else repr."""
    script = getattr(value, "script", None)
    if callable(script):
        try:
            return script(path_to_underline=[path_to_access_path(path)])
        except Exception as err:  # noqa: BLE001 - the report must not hide the mismatch
            note = f"(TVMScript printing failed: {type(err).__name__}: {err})\n"
            return note + _safe_repr(value)
    return f"Access path: {format_path(path)}\n\n{_safe_repr(value)}"


def _safe_repr(value) -> str:
    try:
        return repr(value)
    except RecursionError:
        # Deep trees overflow the recursive repr; the paths above still locate the mismatch.
        return object.__repr__(value)
