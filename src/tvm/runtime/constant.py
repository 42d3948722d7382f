"""``tvm.runtime.const``: a scalar constant expression (TVM 0.27's runtime-level spelling).

TVM code writes ``tvm.runtime.const(1, "int64")`` where it means ``tvm.tirx.const``; the result
is the same ``IntImm``/``FloatImm``: ``const(1)`` is int32, ``const(1.5)`` float32,
``const(True)`` bool, a NumPy scalar keeps its dtype, an integer beyond int32 is int64.
"""

from __future__ import annotations

from typing import Any

__all__ = ["const"]


def const(value: Any, dtype: str | None = None, span: Any = None) -> Any:
    """A constant scalar expression of ``value``.

    Parameters
    ----------
    value : int, float, bool or NumPy scalar
        The value.
    dtype : str, optional
        Its data type; inferred from ``value`` when omitted (see the module doc).
    span : Span, optional
        Where the constant comes from in the source.

    Returns
    -------
    PrimExpr
        An ``IntImm`` or ``FloatImm`` (equal to ``tvm.tirx.const(value, dtype)``).

    Raises
    ------
    TypeError
        When no dtype can be inferred from ``value`` (e.g. a string).
    """
    # Lazy: the constant expression classes live in tirx, a layer above the runtime.
    from ..tirx.generic import const as tirx_const

    return tirx_const(value, dtype, span)
