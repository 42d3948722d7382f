"""Indexing computes: ``take``, ``strided_slice``, ``where``, ``gather`` (``gather_elements``)
and ``scatter_elements``."""

from __future__ import annotations

import numbers

from .. import te, tirx
from ..ir.expr import PrimExpr
from ..tirx import generic as _g
from .broadcast import broadcast_index, broadcast_shape
from .utils import (
    as_index,
    compute,
    const_like,
    get_const_int,
    is_const_int,
    normalize_axis,
    reduce_axis,
    shape_dtype,
)

__all__ = ["dynamic_strided_slice", "gather", "gather_elements", "scatter_elements",
           "strided_slice", "take", "where"]


def _wrap_negative(index, extent):
    """``index + extent`` for a negative index (Python-style negative indexing)."""
    return tirx.Select(_g.less(index, const_like(0, index.dtype)), index + extent, index)


def _take_index(raw, extent, mode):
    index = _g.cast(raw, extent.dtype) if raw.dtype != extent.dtype else raw
    zero, one = const_like(0, extent.dtype), const_like(1, extent.dtype)
    if mode == "clip":
        return _g.min(_g.max(index, zero), extent - one)
    if mode == "wrap":
        return _g.floormod(index, extent)
    if mode == "fast":
        # "fast" assumes in-range indices (no bounds handling), as TVM.
        return index
    raise ValueError(f"take: mode must be 'clip', 'wrap' or 'fast', got {mode!r}")


def take(a, indices, axis=None, batch_dims=0, mode="fast"):
    """Elements of ``a`` at ``indices`` along ``axis`` (``None``: of the flattened ``a``).

    ``mode``: ``"clip"`` clamps indices into range, ``"wrap"`` wraps them (negative ones
    too), ``"fast"`` assumes they are in range. Limitation: ``batch_dims`` must be 0.
    """
    if get_const_int(batch_dims) != 0:
        raise ValueError(f"take: batch_dims={batch_dims} is not supported (only 0)")
    if isinstance(indices, (numbers.Integral, PrimExpr)) and not isinstance(indices, te.Tensor):
        idx_value = indices

        def scalar_index(*_):
            return as_index(idx_value, "int64") if not isinstance(idx_value, PrimExpr) \
                else idx_value

        indices_shape, load_index = (), scalar_index
    else:
        indices_shape, load_index = tuple(indices.shape), indices
    if axis is None:
        # Lazy: transform imports index-free helpers only; avoid a cycle at import time.
        from .transform import flatten

        a, axis = flatten(a), 0
    axis = normalize_axis(axis, a.ndim, "take")
    extent = a.shape[axis]
    k = len(indices_shape)
    shape = tuple(a.shape[:axis]) + indices_shape + tuple(a.shape[axis + 1:])

    def body(*i):
        raw = load_index(*i[axis:axis + k])
        pos = _take_index(raw, extent, mode)
        return a(*(list(i[:axis]) + [pos] + list(i[axis + k:])))

    return compute(shape, body, name="T_take", tag="injective")


def _slice_bounds(extent, begin, end, stride, assume_inbound):
    """``(start, length)`` of ``range(extent)[begin:end:stride]``.

    Symbolic extents: with ``assume_inbound`` the bounds are taken as in range (no clamping
    expressions in the shape, as TVM); otherwise they are clamped.
    """
    dtype = extent.dtype
    if is_const_int(extent) and all(is_const_int(v) or v is None for v in (begin, end)):
        b = None if begin is None else get_const_int(begin)
        e = None if end is None else get_const_int(end)
        start, stop, step = slice(b, e, stride).indices(get_const_int(extent))
        length = len(range(start, stop, step))
        return const_like(start, dtype), const_like(length, dtype)
    if stride < 0:
        raise ValueError("strided_slice: a negative stride needs constant extents and bounds "
                         "(symbolic extents are supported with positive strides only)")
    zero = const_like(0, dtype)
    b = zero if begin is None else as_index(begin, dtype)
    e = extent if end is None else as_index(end, dtype)
    if not assume_inbound or (is_const_int(b) and get_const_int(b) < 0):
        b = _g.min(_g.max(_wrap_negative(b, extent), zero), extent)
    if is_const_int(e) and get_const_int(e) < 0:
        e = e + extent
    if not assume_inbound and end is not None:
        e = _g.min(e, extent)
    length = tirx.ceildiv(e - b, const_like(stride, dtype))
    if not assume_inbound:
        length = _g.max(length, zero)
    # Lazy: arith simplification keeps lengths such as n - 1 readable.
    from ..arith import Analyzer

    return b, Analyzer().simplify(length)


def strided_slice(a, begin, end, strides=None, axes=None, slice_mode="end",
                  assume_inbound=True):
    """``a[begin:end:strides]`` on ``axes`` (all axes from 0 when ``None``), Python slice
    rules (negative bounds count from the end, out-of-range bounds clamp).

    ``slice_mode="size"`` reads ``end`` as sizes (-1: to the end), stride 1.
    """
    ndim = a.ndim
    axes = list(range(len(begin))) if axes is None else [normalize_axis(x, ndim,
                                                                        "strided_slice")
                                                         for x in axes]
    strides = [1] * len(axes) if strides is None else [get_const_int(s) for s in strides]
    if len(strides) < len(axes):
        strides = strides + [1] * (len(axes) - len(strides))
    if not len(begin) == len(end) == len(axes):
        raise ValueError(f"strided_slice: begin {list(begin)}, end {list(end)} and axes "
                         f"{axes} must have the same length")
    starts = [const_like(0, s.dtype) for s in a.shape]
    steps = [1] * ndim
    shape = list(a.shape)
    for ax, b, e, s in zip(axes, begin, end, strides):
        if slice_mode == "size":
            s = 1
            if is_const_int(e) and get_const_int(e) < 0:
                e = None
            else:
                e = (as_index(b, a.shape[ax].dtype) + as_index(e, a.shape[ax].dtype))
        elif slice_mode != "end":
            raise ValueError(f"strided_slice: slice_mode must be 'end' or 'size', got "
                             f"{slice_mode!r}")
        if s == 0:
            raise ValueError(f"strided_slice: stride 0 on axis {ax}")
        starts[ax], shape[ax] = _slice_bounds(a.shape[ax], b, e, s, assume_inbound)
        steps[ax] = s

    def body(*i):
        return a(*[st + v * const_like(sp, v.dtype) if sp != 1 else st + v
                   for st, v, sp in zip(starts, i, steps)])

    return compute(tuple(shape), body, name="T_strided_slice", tag="injective")


def dynamic_strided_slice(a, begin, end, strides, output_shape):
    """``a[begin:end:strides]`` with 1-D ``begin``/``end``/``strides`` *tensors* (one entry per
    leading axis of ``a``), producing ``output_shape`` (the caller computes the extents, e.g.
    Relax's inferred shape). A negative begin counts from the end; begins are not clamped
    (they must select in-range elements, as TVM's ``assume_inbound``).
    """
    del end  # the extents come from output_shape; end only determined them
    count = get_const_int(begin.shape[0])
    if len(output_shape) != a.ndim:
        raise ValueError(f"dynamic_strided_slice: output_shape {list(output_shape)} needs "
                         f"{a.ndim} extents")

    def body(*i):
        idx = []
        for d, v in enumerate(i):
            if d >= count:
                idx.append(v)
                continue
            extent = a.shape[d]
            b = _wrap_negative(_g.cast(begin(as_index(d, begin.shape[0].dtype)), extent.dtype),
                               extent)
            st = _g.cast(strides(as_index(d, strides.shape[0].dtype)), extent.dtype)
            idx.append(b + as_index(v, extent.dtype) * st)
        return a(*idx)

    dtype = a.shape[0].dtype if a.ndim else "int64"
    shape = tuple(as_index(s, dtype) for s in output_shape)
    return compute(shape, body, name="T_dynamic_strided_slice", tag="injective")


def where(condition, x, y):
    """``x`` where ``condition`` holds, else ``y`` (all three broadcast; ``x``/``y`` may be
    scalars)."""
    tensors = [t for t in (condition, x, y) if isinstance(t, te.Tensor)]
    shape = ()
    for t in tensors:
        shape = broadcast_shape(shape, t.shape, "where")
    dtype = next((t.dtype for t in (x, y) if isinstance(t, te.Tensor)), None)

    def read(t, i):
        if isinstance(t, te.Tensor):
            return t(*broadcast_index(t, shape, i))
        if isinstance(t, PrimExpr):
            return t
        return const_like(t, dtype or ("float32" if isinstance(t, float) else "int32"))

    index_dtype = shape_dtype(shape)

    def body(*i):
        cond = read(condition, i)
        if cond.dtype == "bool":
            # TVM's ``cond != 0`` on a bool casts it to the index dtype (``0 < int(cond)``).
            cond = _g.less(const_like(0, index_dtype), tirx.Cast(index_dtype, cond))
        else:
            cond = _g.not_equal(cond, const_like(0, cond.dtype))
        return tirx.Select(cond, read(x, i), read(y, i))

    return compute(shape, body, name="T_where", tag="broadcast")


def gather(data, axis, indices):
    """``out[i] = data[i with i[axis] := indices[i]]`` (negative indices count from the end)."""
    axis = normalize_axis(axis, data.ndim, "gather")
    if indices.ndim != data.ndim:
        raise ValueError(f"gather: indices have {indices.ndim} dims, data has {data.ndim}")
    extent = data.shape[axis]

    def body(*i):
        raw = indices(*i)
        idx = list(i)
        idx[axis] = _wrap_negative(_g.cast(raw, extent.dtype), extent)
        return data(*idx)

    return compute(indices.shape, body, name="T_gather", tag="injective")


def gather_elements(data, indices, axis=0):
    """Relax's ``gather_elements`` argument order for :func:`gather`."""
    return gather(data, axis, indices)


_SCATTER = {
    "update": lambda x, y: y,
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "max": lambda x, y: _g.max(x, y),
    "min": lambda x, y: _g.min(x, y),
    # TVM 0.27 averages each update with the current value, in index order.
    "mean": lambda x, y: (x + y) / const_like(2, x.dtype),
}


def scatter_elements(data, indices, updates, axis=0, reduction="update"):
    """``data`` with ``updates[q]`` combined into position ``q with q[axis] := indices[q]``.

    ``reduction``: ``"update"`` (the last update in index order wins), ``"add"``, ``"mul"``,
    ``"max"``, ``"min"`` or ``"mean"`` (TVM's running average, in index order). Written as one
    reduction over ``indices``' axis ``axis`` that starts from ``data``; its combiner is
    applied in loop order, so the ``"update"``/``"mean"`` results assume the serial order
    ``create_prim_func`` produces (a schedule that reorders that loop changes them).
    """
    if reduction not in _SCATTER:
        raise ValueError(f"scatter_elements: reduction must be one of {sorted(_SCATTER)}, "
                         f"got {reduction!r}")
    axis = normalize_axis(axis, data.ndim, "scatter_elements")
    if indices.ndim != data.ndim:
        raise ValueError(f"scatter_elements: indices have {indices.ndim} dims, data has "
                         f"{data.ndim}")
    extent = data.shape[axis]
    reducer = te.comm_reducer(_SCATTER[reduction], lambda t: const_like(0, t),
                              name=f"scatter_{reduction}")
    j = reduce_axis(indices.shape[axis], "j")

    def body(*p):
        q = list(p)
        q[axis] = as_index(j.var, p[axis].dtype)
        inside = tirx.const(True, "bool")
        for d in range(data.ndim):
            if d != axis:
                inside = _g.logical_and(inside, _g.less(p[d], as_index(indices.shape[d],
                                                                       p[d].dtype)))
        target = _wrap_negative(_g.cast(indices(*q), extent.dtype), extent)
        hit = _g.logical_and(inside, _g.equal(target, as_index(p[axis], extent.dtype)))
        return reducer(updates(*q), axis=[j], where=hit, init=data(*p))

    return compute(data.shape, body, name="T_scatter_elements", tag="injective")

