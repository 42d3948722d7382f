"""Legalization rules of the ternary family (``ewise_fma``, ``where``)."""

from __future__ import annotations

from .... import te, topi
from ...transform.legalize_ops.common import call_topi, register_legalize


def _ewise_fma(a, b, c):
    """``a * b + c`` elementwise (the three shapes are equal)."""
    return te.compute(a.shape, lambda *i: a(*i) * b(*i) + c(*i), name="T_ewise_fma")


register_legalize("relax.ewise_fma", call_topi(_ewise_fma, "ewise_fma"))
register_legalize("relax.where", call_topi(topi.where))
