"""Type inference of search and sort ops."""

from __future__ import annotations

from ....ir.type import TupleType
from ...ir_types import IntImm64
from ..infer_utils import (
    known_shape,
    make_tensor_type,
    normalize_axis,
    reduced_tensor_type,
    same_type_as,
    tensor_arg,
)


def infer_argmax_argmin(call, _bb=None):
    """int64 indices; the reduced axis is dropped (kept as 1 with ``keepdims``)."""
    data = tensor_arg(call, 0, "input x")
    axis, keepdims = call.attrs.axis, bool(call.attrs.keepdims)
    if data.ndim == -1:
        ndim = 0 if axis is None and not keepdims else -1
        return make_tensor_type(None, "int64", ndim, data.vdevice)
    axes = range(data.ndim) if axis is None else [normalize_axis(call, data.ndim, axis)]
    return reduced_tensor_type(data, axes, keepdims, "int64")


def _check_axis(call, data):
    if data.ndim != -1:
        normalize_axis(call, data.ndim, call.attrs.axis)


def infer_sort(call, _bb=None):
    """The input's type."""
    data = tensor_arg(call, 0, "input x")
    _check_axis(call, data)
    return data


def infer_argsort(call, _bb=None):
    """The input's shape with the index ``dtype``."""
    data = tensor_arg(call, 0, "input data")
    _check_axis(call, data)
    return same_type_as(data, str(call.attrs.dtype))


def infer_topk(call, _bb=None):
    """``k`` along ``axis``: values (input dtype), indices (``dtype``), or both as a tuple."""
    data = tensor_arg(call, 0, "input data")
    k = int(call.attrs.k)
    values_ty = data
    if data.ndim != -1:
        axis = normalize_axis(call, data.ndim, call.attrs.axis)
        dims = known_shape(data)
        if dims is not None:
            dims = list(dims)
            extent = getattr(dims[axis], "value", None)
            if k >= 1 and (extent is None or k <= extent):
                dims[axis] = IntImm64(k)
            values_ty = make_tensor_type(dims, data.dtype, data.ndim, data.vdevice)
    indices_ty = same_type_as(values_ty, str(call.attrs.dtype))
    if call.attrs.ret_type == "values":
        return values_ty
    if call.attrs.ret_type == "indices":
        return indices_ty
    return TupleType([values_ty, indices_ty])
