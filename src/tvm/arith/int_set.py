"""Symbolic integer intervals: :class:`IntervalSet` and the evaluation behind ``int_set``.

``int_set(expr, dom_map)`` bounds ``expr`` when each variable of ``dom_map`` ranges over its
domain; variables outside ``dom_map`` stay symbolic, so the interval's ends are PrimExprs:
``x + y`` with ``x`` in ``[0, 10)`` is ``[y, y + 9]``. Interval arithmetic covers ``+``, ``-``,
multiplication by a constant, ``//`` and ``%`` by a positive constant, ``min``, ``max`` and
``Select``; anything else that depends on a domain variable falls back to constant bounds. An
unbounded end is ``None`` (TVM uses ``pos_inf``/``neg_inf`` markers).

Examples
--------
>>> import tvm
>>> from tvm import tirx, arith
>>> x, y = tirx.Var("x"), tirx.Var("y")
>>> arith.Analyzer().int_set(x * 2 + y, {x: tvm.ir.Range.from_min_extent(0, 8)})
IntervalSet[y, y + 14]
"""

from __future__ import annotations

from ..ffi.node import IGNORE, Node, field, walk
from ..ffi.structural import structural_equal
from ._tirx import tirx
from .bound import NEG_INF, POS_INF

__all__ = ["IntervalSet", "eval_interval"]


class IntervalSet(Node, type_key="arith.IntervalSet"):
    """A closed integer interval ``[min_value, max_value]`` of PrimExprs (``None``: unbounded)."""

    min_value: object
    max_value: object
    span: object = field(None, role=IGNORE, kw_only=True)

    def __repr__(self):
        return f"IntervalSet[{self.min_value!r}, {self.max_value!r}]"

    def is_single_point(self) -> bool:
        """Whether the interval is one value (``min_value`` structurally equals ``max_value``)."""
        return self.min_value is not None and structural_equal(self.min_value, self.max_value)

    def is_everything(self) -> bool:
        """Whether the interval is unbounded on both sides (both ends are ``None``)."""
        return self.min_value is None and self.max_value is None


def eval_interval(expr, dom, analyzer):
    """``(lo, hi)`` PrimExprs (or None) bounding ``expr``; ``dom`` maps Var -> (lo, hi)."""
    return _IntervalEval(dom, analyzer).visit(expr)


class _IntervalEval:
    def __init__(self, dom, analyzer):
        self.dom = dom
        self.analyzer = analyzer
        self.E, self.G = tirx()

    def _depends_on_dom(self, e) -> bool:
        return any(node in self.dom for node in walk(e) if isinstance(node, self.E.Var))

    def visit(self, e):
        if isinstance(e, self.E.Var) and e in self.dom:
            return self.dom[e]
        if not self._depends_on_dom(e):
            return e, e
        rule = getattr(self, "_i_" + type(e).__name__, None)
        if rule is not None:
            result = rule(e)
            if result is not None:
                return result
        return self._const_bound(e)

    def _const_bound(self, e):
        """Constant bounds with every domain variable bounded by its (constant) domain."""
        bounds = self.analyzer._bounds
        saved = dict(bounds.var_bounds)
        try:
            for var, (lo, hi) in self.dom.items():
                lo_b = bounds.bound(lo)[0] if lo is not None else -float("inf")
                hi_b = bounds.bound(hi)[1] if hi is not None else float("inf")
                bounds.var_bounds[var] = (lo_b, hi_b)
            result = bounds.const_int_bound(e)
        finally:
            bounds.var_bounds.clear()
            bounds.var_bounds.update(saved)
        lo = None if result.min_value == NEG_INF else self.E.IntImm(e.dtype, result.min_value)
        hi = None if result.max_value == POS_INF else self.E.IntImm(e.dtype, result.max_value)
        return lo, hi

    def _both(self, fn, x, y):
        return None if x is None or y is None else fn(x, y)

    def _i_Add(self, e):
        (al, ah), (bl, bh) = self.visit(e.a), self.visit(e.b)
        return self._both(self.G.add, al, bl), self._both(self.G.add, ah, bh)

    def _i_Sub(self, e):
        (al, ah), (bl, bh) = self.visit(e.a), self.visit(e.b)
        return self._both(self.G.subtract, al, bh), self._both(self.G.subtract, ah, bl)

    def _i_Mul(self, e):
        for var_side, const_side in ((e.a, e.b), (e.b, e.a)):
            if isinstance(const_side, self.E.IntImm):
                lo, hi = self.visit(var_side)
                c = const_side
                if c.value >= 0:
                    return self._both(self.G.multiply, lo, c), self._both(self.G.multiply, hi, c)
                return self._both(self.G.multiply, hi, c), self._both(self.G.multiply, lo, c)
        return None

    def _i_FloorDiv(self, e):
        if isinstance(e.b, self.E.IntImm) and e.b.value > 0:
            lo, hi = self.visit(e.a)
            return self._both(self.G.floordiv, lo, e.b), self._both(self.G.floordiv, hi, e.b)
        return None

    def _i_FloorMod(self, e):
        if isinstance(e.b, self.E.IntImm) and e.b.value > 0:
            lo, hi = self._const_bound(e)
            return lo, hi
        return None

    def _i_Min(self, e):
        (al, ah), (bl, bh) = self.visit(e.a), self.visit(e.b)
        lo = self._both(self.G.min, al, bl)
        hi = ah if bh is None else bh if ah is None else self.G.min(ah, bh)
        return lo, hi

    def _i_Max(self, e):
        (al, ah), (bl, bh) = self.visit(e.a), self.visit(e.b)
        lo = al if bl is None else bl if al is None else self.G.max(al, bl)
        hi = self._both(self.G.max, ah, bh)
        return lo, hi

    def _i_Select(self, e):
        (tl, th), (fl, fh) = self.visit(e.true_value), self.visit(e.false_value)
        return self._both(self.G.min, tl, fl), self._both(self.G.max, th, fh)
