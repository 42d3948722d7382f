"""Type inference of indexing: ``take``, ``strided_slice``, ``dynamic_strided_slice``."""

from __future__ import annotations

from ...expr import ShapeExpr
from ...ir_types import IntImm64
from ...ty import PrimType, TensorType
from ..infer_utils import (
    is_int_dtype,
    known_shape,
    make_tensor_type,
    normalize_axis,
    require_int,
    simplify_dim,
    static_dim,
    tensor_arg,
    tensor_args,
    text,
)


def infer_take(call, _bb=None):
    """``x.shape[:axis] + indices.shape + x.shape[axis + 1:]`` (indices are integers).

    ``indices`` may be a scalar ``R.Prim`` integer (TVM's ``R.take(x, R.prim_value(i))``):
    it counts as a 0-d index, so the axis is dropped.
    """
    if len(call.args) == 2 and isinstance(call.args[1].ty, PrimType):
        data = tensor_arg(call, 0)
        index_ty = call.args[1].ty
        if not is_int_dtype(index_ty.dtype):
            raise TypeError(
                "Take op requires the input indices to have integer dtype. However, the given "
                f"indices dtype is T.{index_ty.dtype}"
            )
        indices = TensorType(ShapeExpr([]), index_ty.dtype)
    else:
        data, indices = tensor_args(call, 2)
    require_int(call, indices, "input indices", "Take op")
    axis = call.attrs.axis
    if axis is None:
        if data.ndim not in (-1, 1):
            raise ValueError(
                "Take op expects the input data to be 1-dimensional tensor when the axis is not "
                f"specified. However, the given data tensor has ndim {data.ndim}"
            )
        values = known_shape(indices)
        if values is None:
            return make_tensor_type(None, data.dtype, indices.ndim, data.vdevice)
        return make_tensor_type(values, data.dtype, indices.ndim, data.vdevice)
    if data.ndim == -1 or indices.ndim == -1:
        return make_tensor_type(None, data.dtype, -1, data.vdevice)
    axis = normalize_axis(call, data.ndim, axis)
    ndim = data.ndim - 1 + indices.ndim
    dvals, ivals = known_shape(data), known_shape(indices)
    if dvals is None or ivals is None:
        return make_tensor_type(None, data.dtype, ndim, data.vdevice)
    out = list(dvals[:axis]) + list(ivals) + list(dvals[axis + 1 :])
    return make_tensor_type(out, data.dtype, ndim, data.vdevice)


def _tuple_values(call, index, role):
    arg = call.args[index]
    fields = getattr(arg, "fields", None)
    if fields is None:
        fields_ty = getattr(arg.ty, "fields", None)
        if fields_ty is None:
            raise TypeError(
                f"strided_slice expects {role} to be a tuple of PrimValues, but "
                f"{text(arg)} has type {text(arg.ty)}"
            )
        return [getattr(t, "value", None) for t in fields_ty]
    return [getattr(f, "value", None) for f in fields]


def slice_length(begin, end, stride, extent):
    """Python slice length of ``range(extent)[begin:end:stride]`` (ints only)."""
    return len(range(*slice(begin, end, stride).indices(extent)))


def symbolic_slice_length(begin, end, stride, extent):
    """``ceil((min(end, n) - min(begin, n)) / stride)`` for a symbolic extent ``n``."""
    from ....tirx import Min  # lazy: TIR min nodes only for symbolic extents

    span = Min(IntImm64(end), extent) - Min(IntImm64(begin), extent)
    if stride != 1:
        span = (span + (stride - 1)) // stride
    return simplify_dim(span)


def infer_strided_slice(call, _bb=None):
    """Each sliced axis gets its Python slice length when its bounds and extent are static."""
    data = tensor_arg(call, 0, "input x")
    axes = _tuple_values(call, 1, "axes")
    begin = _tuple_values(call, 2, "begin")
    end = _tuple_values(call, 3, "end")
    strides = _tuple_values(call, 4, "strides") if len(call.args) > 4 else [1] * len(axes)
    if not len(axes) == len(begin) == len(end) == len(strides):
        raise ValueError(
            "strided_slice expects axes, begin, end and strides to have the same length. "
            f"However, they have lengths {len(axes)}, {len(begin)}, {len(end)} and "
            f"{len(strides)}"
        )
    if data.ndim == -1:
        return make_tensor_type(None, data.dtype, -1, data.vdevice)
    axis_ints = []
    for a in axes:
        if static_dim(a) is None:
            raise TypeError(f"strided_slice expects constant axes, got {text(a)}")
        axis_ints.append(normalize_axis(call, data.ndim, static_dim(a)))
    if len(set(axis_ints)) != len(axis_ints):
        raise ValueError(f"strided_slice expects the axes to be unique, got {axis_ints}")
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, data.dtype, data.ndim, data.vdevice)
    out = list(values)
    for axis, b, e, s in zip(axis_ints, begin, end, strides):
        ints = [_const(b), _const(e), _const(s), _const(values[axis])]
        if ints[2] == 0:
            raise ValueError("strided_slice expects nonzero strides")
        if None in ints[:3] or (
            ints[3] is None and not (ints[0] >= 0 and ints[1] >= 0 and ints[2] > 0)
        ):
            return make_tensor_type(None, data.dtype, data.ndim, data.vdevice)
        if ints[3] is None:
            # A symbolic extent n with non-negative bounds: (min(e, n) - min(b, n)) / s, rounded up.
            out[axis] = symbolic_slice_length(ints[0], ints[1], ints[2], values[axis])
            continue
        out[axis] = IntImm64(slice_length(*ints))
    return make_tensor_type(out, data.dtype, data.ndim, data.vdevice)


def _const(value):
    """An int dim or bound as a Python int (None when symbolic)."""
    return value if isinstance(value, int) else static_dim(value)


def infer_dynamic_strided_slice(call, _bb=None):
    """The rank of ``x``; the extents are only known at run time."""
    data, begin, end, strides = tensor_args(call, 4)
    for ty, role in ((begin, "begin"), (end, "end"), (strides, "strides")):
        require_int(call, ty, role, "dynamic_strided_slice")
        if ty.ndim not in (-1, 1):
            raise ValueError(
                f"dynamic_strided_slice expects {role} to be a 1-D tensor, got ndim {ty.ndim}"
            )
    return make_tensor_type(None, data.dtype, data.ndim, data.vdevice)
