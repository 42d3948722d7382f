"""Tensor creation ops: ``relax.ones``, ``relax.zeros``."""

from __future__ import annotations

from ...expr import Call, ShapeExpr
from ..op_attrs import InitAttrs
from ..registry import register_relax_op
from .infer import infer_init

__all__ = ["ones", "zeros"]

_ONES = register_relax_op("ones", 1, "create", infer_init,
                          attrs_type_key="relax.attrs.InitAttrs",
                          description="A tensor filled with ones.")
_ZEROS = register_relax_op("zeros", 1, "create", infer_init,
                           attrs_type_key="relax.attrs.InitAttrs",
                           description="A tensor filled with zeros.")


def _shape(shape):
    return ShapeExpr(shape) if isinstance(shape, (list, tuple)) else shape


def ones(shape, dtype="float32"):
    """``R.ones(shape, dtype)``."""
    return Call(_ONES, [_shape(shape)], InitAttrs(str(dtype)))


def zeros(shape, dtype="float32"):
    """``R.zeros(shape, dtype)``."""
    return Call(_ZEROS, [_shape(shape)], InitAttrs(str(dtype)))
