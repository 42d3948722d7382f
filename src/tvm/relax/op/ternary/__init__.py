"""Ternary elementwise ops: ``relax.ewise_fma`` (``x1 * x2 + x3``) and ``relax.where``."""

from __future__ import annotations

from ...expr import Call
from ..registry import register_relax_op
from .infer import infer_ewise_fma, infer_where

__all__ = ["ewise_fma", "where"]

_EWISE_FMA = register_relax_op(
    "ewise_fma",
    3,
    "ternary",
    infer_ewise_fma,
    description="Elementwise fused multiply-add x1 * x2 + x3.",
)
_WHERE = register_relax_op(
    "where", 3, "ternary", infer_where, description="Select from x1 where condition holds, else x2."
)


def ewise_fma(x1, x2, x3) -> Call:
    """``R.ewise_fma(x1, x2, x3)``: ``x1 * x2 + x3``; all three have the same shape and dtype."""
    return Call(_EWISE_FMA, [x1, x2, x3])


def where(condition, x1, x2) -> Call:
    """``R.where(condition, x1, x2)``: elementwise selection with broadcasting of all three."""
    return Call(_WHERE, [condition, x1, x2])


from . import reference  # noqa: F401 - registers FReference after the ops exist
