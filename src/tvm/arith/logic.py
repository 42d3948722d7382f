"""Boolean rules of the canonical simplifier: comparisons, ``and``/``or``/``not``.

A comparison of integers ``a <op> b`` is decided from the bounds of the canonical difference
``a - b`` (``x < x + 1`` is ``True``; ``2*x == 1`` is ``False`` since 2 does not divide 1).
``a and b`` / ``a or b`` over comparisons of one difference (up to a constant and sign) are
decided by intersecting or joining the integer sets they allow (``x < y and y < x`` is
``False``). ``not`` flips an integer comparison (``not x < y`` is ``y <= x``). Undecided
comparisons are written as TVM writes them: ``a >= b`` as ``b <= a``, ``a > b`` as ``b < a``,
and ``0 == m`` as ``m == 0``. Floating-point
comparisons are only simplified inside, never decided (NaN).

:class:`BoolRules` is a mixin of :class:`tvm.arith.canonical.Simplifier`; it uses the
simplifier's ``to_sum``, ``recombine``, ``sum_bound``, ``key`` and ``generic``.

Examples
--------
>>> from tvm import tirx, arith
>>> x, y = tirx.Var("x"), tirx.Var("y")
>>> ana = arith.Analyzer()
>>> ana.simplify(tirx.all(x < y, y < x)), ana.simplify(tirx.Not(x < y)), ana.simplify(x >= y)
(T.bool(False), y <= x, y <= x)
"""

from __future__ import annotations

import math
from typing import ClassVar

from ..runtime.data_type import dtype_info

__all__ = ["BoolRules", "int_kind"]


def int_kind(dtype) -> bool:
    """A scalar integer dtype (int or uint, one lane)."""
    info = dtype_info(dtype)
    return info.kind in ("int", "uint") and info.lanes == 1


class BoolRules:
    """Simplification of bool expressions (mixed into the Simplifier)."""

    def simplify_bool(self, e):
        """Simplify a boolean expression: comparisons, ``And``/``Or``/``Not`` and bound variables.

        Parameters
        ----------
        e : PrimExpr
            An expression of dtype bool.

        Returns
        -------
        PrimExpr
            The simplified expression (``IntImm`` true/false when decided); ``e`` if unchanged.
        """
        name = type(e).__name__
        if name in ("EQ", "NE", "LT", "LE", "GT", "GE"):
            return self.simplify_compare(e)
        if name in ("And", "Or"):
            a, b = self.simplify_bool(e.a), self.simplify_bool(e.b)
            if self.key(a) == self.key(b):
                return a
            decided = self.decide_pair(name, a, b)
            if decided is not None:
                return self.E.IntImm("bool", int(decided))
            if a is e.a and b is e.b:
                return e
            return (self.G.logical_and if name == "And" else self.G.logical_or)(a, b)
        if name == "Not":
            return self.negate(self.simplify_bool(e.a))
        if getattr(e, "_sequal_kind", None) == "var":
            bound = self.var_map.get(e)
            return e if bound is None else self.simplify_bool(bound)
        return self.generic(e)

    def _difference_set(self, cmp):
        """``(d, intervals)``: the comparison says ``d`` (a Sum) lies in the integer intervals."""
        name = type(cmp).__name__
        if name not in _CMP_SETS or not int_kind(cmp.a.dtype):
            return None
        d = self.recombine(self.to_sum(cmp.a).plus(self.to_sum(cmp.b), -1))
        return d, _CMP_SETS[name]

    def decide_pair(self, name, a, b):
        """True/False when ``a and b`` / ``a or b`` is decided: both compare one difference."""
        first, second = self._difference_set(a), self._difference_set(b)
        if first is None or second is None:
            return None
        (d1, set1), (d2, set2) = first, second
        same = d1.plus(d2, -1)
        if same.is_const:  # d2 = d1 - k, so d2 in S means d1 in S + k
            k = same.const
            moved = [(lo + k, hi + k) for lo, hi in set2]
        else:
            opposite = d1.plus(d2)
            if not opposite.is_const:
                return None
            k = opposite.const  # d2 = k - d1, so d2 in S means d1 in k - S
            moved = [(k - hi, k - lo) for lo, hi in set2]
        if name == "And":
            return False if not _intersect(set1, moved) else None
        return True if _covers_all(set1 + moved) else None

    _NEGATED: ClassVar[dict] = {"LT": ("GE", False), "LE": ("GT", False), "GT": ("LE", False),
                "GE": ("LT", False), "EQ": ("NE", False), "NE": ("EQ", False)}

    def negate(self, a):
        """``not a`` for a simplified bool ``a``; integer comparisons flip (``y <= x``)."""
        if isinstance(a, self.E.IntImm):
            return self.E.IntImm("bool", int(not a.value))
        name = type(a).__name__
        if name == "Not":
            return a.a
        if name in self._NEGATED and int_kind(a.a.dtype):
            if name == "LT":
                return self.E.LE(a.b, a.a)
            if name == "LE":
                return self.E.LT(a.b, a.a)
            if name == "GT":
                return self.E.LE(a.a, a.b)
            if name == "GE":
                return self.E.LT(a.a, a.b)
            if name == "EQ":
                return self.E.NE(a.a, a.b)
            return self.E.EQ(a.a, a.b)
        return self.E.Not(a)

    def decide(self, name, diff):
        """True/False when ``diff <op> 0`` is decided by bounds, else None."""
        lo, hi = self.sum_bound(diff)
        if name == "LT":
            return True if hi < 0 else False if lo >= 0 else None
        if name == "LE":
            return True if hi <= 0 else False if lo > 0 else None
        if name == "GT":
            return True if lo > 0 else False if hi <= 0 else None
        if name == "GE":
            return True if lo >= 0 else False if hi < 0 else None
        if lo == hi == 0:
            result = True
        elif lo > 0 or hi < 0:
            result = False
        elif diff.terms and diff.const % _coeff_gcd(diff) != 0:
            result = False  # e.g. 2*x == 1 has no integer solution
        else:
            return None
        return result if name == "EQ" else not result

    def simplify_compare(self, e):
        """Simplify a comparison (``EQ``, ``NE``, ``LT``, ``LE``, ``GT``, ``GE``).

        Integer comparisons are decided from the normal form and bounds of ``a - b`` when possible,
        otherwise rewritten in TVM's spelling (``a > b`` as ``b < a``, constants on one side).
        Float comparisons only get the generic simplification and that spelling.

        Parameters
        ----------
        e : PrimExpr
            The comparison.

        Returns
        -------
        PrimExpr
        """
        name = type(e).__name__
        if not int_kind(e.a.dtype):
            out = self.generic(e)
            # TVM spells every ``a > b`` / ``a >= b`` as ``b < a`` / ``b <= a``, floats too.
            kind = type(out).__name__
            if kind in ("GT", "GE"):
                return (self.E.LE if kind == "GE" else self.E.LT)(out.b, out.a)
            return out
        sa, sb = self.to_sum(e.a), self.to_sum(e.b)
        diff = self.recombine(sa.plus(sb, -1))
        verdict = self.decide(name, diff)
        if verdict is not None:
            return self.E.IntImm("bool", int(verdict))
        # Bounds that pin one side (TVM's RewriteSimplifier does the same): ``a <= b`` known
        # with ``a >= b`` is ``a == b``; ``a != b`` known with ``a >= b`` is ``b < a``.
        lo, hi = self.sum_bound(diff)
        pinned = name in ("LE", "GE") and (lo >= 0 if name == "LE" else hi <= 0)
        if name == "NE" and (lo >= 0 or hi <= 0):
            a, b = self.to_expr(sa), self.to_expr(sb)
            return self.E.LT(b, a) if lo >= 0 else self.E.LT(a, b)
        if name in ("LT", "LE", "GT", "GE") and not pinned:
            # TVM's spelling: ``a >= b`` is ``b <= a``, ``a > b`` is ``b < a``, constants
            # moved to one side (``i + 1 <= j`` is ``i < j``).
            if name in ("GE", "GT"):
                sa, sb, name = sb, sa, ("LE" if name == "GE" else "LT")
            if name == "LT":
                strict, lhs, rhs = self._ordered_less(sa, sb)
            else:  # a <= b is not (b < a)
                strict, lhs, rhs = self._ordered_less(sb, sa)
                strict, lhs, rhs = not strict, rhs, lhs
            a, b = self.to_expr(lhs), self.to_expr(rhs)
            if name == ("LT" if strict else "LE") and a is e.a and b is e.b:
                return e
            return (self.E.LT if strict else self.E.LE)(a, b)
        a, b = self.to_expr(sa), self.to_expr(sb)
        if pinned:
            if name == "GE":  # ``a >= b`` is ``b <= a``, then ``b == a``
                a, b = b, a
            name = "EQ"
        if name in ("EQ", "NE") and isinstance(a, self.E.IntImm) and not isinstance(
            b, self.E.IntImm
        ):
            a, b = b, a
        if a is e.a and b is e.b and name == type(e).__name__:
            return e
        return getattr(self.E, name)(a, b)


    def _ordered_less(self, sa, sb):
        """``(strict, lhs, rhs)``: ``sa < sb`` with constants merged as TVM merges them.

        A constant side absorbs the other side's constant (``i + 1 < 29`` is ``i < 28``);
        otherwise trailing constant offsets cancel (``i + 1 < j + 1`` is ``i < j``, ``i + 1 <
        j + 2`` is ``i <= j``, ``i + 3 < j + 1`` is ``i + 2 < j``).
        """
        if sa.is_const and not sb.is_const:
            return True, _with_const(sa, sa.const - sb.const), _with_const(sb, 0)
        if sb.is_const and not sa.is_const:
            return True, _with_const(sa, 0), _with_const(sb, sb.const - sa.const)
        lo, ro = _trailing_const(sa), _trailing_const(sb)
        if lo == 0 and ro == 0:
            return True, sa, sb
        diff = ro - lo
        lhs, rhs = _with_const(sa, sa.const - lo), _with_const(sb, sb.const - ro)
        if diff == 0:
            return True, lhs, rhs
        if diff == 1:
            return False, lhs, rhs
        if diff < 0 and ro != 0:
            return True, _with_const(lhs, lhs.const - diff), rhs
        if diff > 0 and lo != 0:
            return True, lhs, _with_const(rhs, rhs.const + diff)
        return True, sa, sb


def _trailing_const(s) -> int:
    """The constant of a Sum when its canonical expression ends with it (``x + 2``, ``x - n -
    1``), else 0 (``3 - x``, ``k + 4 - n``): the offset TVM's rules can see."""
    if s.is_const or s.const == 0:
        return 0
    coeffs = [c for c, _ in s.terms.values()]
    if s.const < 0 or (all(c > 0 for c in coeffs)):
        return s.const
    return 0


def _with_const(s, const):
    out = s.copy()
    out.const = const
    return out


_INF = math.inf
# The integers d satisfying ``d <op> 0``, as closed intervals.
_CMP_SETS = {
    "LT": [(-_INF, -1)],
    "LE": [(-_INF, 0)],
    "GT": [(1, _INF)],
    "GE": [(0, _INF)],
    "EQ": [(0, 0)],
    "NE": [(-_INF, -1), (1, _INF)],
}


def _intersect(set1, set2) -> bool:
    """Whether two unions of closed integer intervals meet."""
    return any(max(a[0], b[0]) <= min(a[1], b[1]) for a in set1 for b in set2)


def _covers_all(intervals) -> bool:
    """Whether a union of closed integer intervals is every integer."""
    reach = -_INF
    for lo, hi in sorted(intervals):
        if lo > reach + 1:
            return False
        reach = max(reach, hi)
    return reach == _INF


def _coeff_gcd(s) -> int:
    """The gcd of a Sum's coefficients."""
    g = 0
    for coeff, _ in s.terms.values():
        g = math.gcd(g, coeff)
    return g
