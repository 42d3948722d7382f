"""Type inference of ``unique`` (TVM's rules): ranks and dtypes only, the extents are data
dependent."""

from __future__ import annotations

from ....ir.type import TupleType
from ...ty import TensorType
from ..infer_utils import normalize_axis, op_name, tensor_arg


def _flag_value(call, index, name):
    value = getattr(call.args[index], "value", None)
    if value is None or not hasattr(value, "value"):
        raise TypeError(
            f"{op_name(call)} expects {name} to be a constant PrimValue, got {call.args[index]}"
        )
    return bool(value.value)


def infer_unique(call, _bb=None):
    """The unique values (rank of ``x`` with an axis, else 1-D), then one 1-D int64 tensor
    per requested index/inverse/count output; a 0-d input gives extent-1 outputs."""
    if len(call.args) not in (5, 6):
        raise TypeError(f"{op_name(call)} expects 5 or 6 arguments, got {len(call.args)}")
    data = tensor_arg(call, 0)
    axis = None
    if len(call.args) == 6:
        axis_value = getattr(call.args[5], "value", None)
        axis = getattr(axis_value, "value", None)
        if axis is not None and data.ndim > 0:
            normalize_axis(call, data.ndim, int(axis))
    extras = sum(
        _flag_value(call, i, name)
        for i, name in ((2, "return_index"), (3, "return_inverse"), (4, "return_counts"))
    )
    if data.ndim == 0:
        values = TensorType([1], data.dtype, data.vdevice)
        indices = TensorType([1], "int64", data.vdevice)
    else:
        ndim = data.ndim if len(call.args) == 6 else 1
        values = TensorType(None, data.dtype, data.vdevice, ndim)
        indices = TensorType(None, "int64", data.vdevice, 1)
    if not extras:
        return values
    return TupleType([values] + [indices] * extras)
