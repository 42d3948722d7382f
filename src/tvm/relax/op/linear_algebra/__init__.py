"""Linear algebra ops: ``relax.matmul``."""

from __future__ import annotations

from ...expr import Call
from ..op_attrs import MatmulAttrs
from ..registry import register_relax_op
from .infer import infer_matmul

__all__ = ["matmul"]

_MATMUL = register_relax_op("matmul", 2, "linear_algebra", infer_matmul,
                            attrs_type_key="relax.attrs.MatmulAttrs",
                            description="Matrix product with NumPy matmul semantics.")


def matmul(x1, x2, out_dtype=None):
    """``R.matmul(x1, x2, out_dtype=None)``: matrix product (batched, NumPy semantics)."""
    if out_dtype is not None:
        out_dtype = str(out_dtype)
    return Call(_MATMUL, [x1, x2], MatmulAttrs(out_dtype))
