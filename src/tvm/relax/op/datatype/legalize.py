"""Legalization rules of the datatype family (``astype``, ``wrap_param``)."""

from __future__ import annotations

from .... import topi
from ...transform.legalize_ops.common import register_legalize


@register_legalize("relax.astype")
def _astype(bb, call):
    return bb.call_te(topi.cast, call.args[0], call.attrs.dtype, primfunc_name_hint="cast")


@register_legalize("relax.wrap_param")
def _wrap_param(bb, call):
    # A parameter wrapper: a cast when the dtype changes, else the parameter itself.
    x = call.args[0]
    if x.ty.dtype == call.attrs.dtype:
        return x
    return bb.call_te(topi.cast, x, call.attrs.dtype, primfunc_name_hint="cast")
