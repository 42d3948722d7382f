"""NumPy reference semantics of linear algebra (``FReference``)."""

from __future__ import annotations

import numpy as np

from ..registry import reference_dtype, register_reference


@register_reference("matmul")
def _matmul(attrs, x1, x2):
    out = np.matmul(x1, x2)
    dtype = attrs.out_dtype if attrs.out_dtype not in (None, "", "void") else x1.dtype
    return out.astype(reference_dtype(dtype), copy=False)


@register_reference("einsum")
def _einsum(attrs, operands):
    return np.asarray(np.einsum(attrs.subscripts, *operands)).astype(operands[0].dtype)


@register_reference("outer")
def _outer(_attrs, x1, x2):
    return np.outer(x1, x2)
