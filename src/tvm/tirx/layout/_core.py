"""Arithmetic helpers for the layout algebra: constants stay Python ints, the rest PrimExprs.

Layout algorithms work on plain ``(extent, stride, axis)`` triples whose numbers are Python
ints when constant and PrimExprs otherwise; proofs on symbolic values go through one shared
:class:`tvm.arith.Analyzer` per thread.
"""

from __future__ import annotations

import numbers
import threading

from ...arith import Analyzer
from ...ir.expr import PrimExpr
from ..expr import IntImm
from ..generic import floordiv, floormod
from ..op import abs as _abs
from .axis import as_index_expr

_ANALYZERS = threading.local()


def analyzer() -> Analyzer:
    """The analyzer the layout algebra of this thread shares.

    One per thread: an Analyzer keeps bindings and caches that two threads compiling at
    once must not share (issue 22's audit of lazily made process-wide objects).
    """
    made = getattr(_ANALYZERS, "analyzer", None)
    if made is None:
        made = _ANALYZERS.analyzer = Analyzer()
    return made


def num(value):
    """A Python int for a constant (int or IntImm), else the PrimExpr itself."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, IntImm):
        return int(value.value)
    if isinstance(value, PrimExpr):
        return value
    raise TypeError(f"layout values must be ints or PrimExprs, got {value!r}")


def simp(value):
    """Simplify a PrimExpr; a constant result comes back as a Python int."""
    if isinstance(value, numbers.Integral):
        return int(value)
    return num(analyzer().simplify(value))


def expr(value):
    """A PrimExpr for ``value`` (ints become int32 IntImms)."""
    return as_index_expr(value)


def is_const(value) -> bool:
    return isinstance(value, numbers.Integral)


def prove(cond) -> bool:
    """Whether ``cond`` (a Python bool or a bool PrimExpr) provably holds."""
    if isinstance(cond, (bool, numbers.Integral)):
        return bool(cond)
    return analyzer().can_prove(cond)


def equal(a, b) -> bool:
    """Whether ``a == b`` provably."""
    a, b = num(a), num(b)
    if is_const(a) and is_const(b):
        return a == b
    return analyzer().can_prove_equal(expr(a), expr(b))


def divides(a, b) -> bool:
    """Whether ``a`` provably divides ``b`` (``b % a == 0``)."""
    a, b = num(a), num(b)
    if is_const(a) and is_const(b):
        return a != 0 and b % a == 0
    if is_const(a) and a == 1:
        return True
    return prove(floormod(expr(b), expr(a)) == 0)


def less(a, b) -> bool:
    """Whether ``a < b`` provably."""
    a, b = num(a), num(b)
    if is_const(a) and is_const(b):
        return a < b
    return prove(expr(a) < expr(b))


def div(a, b):
    """``a // b`` for values known to divide exactly."""
    a, b = num(a), num(b)
    if is_const(a) and is_const(b):
        return a // b
    if is_const(b) and b == 1:
        return a
    return simp(floordiv(expr(a), expr(b)))


def fdiv(a, b):
    """Floor division of ints or PrimExprs."""
    if is_const(a) and is_const(b):
        return a // b
    if is_const(b) and b == 1:
        return a
    return floordiv(expr(a), expr(b))


def fmod(a, b):
    """Floor modulo of ints or PrimExprs."""
    if is_const(a) and is_const(b):
        return a % b
    return floormod(expr(a), expr(b))


def mul(a, b):
    a, b = num(a), num(b)
    if is_const(a) and is_const(b):
        return a * b
    if is_const(a) and a == 1:
        return b
    if is_const(b) and b == 1:
        return a
    return simp(expr(a) * expr(b))


def add(a, b):
    a, b = num(a), num(b)
    if is_const(a) and is_const(b):
        return a + b
    if is_const(a) and a == 0:
        return b
    if is_const(b) and b == 0:
        return a
    return simp(expr(a) + expr(b))


def sub(a, b):
    a, b = num(a), num(b)
    if is_const(a) and is_const(b):
        return a - b
    if is_const(b) and b == 0:
        return a
    return simp(expr(a) - expr(b))


def product(values):
    out = 1
    for v in values:
        out = mul(out, v)
    return out


def absval(a):
    a = num(a)
    if is_const(a):
        return abs(a)
    if prove(expr(a) >= 0):
        return a
    return simp(_abs(expr(a)))
