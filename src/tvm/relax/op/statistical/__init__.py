"""Statistical (reduction) ops: ``relax.sum``."""

from __future__ import annotations

from ...expr import Call
from ..op_attrs import StatisticalAttrs
from ..registry import register_relax_op
from .infer import infer_statistical

__all__ = ["sum"]

_SUM = register_relax_op("sum", 1, "statistical", infer_statistical,
                         attrs_type_key="relax.attrs.StatisticalAttrs",
                         description="Sum over the given axes.")


def _axes(axis):
    if axis is None:
        return None
    if isinstance(axis, int):
        return (axis,)
    return tuple(int(a) for a in axis)


def sum(x, axis=None, keepdims=False):  # noqa: A001 - TVM's public name
    """``R.sum(x, axis=None, keepdims=False)``: sum over ``axis`` (all axes when None)."""
    return Call(_SUM, [x], StatisticalAttrs(_axes(axis), bool(keepdims)))
