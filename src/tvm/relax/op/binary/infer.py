"""Type inference of the binary arithmetic family: NumPy broadcasting, equal dtypes."""

from __future__ import annotations

from ..infer_utils import binary_dtype, broadcast_shapes, known_shape, make_tensor_type, tensor_args


def infer_binary_arith(call, _bb=None):
    """``R.add(x, y)`` and friends: broadcast the shapes, require the same dtype.

    The result shape is known when both shapes are known and every dim pair is provably
    broadcastable; a symbolic pair that can't be decided leaves only the rank known.
    """
    lhs, rhs = tensor_args(call, 2)
    dtype = binary_dtype(call, lhs, rhs)
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
    return make_tensor_type(out, dtype, ndim, vdevice)


def infer_binary_compare(call, _bb=None):
    """``R.equal(x, y)`` and the other comparisons: broadcast like arithmetic, dtype bool."""
    from ..infer_utils import same_type_as

    return same_type_as(infer_binary_arith(call), "bool")
