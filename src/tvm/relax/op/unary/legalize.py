"""Legalization rules of the unary family: each op is the topi function of the same name.

The PrimFuncs are named ``tir_<op>`` (``tir_exp``, ``tir_clip``...) for the ops Apache TVM
0.27 names so, and ``<op>`` for the others (``erf``...), as TVM's LegalizeOps does.
"""

from __future__ import annotations

from .... import te, tirx, topi
from ...transform.legalize_ops.common import call_topi, register_legalize
from . import UNARY_OPS

#: Ops whose PrimFunc TVM 0.27 names ``tir_<op>``.
TIR_PREFIXED = frozenset({
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_not", "ceil", "cos",
    "cosh", "exp", "floor", "isfinite", "isinf", "isnan", "log", "logical_not", "negative",
    "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "square", "sqrt", "tan", "tanh",
    "trunc", "clip",
})


def _func_name(name: str) -> str:
    return f"tir_{name}" if name in TIR_PREFIXED else name


for _name, _kind, _doc in UNARY_OPS:
    register_legalize(f"relax.{_name}", call_topi(getattr(topi, _name), _func_name(_name)))


def _square(x):
    """``x * x`` as TVM legalizes it (one ``T_multiply`` block)."""
    return topi.multiply(x, x)


register_legalize("relax.square", call_topi(_square, _func_name("square")))


@register_legalize("relax.clip")
def _clip(bb, call):
    x, a_min, a_max = call.args
    return bb.call_te(topi.clip, x, a_min, a_max, primfunc_name_hint=_func_name("clip"))


def _logical_not(x):
    """``not x``; a non-bool tensor gives ``x == 0`` in its own dtype (as the reference)."""
    if x.dtype == "bool":
        return topi.logical_not(x)
    zero = tirx.const(0, x.dtype)
    return te.compute(
        x.shape, lambda *i: tirx.EQ(x(*i), zero).astype(x.dtype), name="T_logical_not"
    )


register_legalize("relax.logical_not", call_topi(_logical_not, _func_name("logical_not")))
