"""Tensor creation computes: ``full``, ``full_like``, ``zeros``, ``ones``, ``arange``, ``eye``,
``trilu`` (``tril``/``triu``) and ``one_hot``."""

from __future__ import annotations

import math

from .. import te, tirx
from ..ir.expr import PrimExpr
from ..tirx import generic as _g
from .utils import as_index, compute, const_like, get_const_int, is_const_int, normalize_axis

__all__ = [
    "arange",
    "eye",
    "full",
    "full_like",
    "one_hot",
    "ones",
    "tril",
    "trilu",
    "triu",
    "zeros",
]


def _shape(shape):
    dims = [shape] if isinstance(shape, (int, PrimExpr)) else list(shape)
    dtype = "int64" if any(isinstance(d, PrimExpr) and d.dtype == "int64" for d in dims) \
        else "int32"
    return tuple(as_index(d, dtype) for d in dims)


def full(shape, dtype, fill_value):
    """A tensor of ``shape`` filled with ``fill_value`` (a number, a scalar PrimExpr, or a 0-D
    ``te.Tensor``, which is read and cast to ``dtype``)."""
    dtype = str(dtype)
    if isinstance(fill_value, te.Tensor):
        if fill_value.ndim != 0:
            raise ValueError(f"full: fill_value must be a 0-D tensor, got shape "
                             f"{list(fill_value.shape)}")
        source = fill_value

        def body(*_):
            v = source()
            return v if v.dtype == dtype else _g.cast(v, dtype)

        return compute(_shape(shape), body, name="T_full", tag="elemwise")
    value = const_like(fill_value, dtype)
    return compute(_shape(shape), lambda *i: value, name="T_full", tag="elemwise")


def full_like(x, fill_value):
    """A tensor shaped like ``x`` (same dtype) filled with ``fill_value``."""
    return full(x.shape, x.dtype, fill_value)


def zeros(shape, dtype="float32"):
    """A tensor of zeros (``full(shape, dtype, 0)``)."""
    return full(shape, dtype, 0)


def ones(shape, dtype="float32"):
    """A tensor of ones (``full(shape, dtype, 1)``)."""
    return full(shape, dtype, 1)


def arange(start, stop=None, step=1, dtype="float32"):
    """``[start, start + step, ...)`` below ``stop`` (as ``np.arange``; constant bounds give a
    static length, symbolic ones a ``ceildiv`` length)."""
    if stop is None:
        start, stop = 0, start
    dtype = str(dtype)
    if all(isinstance(v, (int, float)) for v in (start, stop, step)):
        if step == 0:
            raise ValueError("arange: step must not be 0")
        n = max(0, math.ceil((stop - start) / step))
        length = as_index(n, "int64")
    else:
        length = tirx.ceildiv(as_index(stop, "int64") - as_index(start, "int64"),
                              as_index(step, "int64"))
    first, delta = const_like(start, dtype), const_like(step, dtype)
    return compute((length,), lambda i: first + _g.cast(i, dtype) * delta,
                      name="T_arange", tag="elemwise")


def eye(n, m=None, k=0, dtype="float32"):
    """An ``n x m`` matrix with ones on the ``k``-th diagonal."""
    m = n if m is None else m
    one, zero = const_like(1, dtype), const_like(0, dtype)
    shape = _shape((n, m))

    def body(i, j):
        return tirx.Select(_g.equal(j - i, const_like(k, i.dtype)), one, zero)

    return compute(shape, body, name="T_eye", tag="elemwise")


def trilu(data, k, upper):
    """The lower (``upper=False``) or upper triangle of the last two axes, from the ``k``-th
    diagonal; other elements are zero (``np.tril``/``np.triu``)."""
    if data.ndim < 2:
        raise ValueError(f"trilu needs at least 2 dimensions, got {data.ndim}")
    zero = const_like(0, data.dtype)

    def body(*i):
        row, col = i[-2], i[-1]
        # TVM's spelling: ``row <= col - k`` (upper) or ``row >= col - k`` (lower).
        shifted = col - as_index(k, col.dtype)
        keep = _g.less_equal(row, shifted) if upper else _g.greater_equal(row, shifted)
        return tirx.Select(keep, data(*i), zero)

    return compute(data.shape, body, name="trilu", tag="elemwise")


def tril(data, k=0):
    """The lower triangle (``trilu(data, k, upper=False)``)."""
    return trilu(data, k, False)


def triu(data, k=0):
    """The upper triangle (``trilu(data, k, upper=True)``)."""
    return trilu(data, k, True)


def one_hot(indices, on_value, off_value, depth, axis, dtype):
    """``on_value`` where ``indices`` equals the position along a new axis ``axis`` of extent
    ``depth``, ``off_value`` elsewhere."""
    ndim = indices.ndim + 1
    axis = normalize_axis(-1 if axis is None else axis, ndim, "one_hot")
    idx_dtype = indices.shape[0].dtype if indices.ndim else "int64"
    depth = as_index(get_const_int(depth) if is_const_int(depth) else depth, idx_dtype)
    shape = list(indices.shape)
    shape.insert(axis, depth)
    on, off = const_like(on_value, str(dtype)), const_like(off_value, str(dtype))

    def body(*i):
        rest = list(i[:axis]) + list(i[axis + 1:])
        hot = _g.equal(_g.cast(indices(*rest), i[axis].dtype), i[axis])
        return tirx.Select(hot, on, off)

    return compute(tuple(shape), body, name="T_one_hot", tag="injective")
