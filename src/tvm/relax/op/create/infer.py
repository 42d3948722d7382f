"""Type inference of tensor creation (``ones``, ``zeros``): the shape argument and dtype."""

from __future__ import annotations

from ...ty import ShapeType
from ..infer_utils import make_tensor_type, shape_arg_values


def infer_init(call, _bb=None):
    """A tensor of the given shape and ``attrs.dtype``."""
    if not isinstance(call.args[0].ty, ShapeType):
        raise TypeError(
            "Ones/Zeros requires the input shape to be a Shape. However, the given one is "
            f"{call.args[0].ty.type_key if call.args[0].ty is not None else None}"
        )
    values, ndim = shape_arg_values(call, 0)
    dtype = call.attrs.dtype
    dtype = "void" if dtype is None else str(dtype)
    if hasattr(call.args[0], "name_hint"):
        # A shape variable: the result's shape is that variable, as in TVM.
        from ...ty import TensorType

        return TensorType(call.args[0], dtype)
    return make_tensor_type(values, dtype, ndim)


# --- the op library's creation rules -----------------------------------------------------------


def _dtype_attr(call):
    dtype = getattr(call.attrs, "dtype", None)
    return None if dtype is None or str(dtype) in ("", "void") else str(dtype)


def _shape_type(call, index, dtype):
    values, ndim = shape_arg_values(call, index)
    if values is None and hasattr(call.args[index], "name_hint"):
        from ...ty import TensorType

        return TensorType(call.args[index], dtype)
    return make_tensor_type(values, dtype, ndim)


def infer_full(call, _bb=None):
    """``full(shape, fill_value, dtype)``: ``fill_value`` is a 0-d tensor; its dtype by default."""
    from ..infer_utils import tensor_arg, text

    fill = tensor_arg(call, 1, "fill value")
    if fill.ndim not in (-1, 0):
        raise ValueError(
            "Full requires the input fill value to be zero rank Tensor. However, "
            f"the given one is {text(fill)}"
        )
    return _shape_type(call, 0, _dtype_attr(call) or fill.dtype)


def infer_full_like(call, _bb=None):
    """``full_like(x, fill_value, dtype)``: ``x``'s shape; ``dtype`` or ``x``'s dtype."""
    from ..infer_utils import same_type_as, tensor_arg, text

    data = tensor_arg(call, 0, "input x")
    fill = tensor_arg(call, 1, "fill value")
    if fill.ndim not in (-1, 0):
        raise ValueError(
            "FullLike requires the input fill value to be zero rank Tensor. "
            f"However, the given one is {text(fill)}"
        )
    return same_type_as(data, _dtype_attr(call) or data.dtype)


def infer_init_like(call, _bb=None):
    """``ones_like(x, dtype)``/``zeros_like``: ``x``'s shape; ``dtype`` or ``x``'s dtype."""
    from ..infer_utils import same_type_as, tensor_arg

    data = tensor_arg(call, 0, "input x")
    return same_type_as(data, _dtype_attr(call) or data.dtype)


def infer_arange(call, _bb=None):
    """``arange(start, end, step)``: 1-D; the length is known when the bounds are constants."""
    import math

    from ..infer_utils import prim_arg

    values = [prim_arg(call, i, role) for i, role in enumerate(("start", "end", "step"))]
    dtype = _dtype_attr(call)
    consts = [getattr(v, "value", None) for v in values]
    if dtype is None:
        floaty = any(str(getattr(v, "dtype", "int")).startswith("float") for v in values)
        dtype = "float32" if floaty else "int64"
    if None not in consts:
        start, end, step = consts
        if step == 0:
            raise ValueError("arange requires a nonzero step, got step 0")
        return make_tensor_type([max(0, math.ceil((end - start) / step))], dtype)
    step = consts[2]
    if isinstance(step, int) and step > 0 and not dtype.startswith(("float", "bfloat")):
        # Integer bounds with a symbolic part: ceil((end - start) / step), as TVM writes it.
        from ..infer_utils import simplify_dim

        start, end = values[0], values[1]
        span = end - start if step == 1 else (end - start + (step - 1)) // step
        return make_tensor_type([simplify_dim(span)], dtype)
    return make_tensor_type(None, dtype, 1)


def infer_trilu(call, _bb=None):
    """``tril``/``triu``: the input's type; the input needs at least 2 dims."""
    from ..infer_utils import op_name, tensor_arg

    data = tensor_arg(call, 0, "input x")
    if data.ndim != -1 and data.ndim < 2:
        raise ValueError(
            f"{op_name(call)} requires the input tensor to have at least two "
            f"dimensions. However, the given input has {data.ndim} dimension(s)"
        )
    return data


def infer_eye(call, _bb=None):
    """``eye(n, m, k)``: an ``(n, m)`` matrix of ``attrs.dtype``."""
    from ..infer_utils import prim_arg

    n, m = prim_arg(call, 0, "n"), prim_arg(call, 1, "m")
    return make_tensor_type([n, m], _dtype_attr(call) or "float32")
