"""Sorting computes: ``argsort``, ``sort`` and ``topk``, written as te computes.

Algorithm (correctness over speed): the stable rank of element ``i`` along the axis is the
number of elements that come before it, ``#{j : x[j] < x[i] or (x[j] == x[i] and j < i)}``
(``>`` for descending); the ``r``-th sorted position then picks the ``i`` whose rank is
``r``. Both steps are reductions, quadratic in the sorted extent. Ties keep input order, as
NumPy's stable sort. Limitation: NaN is not ordered (NaNs get rank positions arbitrarily).
"""

from __future__ import annotations

from .. import te, tirx
from ..tirx import generic as _g
from .utils import as_index, const_like, get_const_int, normalize_axis, reduce_axis, shape_dtype

__all__ = ["argsort", "sort", "topk"]


def _ranks(data, axis, descending):
    """``rank[i]``: where element ``i`` lands in the stable sorted order along ``axis``."""
    dtype = data.shape[axis].dtype
    j = reduce_axis(data.shape[axis], "j")

    def body(*i):
        other = list(i)
        other[axis] = j.var
        xi, xj = data(*i), data(*other)
        before = _g.greater(xj, xi) if descending else _g.less(xj, xi)
        tie = _g.logical_and(_g.equal(xj, xi), _g.less(j.var, i[axis]))
        counted = _g.logical_or(before, tie)
        return te.sum(tirx.Select(counted, const_like(1, dtype), const_like(0, dtype)), axis=[j])

    return te.compute(data.shape, body, name="T_rank", tag="sort_rank")


def _order(data, axis, descending, k, out_dtype):
    """``order[r]``: the input position of the ``r``-th element (for ``r < k``)."""
    ranks = _ranks(data, axis, descending)
    i = reduce_axis(data.shape[axis], "i")
    shape = list(data.shape)
    shape[axis] = k

    def body(*r):
        src = list(r)
        src[axis] = i.var
        hit = _g.equal(ranks(*src), as_index(r[axis], ranks.dtype))
        pos = _g.cast(i.var, out_dtype)
        # Exactly one position has each rank: summing the selected index picks it.
        return te.sum(tirx.Select(hit, pos, const_like(0, out_dtype)), axis=[i])

    return te.compute(tuple(shape), body, name="T_argsort", tag="sort_order")


def _gather_sorted(data, order, axis, name):
    def body(*r):
        src = list(r)
        src[axis] = as_index(order(*r), data.shape[axis].dtype)
        return data(*src)

    return te.compute(order.shape, body, name=name, tag="sort_values")


def argsort(data, valid_count=None, axis=-1, is_ascend=1, dtype="float32"):
    """Indices that sort ``data`` along ``axis`` (stable), as ``dtype``.

    Limitation: ``valid_count`` is not supported (``ValueError``).
    """
    if valid_count is not None:
        raise ValueError("argsort: valid_count is not supported")
    axis = normalize_axis(axis, data.ndim, "argsort")
    return _order(data, axis, not is_ascend, data.shape[axis], str(dtype))


def sort(data, axis=-1, is_ascend=1):
    """``data`` sorted along ``axis`` (stable)."""
    axis = normalize_axis(axis, data.ndim, "sort")
    order = _order(data, axis, not is_ascend, data.shape[axis], shape_dtype(data.shape))
    return _gather_sorted(data, order, axis, "T_sort")


def topk(data, k=1, axis=-1, ret_type="both", is_ascend=False, dtype="int64"):
    """The ``k`` largest (or, with ``is_ascend``, smallest) elements along ``axis``.

    ``ret_type``: ``"both"`` returns ``[values, indices]``, ``"values"`` or ``"indices"`` one
    tensor. ``k < 1`` takes the whole axis. Ties keep input order.
    """
    if ret_type not in ("both", "values", "indices"):
        raise ValueError(f"topk: ret_type must be 'both', 'values' or 'indices', got "
                         f"{ret_type!r}")
    axis = normalize_axis(axis, data.ndim, "topk")
    extent = data.shape[axis]
    k = get_const_int(k)
    count = extent if k < 1 else as_index(k, extent.dtype)
    order = _order(data, axis, not is_ascend, count, str(dtype))
    if ret_type == "indices":
        return order
    values = _gather_sorted(data, order, axis, "T_topk_values")
    return values if ret_type == "values" else [values, order]
