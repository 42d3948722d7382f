"""Legalization rules of the unary family: each op is the topi function of the same name."""

from __future__ import annotations

from .... import te, tirx, topi
from ...transform.legalize_ops.common import call_topi, register_legalize
from . import UNARY_OPS

for _name, _kind, _doc in UNARY_OPS:
    register_legalize(f"relax.{_name}", call_topi(getattr(topi, _name)))


@register_legalize("relax.clip")
def _clip(bb, call):
    x, a_min, a_max = call.args
    return bb.call_te(topi.clip, x, a_min, a_max, primfunc_name_hint="clip")


def _logical_not(x):
    """``not x``; a non-bool tensor gives ``x == 0`` in its own dtype (as the reference)."""
    if x.dtype == "bool":
        return topi.logical_not(x)
    zero = tirx.const(0, x.dtype)
    return te.compute(
        x.shape, lambda *i: tirx.EQ(x(*i), zero).astype(x.dtype), name="T_logical_not"
    )


register_legalize("relax.logical_not", call_topi(_logical_not, "logical_not"))
