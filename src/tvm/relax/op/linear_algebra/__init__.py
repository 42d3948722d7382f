"""Linear algebra ops: ``relax.matmul``."""

from __future__ import annotations

from ...expr import Call
from ..op_attrs import MatmulAttrs
from ..registry import register_relax_op
from .infer import infer_matmul

__all__ = ["matmul"]

_MATMUL = register_relax_op(
    "matmul",
    2,
    "linear_algebra",
    infer_matmul,
    attrs_type_key="relax.attrs.MatmulAttrs",
    description="Matrix product with NumPy matmul semantics.",
)


def matmul(x1, x2, out_dtype=None) -> Call:
    """``R.matmul(x1, x2, out_dtype=None)``: matrix product (batched, NumPy semantics)."""
    if out_dtype is not None:
        out_dtype = str(out_dtype)
    return Call(_MATMUL, [x1, x2], MatmulAttrs(out_dtype))


# --- the op library's linear algebra ops -------------------------------------------------------

from ...expr import Tuple
from ..op_attrs import EinsumAttrs
from .infer import infer_einsum, infer_outer

_EINSUM = register_relax_op(
    "einsum",
    1,
    "linear_algebra",
    infer_einsum,
    attrs_type_key="relax.attrs.EinsumAttrs",
    description="Einstein summation over a tuple of operands.",
)
_OUTER = register_relax_op(
    "outer", 2, "linear_algebra", infer_outer, description="Outer product of two 1-D tensors."
)


def einsum(operands, subscripts) -> Call:
    """``R.einsum(operands, subscripts)``: Einstein summation (no ellipsis yet)."""
    if isinstance(operands, (list, tuple)):
        operands = Tuple(list(operands))
    return Call(_EINSUM, [operands], EinsumAttrs(str(subscripts)))


def outer(x1, x2) -> Call:
    """``R.outer(x1, x2)``: the outer product of two 1-D tensors."""
    return Call(_OUTER, [x1, x2])


__all__ += ["einsum", "outer"]

from . import reference  # noqa: F401 - registers FReference after the ops exist


def linear(data, weight, bias=None, out_dtype=None) -> Call:
    """``R.linear(data, weight, bias=None, out_dtype=None)``: ``data @ weight^T (+ bias)``.

    A composite, not an op of its own (as in TVM): it builds
    ``matmul(data, permute_dims(weight), out_dtype) + bias``. ``weight`` may be 1-D or 2-D
    (``permute_dims`` with ``axes=None`` reverses the axes of either).
    """
    # Sibling op groups: imported here because manipulate/binary import this package's users.
    from ..binary import add
    from ..manipulate import permute_dims

    out = matmul(data, permute_dims(weight, axes=None), out_dtype=out_dtype)
    return add(out, bias) if bias is not None else out


__all__ += ["linear"]
