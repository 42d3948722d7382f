"""Legalization rules of the statistical family (reductions and scans)."""

from __future__ import annotations

import functools
import operator

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


def _te_median(x, axis, keepdims):
    """Lower median via a stable argsort along the axis (the flattened tensor when None)."""
    from .... import te
    from ....topi.utils import as_index

    full_shape = list(x.shape)
    if axis is None:
        x = topi.reshape(x, [functools.reduce(operator.mul, full_shape, 1)])
        ax = 0
    else:
        ax = axis[0] % len(full_shape)
    extent = x.shape[ax]
    mid = (extent - 1) // 2
    order = topi.argsort(x, axis=ax, is_ascend=True, dtype="int64")
    out_shape = [d for i, d in enumerate(x.shape) if i != ax]

    def at_mid(tensor, idx):
        src = list(idx[:ax]) + [as_index(mid, extent.dtype)] + list(idx[ax:])
        return tensor(*src)

    index = te.compute(out_shape, lambda *i: at_mid(order, i), name="median_idx")

    def value_at(*i):
        src = list(i[:ax]) + [as_index(index(*i), extent.dtype)] + list(i[ax:])
        return x(*src)

    value = te.compute(out_shape, value_at, name="median_val")
    if axis is None:
        if keepdims:
            value = topi.reshape(value, [1] * len(full_shape))
        return value
    if keepdims:
        kept = list(x.shape)
        kept[ax] = 1
        value, index = topi.reshape(value, kept), topi.reshape(index, kept)
    return value, index


@register_legalize("relax.median")
def _median(bb, call):
    axis = call.attrs.axis
    axis = None if axis is None else [int(a) for a in axis]
    return bb.call_te(
        _te_median, call.args[0], axis, bool(call.attrs.keepdims), primfunc_name_hint="median"
    )
