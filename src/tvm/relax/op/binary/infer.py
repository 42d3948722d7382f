"""Type inference of the binary arithmetic family: NumPy broadcasting, equal dtypes."""

from __future__ import annotations

from ....ir.type import PrimType
from ...ty import TensorType
from ..infer_utils import (
    binary_dtype,
    broadcast_shapes,
    known_shape,
    make_tensor_type,
    text,
)


def _operand(call, index, side):
    arg = call.args[index]
    ty = arg.ty
    if isinstance(ty, (TensorType, PrimType)):
        return ty
    raise TypeError(
        "Arguments to binary operators must be either R.Tensor or R.Prim types, but "
        f"expression {text(call)} has {side} {text(arg)}, which has Type {text(ty)}"
    )


def _as_tensor(ty):
    """An ``R.Prim`` operand behaves as a 0-d tensor of its dtype."""
    if isinstance(ty, PrimType):
        return TensorType([], ty.dtype or "void")
    return ty


def infer_binary_arith(call, _bb=None):
    """``R.add(x, y)`` and friends: broadcast the shapes, require the same dtype.

    Two ``R.Prim`` operands give an ``R.Prim``; a prim and a tensor broadcast like a 0-d
    tensor. The result shape is known when both shapes are known and every dim pair is
    provably broadcastable; a symbolic pair that can't be decided leaves only the rank known.
    """
    if len(call.args) != 2:
        raise TypeError(f"Operator {call.op.name} expects 2 arguments, but got {len(call.args)}")
    lhs_ty, rhs_ty = _operand(call, 0, "LHS"), _operand(call, 1, "RHS")
    lhs, rhs = _as_tensor(lhs_ty), _as_tensor(rhs_ty)
    dtype = binary_dtype(call, lhs, rhs)
    if isinstance(lhs_ty, PrimType) and isinstance(rhs_ty, PrimType):
        return PrimType(dtype)
    vdevice = lhs.vdevice if lhs.vdevice is not None else rhs.vdevice
    if lhs.ndim == -1 or rhs.ndim == -1:
        return make_tensor_type(None, dtype, -1, vdevice)
    ndim = max(lhs.ndim, rhs.ndim)
    lvals, rvals = known_shape(lhs), known_shape(rhs)
    if lvals is None or rvals is None:
        return make_tensor_type(None, dtype, ndim, vdevice)
    out = broadcast_shapes(call, lvals, rvals)
    if out is None:
        return make_tensor_type(None, dtype, ndim, vdevice)
    # Types are immutable: reuse an operand's type when the result is exactly it (the common
    # same-shape case), instead of building an equal one.
    for operand, values in ((lhs, lvals), (rhs, rvals)):
        if (
            operand.dtype == dtype
            and operand.vdevice is vdevice
            and len(values) == len(out)
            and all(a is b for a, b in zip(values, out))
        ):
            return operand
    return make_tensor_type(out, dtype, ndim, vdevice)


def infer_binary_compare(call, _bb=None):
    """``R.equal(x, y)`` and the other comparisons: broadcast like arithmetic, dtype bool."""
    from ..infer_utils import same_type_as

    result = infer_binary_arith(call)
    if isinstance(result, PrimType):
        return PrimType("bool")
    return same_type_as(result, "bool")
