"""Type inference of tensor creation (``ones``, ``zeros``): the shape argument and dtype."""

from __future__ import annotations

from ..infer_utils import make_tensor_type, shape_arg_values


def infer_init(call, _bb=None):
    """A tensor of the given shape and ``attrs.dtype``."""
    values, ndim = shape_arg_values(call, 0)
    dtype = call.attrs.dtype
    dtype = "void" if dtype is None else str(dtype)
    if values is None and hasattr(call.args[0], "name_hint"):
        from ...ty import TensorType

        return TensorType(call.args[0], dtype)
    return make_tensor_type(values, dtype, ndim)
