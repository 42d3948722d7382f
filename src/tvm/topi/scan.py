"""Cumulative computes: ``cumsum`` and ``cumprod`` (inclusive or exclusive) along an axis.

Written as a reduction over the prefix (``out[i] = sum(x[k] for k <= i)``): quadratic in the
scanned extent but a plain te compute that every later stage understands.
"""

from __future__ import annotations

from .. import te, tirx
from ..tirx import generic as _g
from .math import cast
from .transform import flatten
from .utils import as_index, normalize_axis, reduce_axis

__all__ = ["cumprod", "cumsum", "scanop"]


def scanop(data, binop, identity_value, op_name, axis=None, dtype=None, exclusive=None):
    """Cumulative ``binop`` (commutative and associative) of ``data`` along ``axis``.

    ``axis=None`` scans the flattened tensor; ``dtype`` casts ``data`` first; ``exclusive``
    shifts by one so the first element is ``identity_value``.
    """
    if dtype is not None and str(dtype) not in ("", "void") and str(dtype) != data.dtype:
        data = cast(data, str(dtype))
    if axis is None:
        data, axis = flatten(data), 0
    axis = normalize_axis(axis, data.ndim, op_name)
    reducer = te.comm_reducer(binop, lambda t: tirx.const(identity_value, t), name=op_name)
    k = reduce_axis(data.shape[axis], "k")

    def body(*i):
        idx = list(i)
        idx[axis] = as_index(k.var, i[axis].dtype)
        pos = as_index(k.var, i[axis].dtype)
        inside = _g.less(pos, i[axis]) if exclusive else _g.less_equal(pos, i[axis])
        return reducer(data(*idx), axis=[k], where=inside)

    return te.compute(data.shape, body, name=f"T_{op_name}", tag="scan")


def cumsum(data, axis=None, dtype=None, exclusive=None):
    """Cumulative sum along ``axis`` (``None``: of the flattened tensor)."""
    return scanop(data, lambda x, y: x + y, 0, "cumsum", axis, dtype, exclusive)


def cumprod(data, axis=None, dtype=None, exclusive=None):
    """Cumulative product along ``axis`` (``None``: of the flattened tensor)."""
    return scanop(data, lambda x, y: x * y, 1, "cumprod", axis, dtype, exclusive)
