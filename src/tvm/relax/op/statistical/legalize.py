"""Legalization rules of the statistical family (reductions and scans)."""

from __future__ import annotations

from .... import topi
from ...transform.legalize_ops.common import register_legalize


def _reduction(topi_fn):
    def rule(bb, call):
        axis = call.attrs.axis
        axis = None if axis is None else [int(a) for a in axis]
        return bb.call_te(
            topi_fn,
            call.args[0],
            axis,
            bool(call.attrs.keepdims),
            primfunc_name_hint=topi_fn.__name__,
        )

    return rule


for _name in ("sum", "mean", "max", "min", "prod", "std", "variance"):
    register_legalize(f"relax.{_name}", _reduction(getattr(topi, _name)))


def _scan(topi_fn):
    def rule(bb, call):
        axis = call.attrs.axis
        x = call.args[0]
        if axis is None:
            # axis=None scans the flattened tensor.
            x = bb.emit_te(
                topi.reshape, x, list(call.ty.shape.values), primfunc_name_hint="reshape"
            )
            axis = 0
        return bb.call_te(
            topi_fn,
            x,
            int(axis),
            call.ty.dtype,
            bool(call.attrs.exclusive),
            primfunc_name_hint=topi_fn.__name__,
        )

    return rule


register_legalize("relax.cumsum", _scan(topi.cumsum))
register_legalize("relax.cumprod", _scan(topi.cumprod))
