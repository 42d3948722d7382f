"""Legalization rules of the datatype family (``astype``, ``wrap_param``)."""

from __future__ import annotations

import numpy as np

from .... import topi
from ...expr import Constant, const
from ...transform.legalize_ops.common import register_legalize


@register_legalize("relax.astype")
def _astype(bb, call):
    x = call.args[0]
    if isinstance(x, Constant) and x.data.numpy().ndim == 0:
        # As TVM: a scalar constant is cast at compile time (``R.const(1.5) -> R.const(1)``).
        value = np.asarray(x.data.numpy()).astype(str(call.attrs.dtype))
        return const(value, str(call.attrs.dtype))
    return bb.call_te(topi.cast, call.args[0], call.attrs.dtype, primfunc_name_hint="cast")


@register_legalize("relax.wrap_param")
def _wrap_param(bb, call):
    # A parameter wrapper: a cast when the dtype changes, else the parameter itself.
    x = call.args[0]
    if x.ty.dtype == call.attrs.dtype:
        return x
    return bb.call_te(topi.cast, x, call.attrs.dtype, primfunc_name_hint="cast")
