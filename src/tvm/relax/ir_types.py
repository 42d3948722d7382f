"""Small constructors of TIR values used across Relax (kept in one place)."""

from __future__ import annotations

from .ty import as_prim_expr

__all__ = ["IntImm64"]


def IntImm64(value: int):
    """``T.int64(value)``."""
    return as_prim_expr(int(value), "int64")
