"""Canonical simplification of integer PrimExprs: sums of products with constant coefficients.

An integer expression is rewritten into a :class:`Sum` ``c0 + c1*m1 + c2*m2 + ...`` where each
monomial ``m`` is a product of *atoms* (variables and expressions the normal form cannot open,
such as ``x // 3`` or ``T.min(x, y)``). Like terms are collected whatever their order
(``x*y + y*x`` is ``x*y*2``), constants fold, and:

* ``floordiv``/``floormod`` by a positive constant pull out the divisible part
  (``(x*6 + 3) // 2`` is ``x*3 + 1``; ``(x*4 + 2) % 4`` is ``2``), cancel a common factor
  (``(x*3) // 6`` is ``x // 2``; ``(x*3) % 6`` is ``x % 2 * 3``), and vanish when the bounds
  of the remainder allow (``x % 4`` with ``0 <= x < 4`` is ``x``);
* ``a // c * c + a % c`` recombines to ``a`` and ``a - a // c * c`` becomes ``a % c``;
* an exact symbolic division ``(n*m*2) // m`` is ``n*2`` (a division by zero is undefined
  anyway, so the divisor is assumed nonzero, as TVM does);
* ``min``/``max`` and comparisons are decided when the bounds of the difference of their
  operands allow (``max(x, x + 1)`` is ``x + 1``; ``x < x + 1`` is ``True``); boolean rules
  are in :mod:`tvm.arith.logic`;
* a widening integer cast distributes over the sum (``cast(int64, x + 1) - cast(int64, x)``
  is ``1``), and a ``Let`` whose value is a constant or a variable is inlined.

Products of two sums are kept factored (``n * (n + 1)``), as TVM prints them; with
``expand=True`` (used for proofs) they are multiplied out, which makes the form canonical for
every polynomial identity. The result is printed as TVM prints it: terms by descending signed
coefficient (then ``//`` and ``%`` by larger constants first, then first appearance), positive
terms added, a positive constant, negative terms and a negative constant subtracted.

The simplifier assumes integer arithmetic does not overflow (as TVM's does).

Examples
--------
>>> from tvm import tirx, arith
>>> x, y = tirx.Var("x"), tirx.Var("y")
>>> arith.Analyzer().simplify(x * y + y * x - (x // 4) * 4 - x % 4)
x * y * 2 - x
"""

from __future__ import annotations

import math
from collections import Counter
from typing import ClassVar

from ..runtime.data_type import dtype_info
from ._tirx import tirx
from .logic import BoolRules

__all__ = ["Simplifier", "Sum"]


class Sum:
    """``const + sum(coeff * product(factors))``; terms keyed by their monomial's key."""

    __slots__ = ("const", "dtype", "terms")

    def __init__(self, dtype, terms=None, const=0):
        self.dtype = dtype
        #: monomial key -> [coeff, factors (tuple of atom expressions)]
        self.terms = {} if terms is None else terms
        self.const = const

    @property
    def is_const(self) -> bool:
        """Whether the sum has no terms (its value is ``const``)."""
        return not self.terms

    def copy(self) -> Sum:
        """A new Sum with copies of the term entries (the factor tuples are shared)."""
        return Sum(self.dtype, {k: [c, f] for k, (c, f) in self.terms.items()}, self.const)

    def add_term(self, key, coeff, factors):
        """Add ``coeff * product(factors)`` to this Sum in place.

        Parameters
        ----------
        key : tuple
            The monomial key of ``factors`` (terms with equal keys are merged).
        coeff : int
            The coefficient; a term whose coefficient becomes 0 is removed.
        factors : tuple of PrimExpr
            The atoms multiplied in the term.
        """
        entry = self.terms.get(key)
        if entry is None:
            if coeff:
                self.terms[key] = [coeff, factors]
        else:
            entry[0] += coeff
            if entry[0] == 0:
                del self.terms[key]

    def plus(self, other: Sum, scale: int = 1) -> Sum:
        """``self + scale * other`` (a new Sum)."""
        return self.copy().add_inplace(other, scale)

    def add_inplace(self, other: Sum, scale: int = 1) -> Sum:
        """Add ``scale * other`` to this Sum (which must not be shared) and return it."""
        for key, (coeff, factors) in other.terms.items():
            self.add_term(key, coeff * scale, factors)
        self.const += other.const * scale
        return self

    def scaled(self, scale: int) -> Sum:
        """``scale * self`` as a new Sum.

        Parameters
        ----------
        scale : int
            The factor; 0 gives the zero Sum.

        Returns
        -------
        Sum
        """
        if scale == 0:
            return Sum(self.dtype)
        return Sum(
            self.dtype, {k: [c * scale, f] for k, (c, f) in self.terms.items()}, self.const * scale
        )

    def single_term(self):
        """``(key, coeff, factors)`` when the sum is one term without constant, else None."""
        if self.const == 0 and len(self.terms) == 1:
            key, (coeff, factors) = next(iter(self.terms.items()))
            return key, coeff, factors
        return None


def _mono_key(factor_keys) -> frozenset:
    if len(factor_keys) == 1:
        # Why: most monomials have one factor; the same set without building a Counter.
        return frozenset(((factor_keys[0], 1),))
    return frozenset(Counter(factor_keys).items())


class Simplifier(BoolRules):
    """One simplification pass; create one per top-level call (it memoizes by node)."""

    def __init__(self, analyzer, expand=False, keep_same=False):
        self.analyzer = analyzer
        #: Return an integer expression itself when its canonical form is the same tree. Off
        #: by default: callers upstream of the build partition (``te``, Relax passes) keep
        #: their object sharing as it was, since the partition counts distinct nodes.
        self.keep_same = keep_same
        self.bounds = analyzer._bounds
        self.var_map = analyzer._var_map
        self.expand = expand
        self.E, self.G = tirx()
        self._sum_memo: dict = {}
        self._key_memo: dict = {}
        self._keep: list = []

    # --- entry ------------------------------------------------------------------------------
    def simplify(self, e):
        """Simplify any PrimExpr (integer, bool or other dtype)."""
        if not isinstance(e, self.E.PrimExpr):
            return e
        info = dtype_info(e.dtype)
        if info.lanes == 1 and info.kind in ("int", "uint"):
            # Exact fast paths: an integer constant (its value is in range already) and a
            # variable without a binding are their own canonical form; returning the very
            # object lets the callers keep their unchanged parents instead of rebuilding them.
            if type(e) is self.E.IntImm:
                return e
            if getattr(e, "_sequal_kind", None) == "var" and e not in self.var_map:
                return e
            result = self.to_expr(self.to_sum(e))
            # Already canonical (the same tree came back): keep the original object, so the
            # callers' unchanged parents are not rebuilt (nor compared again later).
            return e if self.keep_same and _same_tree(result, e, self.E) else result
        if info.lanes == 1 and info.kind == "bool":
            return self.simplify_bool(e)
        return self.generic(e)

    # --- structural keys --------------------------------------------------------------------
    def key(self, e):
        """A hashable key equal for structurally equal expressions (variables by identity)."""
        memo = self._key_memo.get(id(e))
        if memo is not None:
            return memo[1]
        if getattr(e, "_sequal_kind", None) == "var":
            result = ("var", id(e))
        elif type(e).__name__ in ("IntImm", "FloatImm"):
            result = (type(e).__name__, e.dtype, e.value)
        else:
            parts = [type(e).__name__]
            for fobj in e._fields:
                if fobj.role == "ignore":
                    continue
                parts.append(self._field_key(getattr(e, fobj.name, None)))
            result = tuple(parts)
        self._key_memo[id(e)] = (e, result)
        return result

    def _field_key(self, value):
        if isinstance(value, self.E.PrimExpr) or hasattr(value, "_fields"):
            return self.key(value)
        if isinstance(value, (tuple, list)):
            return tuple(self._field_key(v) for v in value)
        try:
            hash(value)
        except TypeError:
            self._keep.append(value)
            return ("id", id(value))
        return value

    # --- building sums ----------------------------------------------------------------------
    def atom(self, e) -> Sum:
        """The Sum of ``e`` taken as one opaque factor (an ``IntImm`` becomes a constant).

        Parameters
        ----------
        e : PrimExpr
            The expression.

        Returns
        -------
        Sum
        """
        if isinstance(e, self.E.IntImm):
            return self.const_sum(e.dtype, e.value)
        return Sum(e.dtype, {_mono_key((self.key(e),)): [1, (e,)]})

    def const_sum(self, dtype, value) -> Sum:
        """The constant Sum ``value`` of type ``dtype`` (no terms)."""
        return Sum(dtype, None, value)

    def to_sum(self, e) -> Sum:
        """The canonical sum-of-products form of ``e`` (memoized per expression object).

        Parameters
        ----------
        e : PrimExpr
            An integer expression; nodes without a rule are simplified and kept as atoms.

        Returns
        -------
        Sum
        """
        memo = self._sum_memo.get(id(e))
        if memo is not None:
            return memo[1]
        rule = getattr(self, "_s_" + type(e).__name__, None)
        if rule is not None:
            result = rule(e)
        elif getattr(e, "_sequal_kind", None) == "var":
            result = self._s_Var(e)
        else:
            simplified = self.generic(e)
            if simplified is not e and (
                hasattr(self, "_s_" + type(simplified).__name__)
                or getattr(simplified, "_sequal_kind", None) == "var"
            ):
                # e.g. if_then_else(True, a, b) became ``a``, which the normal form can open.
                result = self.to_sum(simplified)
            else:
                result = self.atom(simplified)
        self._sum_memo[id(e)] = (e, result)
        return result

    def _s_IntImm(self, e):
        return self.const_sum(e.dtype, e.value)

    def _s_Var(self, e):
        bound = self.var_map.get(e)
        if bound is not None:
            return self.to_sum(bound)
        return self.atom(e)

    _s_SizeVar = _s_Var

    def _s_Add(self, e):
        # Walk the left spine of a chain ``a + b - c + ...`` iteratively: linear time, and no
        # recursion on the chain's length.
        rights = []
        node = e
        while type(node).__name__ in ("Add", "Sub") and id(node) not in self._sum_memo:
            rights.append((node.b, 1 if type(node).__name__ == "Add" else -1))
            node = node.a
        out = Sum(e.dtype).add_inplace(self.to_sum(node))
        for operand, sign in reversed(rights):
            out.add_inplace(self.to_sum(operand), sign)
        return out

    _s_Sub = _s_Add

    def _s_Mul(self, e):
        return self.multiply(self.to_sum(e.a), self.to_sum(e.b))

    def multiply(self, sa: Sum, sb: Sum) -> Sum:
        """``sa * sb`` as a Sum.

        A constant side scales the other. With ``expand`` set the product is distributed over the
        terms; otherwise each side that has several terms becomes one atom factor.

        Parameters
        ----------
        sa, sb : Sum
            The factors.

        Returns
        -------
        Sum
        """
        if sa.is_const:
            return sb.scaled(sa.const)
        if sb.is_const:
            return sa.scaled(sb.const)
        if self.expand:
            out = Sum(sa.dtype, None, 0)
            parts_a = [(c, f) for c, f in sa.terms.values()] + [(sa.const, ())]
            parts_b = [(c, f) for c, f in sb.terms.values()] + [(sb.const, ())]
            for ca, fa in parts_a:
                for cb, fb in parts_b:
                    if ca == 0 or cb == 0:
                        continue
                    factors = fa + fb
                    if not factors:
                        out.const += ca * cb
                    else:
                        out.add_term(self._factors_key(factors), ca * cb, factors)
            return out
        ta, tb = self._as_term(sa), self._as_term(sb)
        factors = ta[1] + tb[1]
        return Sum(sa.dtype, {self._factors_key(factors): [ta[0] * tb[0], factors]})

    def _as_term(self, s: Sum):
        """``(coeff, factors)``: a single term as is; a longer sum becomes one atom factor."""
        single = s.single_term()
        if single is not None:
            return single[1], single[2]
        return 1, (self.to_expr(s),)

    def _factors_key(self, factors):
        return _mono_key(tuple(self.key(f) for f in factors))

    # --- division ---------------------------------------------------------------------------
    def _s_FloorDiv(self, e):
        sa, sb = self.to_sum(e.a), self.to_sum(e.b)
        if sb.is_const and sb.const > 0:
            if sa.is_const:
                return self.const_sum(e.dtype, sa.const // sb.const)
            return self.floordiv_const(sa, sb.const)
        if sb.is_const and sb.const < 0 and sa.is_const:
            return self.const_sum(e.dtype, sa.const // sb.const)
        exact = self.exact_divide(sa, sb)
        if exact is not None:
            return exact
        return self.atom(self.E.FloorDiv(self.to_expr(sa), self.to_expr(sb)))

    def _s_FloorMod(self, e):
        sa, sb = self.to_sum(e.a), self.to_sum(e.b)
        if sb.is_const and sb.const > 0:
            if sa.is_const:
                return self.const_sum(e.dtype, sa.const % sb.const)
            return self.floormod_const(sa, sb.const)
        if sb.is_const and sb.const < 0 and sa.is_const:
            return self.const_sum(e.dtype, sa.const % sb.const)
        if self.exact_divide(sa, sb) is not None:
            return self.const_sum(e.dtype, 0)
        return self.atom(self.E.FloorMod(self.to_expr(sa), self.to_expr(sb)))

    def _s_Div(self, e):
        sa, sb = self.to_sum(e.a), self.to_sum(e.b)
        if sa.is_const and sb.is_const and sb.const != 0:
            q = abs(sa.const) // abs(sb.const)
            return self.const_sum(e.dtype, q if (sa.const >= 0) == (sb.const > 0) else -q)
        if sb.is_const and sb.const > 0 and self.sum_bound(sa)[0] >= 0:
            # Truncation equals floor for a non-negative dividend.
            return self.floordiv_const(sa, sb.const)
        exact = self.exact_divide(sa, sb)
        if exact is not None:
            return exact
        return self.atom(self.E.Div(self.to_expr(sa), self.to_expr(sb)))

    def _s_Mod(self, e):
        sa, sb = self.to_sum(e.a), self.to_sum(e.b)
        if sa.is_const and sb.is_const and sb.const != 0:
            q = abs(sa.const) // abs(sb.const)
            q = q if (sa.const >= 0) == (sb.const > 0) else -q
            return self.const_sum(e.dtype, sa.const - q * sb.const)
        if sb.is_const and sb.const > 0 and self.sum_bound(sa)[0] >= 0:
            return self.floormod_const(sa, sb.const)
        if self.exact_divide(sa, sb) is not None:
            return self.const_sum(e.dtype, 0)
        return self.atom(self.E.Mod(self.to_expr(sa), self.to_expr(sb)))

    def floordiv_const(self, sa: Sum, c: int) -> Sum:
        """``sa // c`` for a constant ``c > 0``."""
        if c == 1:
            return sa
        quotient = Sum(sa.dtype, None, sa.const // c)
        rest = Sum(sa.dtype, None, sa.const % c)
        for key, (coeff, factors) in sa.terms.items():
            if coeff % c == 0:
                quotient.add_term(key, coeff // c, factors)
            else:
                rest.add_term(key, coeff, factors)
        if rest.is_const:
            return quotient  # 0 <= rest.const < c
        if sa.const % c:
            # The constant stays inside unless divisible: (x + 5) // 4, but (x + 4) // 2 is
            # x // 2 + 2 (as TVM writes them).
            quotient.const, rest.const = 0, sa.const
        lo, hi = self.sum_bound(rest)
        if not (math.isinf(lo) or math.isinf(hi)) and lo // c == hi // c:
            quotient.const += lo // c
            return quotient
        split = self._split_small_part(rest, c)
        if split is not None:
            # (d*h + l) // (d*m) == h // m when 0 <= l < d
            high, _, d = split
            return quotient.plus(self.floordiv_const(high, c // d))
        single = rest.single_term()
        if single is not None and rest.const == 0 and single[1] == 1 and len(single[2]) == 1:
            inner_mod = single[2][0]
            if (type(inner_mod).__name__ == "FloorMod" and isinstance(inner_mod.b, self.E.IntImm)
                    and inner_mod.b.value > 0 and inner_mod.b.value % c == 0):
                # (u % (c*k)) // c == (u // c) % k, when u // c divides out (no ``//`` left;
                # else ``x % 4 // 2`` stays, the form TVM prints)
                u_div = self.floordiv_const(self.to_sum(inner_mod.a), c)
                if not any(type(f).__name__ == "FloorDiv"
                           for _, factors in u_div.terms.values() for f in factors):
                    return quotient.plus(self.floormod_const(u_div, inner_mod.b.value // c))
        g = self._gcd(rest, c)
        if g > 1:
            rest, c = self._divide_exact(rest, g), c // g
        inner = self._single_floordiv(rest)
        if inner is not None:
            # (u // a + k) // c == (u + k*a) // (a*c) for positive a and c.
            u, a, k = inner
            rest = self.to_sum(u).plus(Sum(sa.dtype, None, k * a))
            return quotient.plus(self.floordiv_const(rest, a * c))
        div = self.E.FloorDiv(self.to_expr(rest), self._imm(sa.dtype, c))
        return quotient.plus(self.atom(div))

    def floormod_const(self, sa: Sum, c: int) -> Sum:
        """``sa % c`` for a constant ``c > 0``."""
        if c == 1:
            return Sum(sa.dtype)
        rest = Sum(sa.dtype, None, sa.const % c)
        for key, (coeff, factors) in sa.terms.items():
            # Truncated remainder keeps small negative coefficients: (m - k) % 4 stays.
            rem = abs(coeff) % c
            rest.add_term(key, rem if coeff >= 0 else -rem, factors)
        if rest.is_const:
            return rest
        lo, hi = self.sum_bound(rest)
        if not (math.isinf(lo) or math.isinf(hi)) and lo // c == hi // c:
            rest.const -= (lo // c) * c
            return rest
        split = self._split_small_part(rest, c)
        if split is not None and len(rest.terms) == 2 and rest.const == 0:
            # (d*h + l) % (d*m) == (h % m) * d + l when 0 <= l < d; as TVM's rewrite rule
            # ``(x*c1 + y) % c2`` only for a sum of two terms (a longer sum's mod stays)
            high, low, d = split
            return self.floormod_const(high, c // d).scaled(d).plus(low)
        single = rest.single_term()
        if single is not None and single[1] == 1 and len(single[2]) == 1:
            inner_div = single[2][0]
            if (type(inner_div).__name__ == "FloorDiv" and isinstance(inner_div.b, self.E.IntImm)
                    and inner_div.b.value > 0):
                # (u // a) % c == (u % (a*c)) // a, the form TVM prints
                a = inner_div.b.value
                return self.floordiv_const(self.floormod_const(self.to_sum(inner_div.a), a * c), a)
        if single is not None and single[1] == 1 and len(single[2]) == 1:
            inner_mod = single[2][0]
            if (type(inner_mod).__name__ == "FloorMod" and isinstance(inner_mod.b, self.E.IntImm)
                    and inner_mod.b.value > 0 and inner_mod.b.value % c == 0):
                # (u % (k*c)) % c == u % c
                return self.floormod_const(self.to_sum(inner_mod.a), c)
        g = self._gcd(rest, c)
        if g > 1:
            inner = self.E.FloorMod(
                self.to_expr(self._divide_exact(rest, g)), self._imm(sa.dtype, c // g)
            )
            return self.atom(inner).scaled(g)
        return self.atom(self.E.FloorMod(self.to_expr(rest), self._imm(sa.dtype, c)))

    def _split_small_part(self, s: Sum, c: int):
        """``(h, l, d)`` with ``s == d*h + l``, ``d`` a divisor of ``c`` (1 < d < c), ``h`` not
        constant and ``0 <= l < d`` by bounds (TVM's canonical form splits a sum this way:
        ``(i*4 + j*2 + v) // 32`` is ``i // 8`` when ``j*2 + v`` is in ``[0, 4)``); None when
        there is no such split. The largest such ``d`` is taken."""
        divisors = sorted({math.gcd(abs(coeff), c) for coeff, _ in s.terms.values()},
                          reverse=True)
        for d in divisors:
            if d <= 1 or d >= c:
                continue
            high, low = Sum(s.dtype), Sum(s.dtype, None, s.const)
            for key, (coeff, factors) in s.terms.items():
                if coeff % d == 0:
                    high.add_term(key, coeff // d, factors)
                else:
                    low.add_term(key, coeff, factors)
            if high.is_const:
                continue
            lo, hi = self.sum_bound(low)
            if 0 <= lo and hi < d:
                return high, low, d
        return None

    def _single_floordiv(self, s: Sum):
        """``(u, a, k)`` when ``s`` is ``u // a + k`` with a constant ``a > 0``, else None."""
        if len(s.terms) != 1:
            return None
        coeff, factors = next(iter(s.terms.values()))
        if coeff != 1 or len(factors) != 1 or type(factors[0]).__name__ != "FloorDiv":
            return None
        div = factors[0]
        if not isinstance(div.b, self.E.IntImm) or div.b.value <= 0:
            return None
        return div.a, div.b.value, s.const

    @staticmethod
    def _gcd(s: Sum, c: int) -> int:
        g = c
        for coeff, _ in s.terms.values():
            g = math.gcd(g, coeff)
        return math.gcd(g, s.const)

    @staticmethod
    def _divide_exact(s: Sum, g: int) -> Sum:
        return Sum(s.dtype, {k: [c // g, f] for k, (c, f) in s.terms.items()}, s.const // g)

    def exact_divide(self, sa: Sum, sb: Sum):
        """``sa / sb`` when ``sb`` (a constant or one monomial) divides every term exactly."""
        if sb.is_const:
            c = sb.const
            if c == 0 or sa.const % c or any(coeff % c for coeff, _ in sa.terms.values()):
                return None
            return self._divide_exact(sa, c)
        single = sb.single_term()
        if single is None:
            return self._constant_ratio(sa, sb)
        if sa.const != 0 or not sa.terms:
            return None
        _, cb, fb = single
        need = Counter(self.key(f) for f in fb)
        out = Sum(sa.dtype)
        for coeff, factors in sa.terms.values():
            if coeff % cb:
                return None
            have = Counter(self.key(f) for f in factors)
            if any(have[k] < n for k, n in need.items()):
                return None
            left, used = [], Counter()
            for f in factors:
                k = self.key(f)
                if used[k] < need.get(k, 0):
                    used[k] += 1
                else:
                    left.append(f)
            left = tuple(left)
            if left:
                out.add_term(self._factors_key(left), coeff // cb, left)
            else:
                out.const += coeff // cb
        return out

    def _constant_ratio(self, sa: Sum, sb: Sum):
        """``q`` (a constant Sum) when ``sa == q * sb`` for a longer sum ``sb``, else None."""
        if not sb.terms:
            return None
        key, (cb, _) = next(iter(sb.terms.items()))
        entry = sa.terms.get(key)
        if entry is None or entry[0] % cb:
            return None
        q = entry[0] // cb
        rest = sa.plus(sb, -q)
        return self.const_sum(sa.dtype, q) if rest.is_const and rest.const == 0 else None

    # --- min, max, cast, select -------------------------------------------------------------
    def _s_Min(self, e):
        return self._min_max(e, is_min=True)

    def _s_Max(self, e):
        return self._min_max(e, is_min=False)

    def _min_max(self, e, is_min):
        sa, sb = self.to_sum(e.a), self.to_sum(e.b)
        lo, hi = self.sum_bound(self.recombine(sa.plus(sb, -1)))
        if hi <= 0:
            return sa if is_min else sb
        if lo >= 0:
            return sb if is_min else sa
        cls = self.E.Min if is_min else self.E.Max
        return self.atom(cls(self.to_expr(sa), self.to_expr(sb)))

    def _s_Cast(self, e):
        if _is_widening(e.value.dtype, e.dtype):
            # Widening an integer commutes with + and * when nothing overflows (the simplifier's
            # assumption): cast(int64, x + 1) - cast(int64, x) is 1.
            inner = self.to_sum(e.value)
            out = Sum(e.dtype, None, inner.const)
            for coeff, factors in inner.terms.values():
                cast_factors = tuple(self._cast_atom(f, e.dtype) for f in factors)
                out.add_term(self._factors_key(cast_factors), coeff, cast_factors)
            return out
        value = self.simplify(e.value)
        try:
            result = self.G.cast(value, e.dtype)
        except ValueError:  # e.g. a negative constant cast to uint: keep the cast as written
            return self.atom(e if value is e.value else self.E.Cast(e.dtype, value))
        if isinstance(result, self.E.IntImm):
            return self.const_sum(e.dtype, result.value)
        if result is value:
            return self.to_sum(value)
        return self.atom(e if value is e.value else result)

    def _cast_atom(self, atom, dtype):
        if isinstance(atom, self.E.IntImm):
            return self._imm(dtype, atom.value)
        return self.E.Cast(dtype, atom)

    def _s_Let(self, e):
        result = self.simplify_let(e)
        return self.atom(result) if isinstance(result, self.E.Let) else self.to_sum(result)

    def simplify_let(self, e):
        """Inline a Let whose value is a constant or a variable; otherwise simplify its parts."""
        value = self.simplify(e.value)
        if isinstance(value, (self.E.IntImm, self.E.FloatImm, self.E.Var)):
            # A fresh simplifier: memoized results elsewhere do not know this binding.
            inner = Simplifier(self.analyzer, self.expand)
            inner.var_map = dict(self.var_map)
            inner.var_map[e.var] = value
            return inner.simplify(e.body)
        if e.var in self.var_map:
            # The Let shadows an outer binding of the same variable.
            inner = Simplifier(self.analyzer, self.expand)
            inner.var_map = {k: v for k, v in self.var_map.items() if k is not e.var}
            body = inner.simplify(e.body)
        else:
            body = self.simplify(e.body)
        if value is e.value and body is e.body:
            return e
        return self.E.Let(e.var, value, body)

    def _s_Select(self, e):
        cond = self.simplify_bool(e.condition)
        if isinstance(cond, self.E.IntImm):
            return self.to_sum(e.true_value if cond.value else e.false_value)
        st, sf = self.to_sum(e.true_value), self.to_sum(e.false_value)
        diff = self.recombine(st.plus(sf, -1))
        if diff.is_const and diff.const == 0:
            return st
        return self.atom(self.E.Select(cond, self.to_expr(st), self.to_expr(sf)))

    # --- back to expressions ----------------------------------------------------------------
    def _imm(self, dtype, value):
        return self.G._make_const(dtype, value)

    def _mono_expr(self, dtype, factors, coeff):
        expr = factors[0]
        for f in factors[1:]:
            expr = self.E.Mul(expr, f)
        if coeff != 1:
            expr = self.E.Mul(expr, self._imm(dtype, coeff))
        return expr

    def to_expr(self, s: Sum):
        """The canonical expression of a Sum.

        Positive terms come first (in order of first appearance), then a positive constant,
        then the negative terms and a negative constant as subtractions: ``k + 4 - n``. With no
        positive term the expression starts from the constant, or ``0``: ``3 - x - y``,
        ``0 - n - 1``, ``0 - x``; a lone term with another negative coefficient is ``x * -2``.
        """
        s = self.recombine(s)
        dtype, const = s.dtype, s.const
        terms = list(s.terms.values())
        positive = sorted(((c, f) for c, f in terms if c > 0), key=self._term_order)
        negative = sorted(((c, f) for c, f in terms if c < 0), key=self._term_order)
        if not terms:
            return self._imm(dtype, const)
        if not positive and len(negative) == 1 and const == 0 and negative[0][0] != -1:
            return self._mono_expr(dtype, negative[0][1], negative[0][0])
        result = None
        for coeff, factors in positive:
            term = self._mono_expr(dtype, factors, coeff)
            result = term if result is None else self.E.Add(result, term)
        if result is None:
            result = self._imm(dtype, max(0, const))
        elif const > 0:
            result = self.E.Add(result, self._imm(dtype, const))
        for coeff, factors in negative:
            result = self.E.Sub(result, self._mono_expr(dtype, factors, -coeff))
        if const < 0:
            result = self.E.Sub(result, self._imm(dtype, -const))
        return result

    def _term_order(self, term):
        """Sort key of printed terms, as TVM orders them: larger (signed) scale first, then
        divisions by larger constants, then remainders by larger constants; otherwise first
        appearance (the sort is stable)."""
        coeff, factors = term
        lower, upper = 1, math.inf
        if len(factors) == 1 and isinstance(getattr(factors[0], "b", None), self.E.IntImm):
            kind = type(factors[0]).__name__
            if kind == "FloorDiv":
                lower = factors[0].b.value
            elif kind == "FloorMod":
                upper = factors[0].b.value
        return (-coeff, -lower, -upper)

    def recombine(self, s: Sum) -> Sum:
        """Apply ``k*c*(u // c) + k*(u % c) == k*u`` where it shortens the sum."""
        for _ in range(8):
            improved = None
            for coeff, factors in s.terms.values():
                if len(factors) != 1:
                    continue
                atom = factors[0]
                name = type(atom).__name__
                if name not in ("FloorDiv", "FloorMod") or not isinstance(atom.b, self.E.IntImm):
                    continue
                c = atom.b.value
                if c <= 0:
                    continue
                u = self.to_sum(atom.a)
                div = self.atom(self.E.FloorDiv(atom.a, atom.b))
                mod = self.atom(self.E.FloorMod(atom.a, atom.b))
                if name == "FloorDiv":
                    if coeff % c:
                        continue
                    k = coeff // c
                    # k*c*D == k*u - k*M
                    candidate = s.plus(div, -coeff).plus(u, k).plus(mod, -k)
                else:
                    if self._only_key(div) not in s.terms:
                        continue  # keep ``%`` unless the matching ``//`` term cancels
                    k = coeff
                    # k*M == k*u - k*c*D
                    candidate = s.plus(mod, -k).plus(u, k).plus(div, -k * c)
                if len(candidate.terms) < len(s.terms):
                    improved = candidate
                    break
            if improved is None:
                return s
            s = improved
        return s

    @staticmethod
    def _only_key(single: Sum):
        return next(iter(single.terms))

    # --- bounds -----------------------------------------------------------------------------
    def sum_bound(self, s: Sum):
        """Interval of a Sum: the constant plus each term's interval times its coefficient."""
        lo = hi = s.const
        for coeff, factors in s.terms.values():
            tlo, thi = self.bounds.bound(self._mono_expr(s.dtype, factors, 1))
            a, b = _scale(tlo, coeff), _scale(thi, coeff)
            lo += min(a, b)
            hi += max(a, b)
            if math.isinf(lo) and math.isinf(hi):
                break
        return lo, hi

    # --- everything else --------------------------------------------------------------------
    _GENERIC_BINARY: ClassVar[dict] = {
        "Add": "add", "Sub": "subtract", "Mul": "multiply", "Div": "div", "Mod": "truncmod",
        "FloorDiv": "floordiv", "FloorMod": "floormod", "Min": "min", "Max": "max",
        "EQ": "equal", "NE": "not_equal", "LT": "less", "LE": "less_equal",
        "GT": "greater", "GE": "greater_equal",
    }

    def generic(self, e):
        """Simplify the children of a node the normal form does not model, then fold."""
        name = type(e).__name__
        if getattr(e, "_sequal_kind", None) == "var":
            bound = self.var_map.get(e)
            return e if bound is None else bound
        if name == "Let":
            return self.simplify_let(e)
        if name == "Call" and getattr(e.op, "name", None) in ("tirx.if_then_else", "tirx.likely"):
            cond = self.simplify(e.args[0])
            if isinstance(cond, self.E.IntImm):
                if e.op.name == "tirx.likely":
                    return cond
                return self.simplify(e.args[1] if cond.value else e.args[2])
        if name == "Select":
            cond = self.simplify(e.condition)
            if isinstance(cond, self.E.IntImm):
                return self.simplify(e.true_value if cond.value else e.false_value)
        changes = {}
        for fname in _simplified_fields(type(e)):
            value = getattr(e, fname, None)
            new = self._simplify_value(value)
            if new is not value:
                changes[fname] = new
        if name in ("Add", "Sub", "Mul") and dtype_info(e.dtype).lanes > 1:
            vector = self._vector_rule(name, changes.get("a", e.a), changes.get("b", e.b))
            if vector is not None:
                return vector
        if name in self._GENERIC_BINARY:
            a, b = changes.get("a", e.a), changes.get("b", e.b)
            if (isinstance(a, (self.E.IntImm, self.E.FloatImm))
                    and isinstance(b, (self.E.IntImm, self.E.FloatImm))) or changes:
                try:
                    return getattr(self.G, self._GENERIC_BINARY[name])(a, b)
                except (TypeError, ValueError):
                    pass  # e.g. a division by a zero constant: keep the node as written
        if name == "Cast":
            try:
                return self.G.cast(changes.get("value", e.value), e.dtype)
            except ValueError:
                pass  # a negative constant cast to uint: keep the cast as written
        return e.replace(**changes) if changes else e

    def _vector_rule(self, name, a, b):
        """Lane-wise arithmetic on ``Ramp``/``Broadcast`` operands, or None."""
        ka, kb = type(a).__name__, type(b).__name__
        if ka not in ("Ramp", "Broadcast") or kb not in ("Ramp", "Broadcast"):
            return None
        E, G = self.E, self.G
        lanes = a.lanes
        if name == "Mul":
            if ka == kb == "Broadcast":
                return E.Broadcast(self.simplify(G.multiply(a.value, b.value)), lanes)
            if kb == "Broadcast" or ka == "Broadcast":
                ramp, scale = (a, b.value) if ka == "Ramp" else (b, a.value)
                return self._ramp(G.multiply(ramp.base, scale), G.multiply(ramp.stride, scale),
                                  lanes)
            return None
        op = G.add if name == "Add" else G.subtract
        if ka == kb == "Broadcast":
            return E.Broadcast(self.simplify(op(a.value, b.value)), lanes)
        base_a, stride_a = (a.base, a.stride) if ka == "Ramp" else (a.value, None)
        base_b, stride_b = (b.base, b.stride) if kb == "Ramp" else (b.value, None)
        zero = self._imm(base_a.dtype, 0)
        stride = op(stride_a if stride_a is not None else zero,
                    stride_b if stride_b is not None else zero)
        return self._ramp(op(base_a, base_b), stride, lanes)

    def _ramp(self, base, stride, lanes):
        base, stride = self.simplify(base), self.simplify(stride)
        if isinstance(stride, self.E.IntImm) and stride.value == 0:
            return self.E.Broadcast(base, lanes)
        return self.E.Ramp(base, stride, lanes)

    def _simplify_value(self, value):
        if isinstance(value, self.E.PrimExpr):
            return self.simplify(value)
        if isinstance(value, tuple):
            items = tuple(self._simplify_value(v) for v in value)
            return value if all(a is b for a, b in zip(items, value)) else items
        return value


_SAME_TREE_BINARY = frozenset(("Add", "Sub", "Mul", "FloorDiv", "FloorMod", "Min", "Max"))


def _same_tree(a, b, E) -> bool:
    """Whether two integer expressions are the same tree: the same variables (by identity),
    constants and ``+ - * // % min max`` nodes. Anything else counts as different (the caller
    then keeps the new expression, which is never wrong). Iterative along the left operands,
    where sums grow."""
    while a is not b:
        kind = type(a)
        if kind is not type(b) or a.dtype != b.dtype:
            return False
        if kind is E.IntImm:
            return a.value == b.value
        if kind.__name__ not in _SAME_TREE_BINARY or not _same_tree(a.b, b.b, E):
            return False
        a, b = a.a, b.a
    return True


_SIMPLIFIED_FIELDS: dict = {}


def _simplified_fields(cls) -> tuple:
    """Names of the fields :meth:`Simplifier.generic` simplifies (not ignored, not defs)."""
    names = _SIMPLIFIED_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in cls._fields if f.role not in ("ignore", "def"))
        _SIMPLIFIED_FIELDS[cls] = names
    return names


def _is_widening(src, dst) -> bool:
    """An integer cast that keeps every value: int8 -> int32, uint8 -> int16, uint8 -> uint32."""
    a, b = dtype_info(src), dtype_info(dst)
    if a.lanes != 1 or b.lanes != 1 or a.kind not in ("int", "uint"):
        return False
    if b.kind == a.kind:
        return b.bits > a.bits
    return a.kind == "uint" and b.kind == "int" and b.bits > a.bits


def _scale(bound, coeff):
    if bound == 0:
        return 0
    return bound * coeff
