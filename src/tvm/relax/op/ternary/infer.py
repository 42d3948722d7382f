"""Type inference of ``ewise_fma`` (same shapes, no broadcasting) and ``where`` (broadcasting)."""

from __future__ import annotations

from ..infer_utils import (
    binary_dtype,
    broadcast_shapes,
    known_shape,
    make_tensor_type,
    prove_equal,
    tensor_args,
)


def infer_ewise_fma(call, _bb=None):
    """All three operands share one dtype and one shape (TVM does not broadcast here)."""
    args = tensor_args(call, 3)
    dtypes = {a.dtype for a in args if a.dtype != "void"}
    if len(dtypes) > 1:
        a, b, c = (f"T.{a.dtype}" for a in args)
        raise TypeError(f"Data types {a}, {b}, and {c} must be equal for EwiseFMA")
    dtype = dtypes.pop() if dtypes else "void"
    ndims = {a.ndim for a in args if a.ndim != -1}
    if len(ndims) > 1:
        raise ValueError("The 3 arguments of EwiseFMA must have the same number of dimensions")
    shapes = [known_shape(a) for a in args]
    if all(s is not None for s in shapes):
        for dims in zip(*shapes):
            if any(prove_equal(dims[0], d) is False for d in dims[1:]):
                raise ValueError("The 3 arguments of EwiseFMA must have the same shape")
        return make_tensor_type(shapes[0], dtype)
    return make_tensor_type(None, dtype, ndims.pop() if ndims else -1)


def infer_where(call, _bb=None):
    """``condition`` is bool; ``x1``/``x2`` share a dtype; the three shapes broadcast."""
    cond, lhs, rhs = tensor_args(call, 3)
    if cond.dtype not in ("bool", "void"):
        raise TypeError(
            "Where requires the input condition tensor to have boolean dtype. "
            f"However, the given condition dtype is T.{cond.dtype}"
        )
    dtype = binary_dtype(call, lhs, rhs)
    if -1 in (cond.ndim, lhs.ndim, rhs.ndim):
        return make_tensor_type(None, dtype, -1)
    ndim = max(cond.ndim, lhs.ndim, rhs.ndim)
    shapes = [known_shape(a) for a in (cond, lhs, rhs)]
    if any(s is None for s in shapes):
        return make_tensor_type(None, dtype, ndim)
    out = broadcast_shapes(call, shapes[1], shapes[2])
    out = None if out is None else broadcast_shapes(call, shapes[0], out)
    return make_tensor_type(out, dtype, ndim)
