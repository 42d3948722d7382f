"""Shape manipulation ops: ``relax.broadcast_to``, ``relax.permute_dims``, ``relax.reshape``."""

from __future__ import annotations

from ...expr import Call, ShapeExpr
from ..op_attrs import PermuteDimsAttrs
from ..registry import register_relax_op
from .infer import infer_broadcast_to, infer_permute_dims, infer_reshape

__all__ = ["broadcast_to", "permute_dims", "reshape"]

_BROADCAST_TO = register_relax_op("broadcast_to", 2, "manipulate", infer_broadcast_to,
                                  description="Broadcast a tensor to a shape.")
_PERMUTE_DIMS = register_relax_op("permute_dims", 1, "manipulate", infer_permute_dims,
                                  attrs_type_key="relax.attrs.PermuteDimsAttrs",
                                  description="Permute the dims of a tensor.")
_RESHAPE = register_relax_op("reshape", 2, "manipulate", infer_reshape,
                             description="Reshape a tensor.")


def _shape(shape):
    return ShapeExpr(shape) if isinstance(shape, (list, tuple)) else shape


def broadcast_to(x, shape):
    """``R.broadcast_to(x, shape)``."""
    return Call(_BROADCAST_TO, [x, _shape(shape)])


def permute_dims(x, axes=None):
    """``R.permute_dims(x, axes=None)``: reverse the dims when ``axes`` is None."""
    if axes is not None:
        axes = tuple(int(a) for a in axes)
    return Call(_PERMUTE_DIMS, [x], PermuteDimsAttrs(axes))


def reshape(x, shape):
    """``R.reshape(x, shape)``; one dim may be -1 (solved from the element count)."""
    return Call(_RESHAPE, [x, _shape(shape)])
