"""Merging the pieces of split-and-fused loop indices (a small part of TVM's iter-map
simplification).

After ``fuse`` and ``split`` a block binding is a sum of *digit* terms of one variable, each
``((x % M) // D) * S`` (``M`` may be absent). Two digits of the same ``x`` that are adjacent,
the upper one starting where the lower one ends (``D1 == M2``) and scaled by the lower one's
range (``S1 == S2 * M2 // D2``), are one digit: ``((x % M1) // D2) * S2``. So
``f // 48 * 4 + f % 48 // 12`` becomes ``f // 12`` and ``f % 12 // 3 * 3 + f % 3`` becomes
``f % 12``. Terms of any other form are kept as they are.
"""

from __future__ import annotations

from ..ffi.structural import structural_equal
from ._tirx import tirx

__all__ = ["merge_index_digits"]


def _const(e):
    E, _ = tirx()
    return e.value if isinstance(e, E.IntImm) else None


def _terms(expr):
    E, _ = tirx()
    if isinstance(expr, E.Add):
        return _terms(expr.a) + _terms(expr.b)
    return [expr]


def _digit(term):
    """``(x, M, D, S)`` for ``((x % M) // D) * S`` (``M`` None when absent), or ``None``."""
    E, _ = tirx()
    scale = 1
    if isinstance(term, E.Mul) and _const(term.b) is not None:
        term, scale = term.a, _const(term.b)
    div = 1
    if isinstance(term, E.FloorDiv) and _const(term.b) is not None and _const(term.b) > 0:
        term, div = term.a, _const(term.b)
    mod = None
    if isinstance(term, E.FloorMod) and _const(term.b) is not None and _const(term.b) > 0:
        term, mod = term.a, _const(term.b)
    if div == 1 and mod is None:
        return None  # a bare expression: nothing to merge it with
    if mod is not None and mod % div:
        return None
    return term, mod, div, scale


def _build(x, mod, div, scale, dtype):
    _, G = tirx()
    e = x
    if mod is not None:
        e = G.floormod(e, G.const(mod, dtype))
    if div != 1:
        e = G.floordiv(e, G.const(div, dtype))
    if scale != 1:
        e = e * G.const(scale, dtype)
    return e


def merge_index_digits(expr):
    """``expr`` with adjacent digit terms of the same variable merged (see the module doc)."""
    terms = _terms(expr)
    if len(terms) < 2:
        return expr
    digits = [_digit(t) for t in terms]
    changed = True
    while changed:
        changed = False
        for i, di in enumerate(digits):
            for j, dj in enumerate(digits):
                if i == j or di is None or dj is None:
                    continue
                (x1, m1, d1, s1), (x2, m2, d2, s2) = di, dj
                if m2 is None or d1 != m2 or s1 != s2 * (m2 // d2):
                    continue
                if not (x1 is x2 or structural_equal(x1, x2)):
                    continue
                digits[i] = (x1, m1, d2, s2)
                terms[i] = _build(x1, m1, d2, s2, expr.dtype)
                del digits[j]
                del terms[j]
                changed = True
                break
            if changed:
                break
    out = terms[0]
    for t in terms[1:]:
        out = out + t
    return out
