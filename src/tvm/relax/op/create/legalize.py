"""Legalization rules of the create family (``full``, ``ones``, ``arange``, ``tril``, ...).

The output shape and dtype are read from the call's inferred type, so symbolic shapes and
the ``dtype=None`` defaults need no special handling here.
"""

from __future__ import annotations

import numpy as np

from .... import te, tirx, topi
from ...expr import const
from ...transform.legalize_ops.common import prim_value, register_legalize


def _out(call):
    return list(call.ty.shape.values), call.ty.dtype


def _full_from(shape, dtype, name):
    """A te function filling ``shape`` with the value of a 0-d fill tensor, cast to dtype."""

    def full(fill):
        # A constant fill arrives inlined as a TIR literal; a variable one as a 0-d tensor.
        value = fill if not isinstance(fill, te.Tensor) else fill()
        return te.compute(shape, lambda *_: value.astype(dtype), name="T_full")

    full.__name__ = name
    return full


def _constant_fill(value, name):
    def rule(bb, call):
        shape, dtype = _out(call)
        return bb.call_te(topi.full, shape, dtype, value, primfunc_name_hint=name)

    return rule


register_legalize("relax.ones", _constant_fill(1, "ones"))
register_legalize("relax.zeros", _constant_fill(0, "zeros"))
# TVM names the ``*_like`` kernels after the plain op.
register_legalize("relax.ones_like", _constant_fill(1, "ones"))
register_legalize("relax.zeros_like", _constant_fill(0, "zeros"))


@register_legalize("relax.full")
def _full(bb, call):
    shape, dtype = _out(call)
    return bb.call_te(_full_from(shape, dtype, "full"), call.args[1], primfunc_name_hint="full")


@register_legalize("relax.full_like")
def _full_like(bb, call):
    shape, dtype = _out(call)
    fill = _full_from(shape, dtype, "full")
    return bb.call_te(fill, call.args[1], primfunc_name_hint="full")


@register_legalize("relax.arange")
def _arange(bb, call):
    start, _stop, step = (prim_value(a) for a in call.args)  # the length is inferred
    dtype = call.ty.dtype
    bounds = [prim_value(a) for a in call.args]
    if all(isinstance(b, (tirx.IntImm, tirx.FloatImm)) for b in bounds):
        # As TVM: constant bounds make a constant tensor.
        start_v, stop_v, step_v = (b.value for b in bounds)
        return const(np.arange(start_v, stop_v, step_v, dtype=str(dtype)), str(dtype))
    (length,) = call.ty.shape.values

    def arange():
        # The length is the inferred one, so symbolic bounds keep a consistent shape.
        return te.compute(
            (length,),
            lambda i: (start + step * i.astype(start.dtype)).astype(dtype),
            name="T_arange",
        )

    return bb.call_te(arange, primfunc_name_hint="arange")


@register_legalize("relax.eye")
def _eye(bb, call):
    n, m, k = (prim_value(a) for a in call.args)
    return bb.call_te(topi.eye, n, m, k, call.ty.dtype, primfunc_name_hint="eye")


@register_legalize("relax.tril")
def _tril(bb, call):
    return bb.call_te(topi.tril, call.args[0], prim_value(call.args[1]), primfunc_name_hint="tril")


@register_legalize("relax.triu")
def _triu(bb, call):
    return bb.call_te(topi.triu, call.args[0], prim_value(call.args[1]), primfunc_name_hint="triu")
