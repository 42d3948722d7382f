"""Type inference of ``relax.matmul`` (NumPy ``matmul`` semantics, batch broadcasting)."""

from __future__ import annotations

from ..infer_utils import (
    binary_dtype,
    broadcast_shapes,
    dim_text,
    known_shape,
    make_tensor_type,
    prove_equal,
    shape_text,
    tensor_args,
    text,
)


def infer_matmul(call, _bb=None):
    """1-D operands are promoted (then the added dim is dropped); batch dims broadcast."""
    lhs, rhs = tensor_args(call, 2)
    out_dtype = getattr(call.attrs, "out_dtype", None)
    if out_dtype is None or str(out_dtype) in ("", "void"):
        dtype = binary_dtype(call, lhs, rhs)
    else:
        dtype = str(out_dtype)
    vdevice = lhs.vdevice if lhs.vdevice is not None else rhs.vdevice
    if lhs.ndim == 0 or rhs.ndim == 0:
        raise ValueError(
            "Matmul requires both inputs to have at least 1 dimension.  However, "
            f"{text(call.args[0] if lhs.ndim == 0 else call.args[1])} is a 0-rank tensor."
        )
    if lhs.ndim == -1 or rhs.ndim == -1:
        return make_tensor_type(None, dtype, -1, vdevice)
    lhs_1d, rhs_1d = lhs.ndim == 1, rhs.ndim == 1
    l_ndim = 2 if lhs_1d else lhs.ndim
    r_ndim = 2 if rhs_1d else rhs.ndim
    out_ndim = max(l_ndim, r_ndim) - int(lhs_1d) - int(rhs_1d)
    lvals, rvals = known_shape(lhs), known_shape(rhs)
    if lvals is None or rvals is None:
        return make_tensor_type(None, dtype, out_ndim, vdevice)
    lfull = (None,) + tuple(lvals) if lhs_1d else tuple(lvals)
    rfull = tuple(rvals) + (None,) if rhs_1d else tuple(rvals)
    l_red, r_red = lfull[-1], rfull[-2]
    if prove_equal(l_red, r_red) is False:
        raise ValueError(
            "Matmul requires the reduction length of the operands to be equal.  However, "
            f"the LHS {text(call.args[0])} has shape {shape_text(lhs)}, while the RHS "
            f"{text(call.args[1])} has shape {shape_text(rhs)}.  The reduction dimensions "
            f"of {dim_text(l_red)} and {dim_text(r_red)} are not equal."
        )
    batch = broadcast_shapes(call, lfull[:-2], rfull[:-2])
    if batch is None:
        return make_tensor_type(None, dtype, out_ndim, vdevice)
    out = list(batch)
    if not lhs_1d:
        out.append(lfull[-2])
    if not rhs_1d:
        out.append(rfull[-1])
    return make_tensor_type(out, dtype, out_ndim, vdevice)
