"""Type inference of reductions (``relax.sum``): axes, ``keepdims``."""

from __future__ import annotations

from ..infer_utils import (
    known_shape,
    make_tensor_type,
    normalize_axes,
    reduced_tensor_type,
    tensor_args,
)


def infer_statistical(call, _bb=None):
    """Reduce over ``attrs.axis`` (all axes when None); keep size-1 dims with ``keepdims``."""
    (data,) = tensor_args(call, 1)
    axis = call.attrs.axis
    keepdims = bool(call.attrs.keepdims)
    if data.ndim == -1:
        if axis is None and not keepdims:
            return make_tensor_type(None, data.dtype, 0, data.vdevice)
        return make_tensor_type(None, data.dtype, -1, data.vdevice)
    axes = range(data.ndim) if axis is None else normalize_axes(call, data.ndim, axis)
    axes = set(axes)
    return reduced_tensor_type(data, axes, keepdims, data.dtype)


def infer_scan(call, _bb=None):
    """``cumsum``/``cumprod``: the input's shape (flattened when ``axis`` is None)."""
    from ..infer_utils import normalize_axis, product, tensor_arg

    data = tensor_arg(call, 0, "input data")
    dtype = call.attrs.dtype
    dtype = data.dtype if dtype is None or str(dtype) in ("", "void") else str(dtype)
    if call.attrs.axis is None:
        values = known_shape(data)
        if values is None:
            return make_tensor_type(None, dtype, 1, data.vdevice)
        return make_tensor_type([product(values)], dtype, 1, data.vdevice)
    if data.ndim != -1:
        normalize_axis(call, data.ndim, call.attrs.axis)
    from ..infer_utils import same_type_as

    return same_type_as(data, dtype)


def infer_median(call, _bb=None):
    """``median``: the reduced tensor when ``axis`` is None, else ``(values, int64 indices)``.

    As in Apache TVM 0.27: with an unknown rank, only ``axis=None, keepdims=False`` is known
    to be a 0-d tensor; every other case is the tuple of two tensors of unknown rank.
    """
    from ...ty import TupleType

    (data,) = tensor_args(call, 1)
    axis = call.attrs.axis
    keepdims = bool(call.attrs.keepdims)
    if data.ndim == -1:
        if axis is None and not keepdims:
            return make_tensor_type(None, data.dtype, 0, data.vdevice)
        return TupleType([
            make_tensor_type(None, data.dtype, -1, data.vdevice),
            make_tensor_type(None, "int64", -1, data.vdevice),
        ])
    axes = set(range(data.ndim) if axis is None else normalize_axes(call, data.ndim, axis))
    values = reduced_tensor_type(data, axes, keepdims, data.dtype)
    if axis is None:
        return values
    return TupleType([values, reduced_tensor_type(data, axes, keepdims, "int64")])
