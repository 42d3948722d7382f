"""Legalization rules of the index family (``take``, ``strided_slice``).

``dynamic_strided_slice`` has a data-dependent output shape; it has no rule yet (LegalizeOps
leaves calls whose result shape is unknown, with a warning).
"""

from __future__ import annotations

from .... import topi
from ...transform.legalize_ops.common import prim_value, register_legalize, tuple_fields


@register_legalize("relax.take")
def _take(bb, call):
    x, indices = call.args
    axis = call.attrs.axis
    mode = call.attrs.mode or "fast"
    return bb.call_te(
        topi.take,
        x,
        indices,
        None if axis is None else int(axis),
        mode=mode,
        primfunc_name_hint="take",
    )


def _values(expr):
    return [prim_value(f) for f in tuple_fields(expr)]


@register_legalize("relax.strided_slice")
def _strided_slice(bb, call):
    x, axes, begin, end = call.args[:4]
    strides = _values(call.args[4]) if len(call.args) > 4 else None
    return bb.call_te(
        topi.strided_slice,
        x,
        _values(begin),
        _values(end),
        strides,
        _values(axes),
        assume_inbound=bool(call.attrs.assume_inbound),
        primfunc_name_hint="strided_slice",
    )
