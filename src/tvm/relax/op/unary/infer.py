"""Type inference of unary elementwise ops: same shape; dtype rules by kind."""

from __future__ import annotations

from ..infer_utils import require_float, same_type_as, tensor_arg, tensor_args


def infer_unary_any(call, _bb=None):
    """Any dtype; the result has the input's type."""
    (data,) = tensor_args(call, 1)
    return data


def infer_unary_float(call, _bb=None):
    """Float dtype required (``exp`` of an int tensor is a TypeError); same type out."""
    (data,) = tensor_args(call, 1)
    require_float(call, data)
    return data


def infer_unary_check(call, _bb=None):
    """``isnan``/``isinf``/``isfinite``: the input's shape with dtype bool."""
    (data,) = tensor_args(call, 1)
    return same_type_as(data, "bool")


def infer_clip(call, _bb=None):
    """``clip(x, min, max)``: the input's type (bounds are PrimValues)."""
    if len(call.args) != 3:
        raise TypeError(f"Operator clip expects 3 arguments, but got {len(call.args)}")
    return tensor_arg(call, 0, "input x")
