"""Reductions over axes (``topi.sum``, ``max``, ``min``, ``prod``, ``argmax``, ``argmin``...).

``axis=None`` reduces every axis; ``keepdims=True`` keeps reduced axes as extent 1. The
results keep the input dtype, except ``argmax``/``argmin`` which give indices in the shape's
index dtype (int64 for the int64 shapes Relax uses); with several reduced axes the index is
the row-major flat position within the reduced axes, as NumPy's ``axis=None``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import te, tirx
from ..tirx import generic as _g
from .broadcast import multiply, subtract
from .utils import (
    compute,
    const_like,
    get_const_int,
    is_const_int,
    normalize_axes,
    reduce_axis,
)

__all__ = ["all", "any", "argmax", "argmin", "max", "mean", "min", "prod", "std", "sum",
           "variance"]


def reduced_shape(shape, axes, keepdims) -> tuple:
    """The output shape of reducing ``axes`` of ``shape``."""
    out = []
    for d, dim in enumerate(shape):
        if d in axes:
            if keepdims:
                out.append(const_like(1, dim.dtype))
        else:
            out.append(dim)
    return tuple(out)


def reduce_indices(data, axes, keepdims, out_index, raxes) -> tuple:
    """The index of ``data`` read at output ``out_index`` and reduction axes ``raxes``."""
    idx, pos, r = [], 0, 0
    for d in range(data.ndim):
        if d in axes:
            idx.append(raxes[r].var)
            r += 1
            if keepdims:
                pos += 1
        else:
            idx.append(out_index[pos])
            pos += 1
    return tuple(idx)


def comm_reduce(data, axis, keepdims, reducer, name):
    """Reduce ``data`` over ``axis`` with a ``te`` reducer (``te.sum``, ``te.max``...)."""
    axes = normalize_axes(axis, data.ndim, name or "reduce")
    raxes = [reduce_axis(data.shape[d], f"k{d}") for d in axes]

    def body(*i):
        return reducer(data(*reduce_indices(data, axes, keepdims, i, raxes)), axis=raxes)

    # Named "<input>_red" with axes ax0, ax1... as TVM's reductions.
    return compute(reduced_shape(data.shape, axes, keepdims), body,
                   name=f"{data.name}_red" if name is None else name, tag="comm_reduce")


# As TVM: a product of booleans combines with ``and``.
_prod = te.comm_reducer(lambda x, y: _g.logical_and(x, y) if x.dtype == "bool" else x * y,
                        lambda t: tirx.const(1, t), name="prod")
_all = te.comm_reducer(_g.logical_and, lambda t: tirx.const(True, "bool"), name="all")
_any = te.comm_reducer(_g.logical_or, lambda t: tirx.const(False, "bool"), name="any")


def sum(
    data: te.Tensor, axis: int | Sequence[int] | None = None, keepdims: bool = False
) -> te.Tensor:
    """Sum of ``data`` over ``axis``."""
    return comm_reduce(data, axis, keepdims, te.sum, None)


def max(data, axis=None, keepdims=False):
    """Maximum of ``data`` over ``axis``."""
    return comm_reduce(data, axis, keepdims, te.max, None)


def min(data, axis=None, keepdims=False):
    """Minimum of ``data`` over ``axis``."""
    return comm_reduce(data, axis, keepdims, te.min, None)


def prod(data, axis=None, keepdims=False):
    """Product of ``data`` over ``axis``."""
    return comm_reduce(data, axis, keepdims, _prod, None)


def all(data, axis=None, keepdims=False):
    """Logical and of a bool tensor over ``axis``."""
    return comm_reduce(data, axis, keepdims, _all, None)


def any(data, axis=None, keepdims=False):
    """Logical or of a bool tensor over ``axis``."""
    return comm_reduce(data, axis, keepdims, _any, None)


def reduced_count(data, axis):
    """The number of elements each output of a reduction over ``axis`` combines."""
    axes = normalize_axes(axis, data.ndim, "mean")
    count = 1
    for d in axes:
        dim = data.shape[d]
        count = count * (get_const_int(dim) if is_const_int(dim) else dim)
    return count


def mean(data, axis=None, keepdims=False):
    """Mean of ``data`` over ``axis`` (the sum divided by the count)."""
    total = sum(data, axis, keepdims)
    count = const_like(reduced_count(data, axis), data.dtype)
    if data.dtype.startswith(("int", "uint")):
        # As ``np.mean(...).astype(int)``: the integer quotient truncates toward zero.
        return te.compute(total.shape, lambda *i: _g.truncdiv(total(*i), count),
                          name="T_divide", tag="elemwise")
    return te.compute(total.shape, lambda *i: total(*i) / count, name="T_divide",
                      tag="elemwise")


def variance(data, axis=None, keepdims=False):
    """Biased variance (``np.var``) over ``axis``: the mean of squared deviations."""
    # Staged as TVM: the broadcast ``x - mean`` (T_subtract), its square (T_multiply), then
    # their mean.
    axes = normalize_axes(axis, data.ndim, "variance")
    deviation = subtract(data, mean(data, axes, True))
    return mean(multiply(deviation, deviation), axes, keepdims)


def std(data, axis=None, keepdims=False):
    """Standard deviation (``np.std``): ``sqrt(variance)``."""
    var = variance(data, axis, keepdims)
    return te.compute(var.shape, lambda *i: tirx.sqrt(var(*i)), name="T_sqrt", tag="elemwise")


def _arg_reducer(is_max, select_last_index):
    """TVM's two-value (index, value) reducer: the better value wins; on a tie the smaller
    index (the larger one with ``select_last_index``)."""

    def fcombine(lhs, rhs):
        better = _g.greater(lhs[1], rhs[1]) if is_max else _g.less(lhs[1], rhs[1])
        tie_wins = _g.greater(lhs[0], rhs[0]) if select_last_index else _g.less(lhs[0], rhs[0])
        keep = _g.logical_or(better, _g.logical_and(_g.equal(lhs[1], rhs[1]), tie_wins))
        return tirx.Select(keep, lhs[0], rhs[0]), tirx.Select(better, lhs[1], rhs[1])

    def fidentity(idx_dtype, val_dtype):
        worst = tirx.min_value(val_dtype) if is_max else tirx.max_value(val_dtype)
        return const_like(-1, idx_dtype), worst

    return te.comm_reducer(fcombine, fidentity, name="argmax" if is_max else "argmin")


def _arg_reduce(data, axis, keepdims, select_last_index, is_max, name):
    """``argmax``/``argmin`` as TVM stages them: one two-value reduction
    ``<x>_red_temp`` (index and value, ``_v0``/``_v1``) over the row-major index of the reduced
    axes, then ``<x>_red`` copies the index."""
    axes = normalize_axes(axis, data.ndim, name)
    raxes = [reduce_axis(data.shape[d], f"k{d}") for d in axes]
    out_shape = reduced_shape(data.shape, axes, keepdims)
    reducer = _arg_reducer(is_max, select_last_index)

    def body(*i):
        src = reduce_indices(data, axes, keepdims, i, raxes)
        flat = None
        for d, r in zip(axes, raxes):
            flat = r.var if flat is None else flat * data.shape[d] + r.var
        return reducer((flat, data(*src)), axis=raxes)

    index, _ = compute(out_shape, body, name=f"{data.name}_red_temp", tag="comm_reduce_idx")
    return compute(out_shape, lambda *i: index(*i), name=f"{data.name}_red",
                   tag="comm_reduce_idx")


def argmax(data, axis=None, keepdims=False, select_last_index=False):
    """Index of the maximum of ``data`` over ``axis`` (the first one, or the last one).

    Limitation: NaN inputs are not special-cased (NumPy returns the first NaN's index).
    """
    return _arg_reduce(data, axis, keepdims, select_last_index, True, "T_argmax")


def argmin(data, axis=None, keepdims=False, select_last_index=False):
    """Index of the minimum of ``data`` over ``axis`` (the first one, or the last one).

    Limitation: NaN inputs are not special-cased (NumPy returns the first NaN's index).
    """
    return _arg_reduce(data, axis, keepdims, select_last_index, False, "T_argmin")
