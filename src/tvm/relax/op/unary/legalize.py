"""Legalization rules of the unary family: each op is the topi function of the same name."""

from __future__ import annotations

from .... import topi
from ...transform.legalize_ops.common import call_topi, register_legalize
from . import UNARY_OPS

for _name, _kind, _doc in UNARY_OPS:
    register_legalize(f"relax.{_name}", call_topi(getattr(topi, _name)))


@register_legalize("relax.clip")
def _clip(bb, call):
    x, a_min, a_max = call.args
    return bb.call_te(topi.clip, x, a_min, a_max, primfunc_name_hint="clip")
