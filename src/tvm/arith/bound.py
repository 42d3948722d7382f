"""Constant integer bounds of PrimExprs: :class:`ConstIntBound` and interval analysis.

Every integer expression gets an interval ``[min_value, max_value]`` computed bottom-up from
the bounds of its variables (the analyzer's bindings; ``SizeVar`` is non-negative; anything
else spans its dtype). ``ConstIntBound.POS_INF`` / ``NEG_INF`` (``±(2**63 - 1)``) stand for
"unbounded", as in TVM.

Like TVM, the analysis assumes index arithmetic does not overflow: each interval is intersected
with its dtype's range rather than widened to it on wrap-around.

Examples
--------
>>> from tvm import tirx, arith
>>> x = tirx.Var("x", "int32")
>>> arith.Analyzer().const_int_bound(x % 8 * 2 + 1)
arith.ConstIntBound(min_value=1, max_value=15)
"""

from __future__ import annotations

import math

from ..ffi.node import Node
from ..runtime.data_type import dtype_info

__all__ = ["NEG_INF", "POS_INF", "BoundAnalyzer", "ConstIntBound"]

POS_INF = (1 << 63) - 1
NEG_INF = -POS_INF
_INF = math.inf


class ConstIntBound(Node, type_key="arith.ConstIntBound"):
    """An integer interval ``[min_value, max_value]``; ``POS_INF``/``NEG_INF`` mean unbounded."""

    min_value: int
    max_value: int

    POS_INF = POS_INF
    NEG_INF = NEG_INF

    def __init__(self, min_value: int, max_value: int) -> None:
        self.__init_fields__(int(min_value), int(max_value))

    def __repr__(self):
        return f"arith.ConstIntBound(min_value={self.min_value}, max_value={self.max_value})"

    __str__ = __repr__


def to_sentinel(value) -> int:
    """An internal bound (a Python int or ±inf) as a ConstIntBound value."""
    if value >= POS_INF:
        return POS_INF
    if value <= NEG_INF:
        return NEG_INF
    return int(value)


def from_sentinel(value):
    """A ConstIntBound value as an internal bound (the sentinels become ±inf)."""
    if value >= POS_INF:
        return _INF
    if value <= NEG_INF:
        return -_INF
    return int(value)


_RANGE_CACHE: dict = {}


def dtype_interval(dtype: str):
    """The interval a scalar of ``dtype`` can hold (±inf for 64-bit extremes, floats)."""
    rng = _RANGE_CACHE.get(dtype)
    if rng is None:
        info = dtype_info(dtype)
        if info.kind == "bool":
            rng = (0, 1)
        elif info.kind == "int":
            rng = (from_sentinel(-(1 << (info.bits - 1))), from_sentinel((1 << (info.bits - 1)) - 1))
        elif info.kind == "uint":
            rng = (0, from_sentinel((1 << info.bits) - 1))
        else:
            rng = (-_INF, _INF)
        _RANGE_CACHE[dtype] = rng
    return rng


def _mul(x, y):
    # 0 * inf is 0 here: a factor known to be zero zeroes the product.
    if x == 0 or y == 0:
        return 0
    return x * y


def _trunc_div(x, y):
    """``x / y`` rounded toward zero for endpoints (possibly infinite), ``y`` nonzero."""
    if math.isinf(x):
        return _INF if (x > 0) == (y > 0) else -_INF
    if math.isinf(y):
        return 0  # finite / infinite: the limit is 0 from either side
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def _floor_div(x, c):
    """``floor(x / c)`` for an endpoint ``x`` (possibly infinite) and a nonzero ``c``."""
    if math.isinf(x) or math.isinf(c):
        if math.isinf(x) and math.isinf(c):
            return _INF if (x > 0) == (c > 0) else -_INF
        if math.isinf(x):
            return _INF if (x > 0) == (c > 0) else -_INF
        # finite / infinite: the limit is 0 from the side of the sign.
        return 0 if (x >= 0) == (c > 0) else -1
    return x // c


class BoundAnalyzer:
    """Interval analysis over PrimExprs, with per-variable bounds supplied by the Analyzer."""

    def __init__(self):
        #: Var -> (lo, hi) internal bounds.
        self.var_bounds: dict = {}

    def bound(self, expr) -> tuple:
        """The internal interval ``(lo, hi)`` of ``expr`` (ints or ±inf)."""
        return self._visit(expr, {})

    def const_int_bound(self, expr) -> ConstIntBound:
        """The constant integer bounds of ``expr``.

        Parameters
        ----------
        expr : PrimExpr
            An integer expression.

        Returns
        -------
        ConstIntBound
            ``min_value``/``max_value``, with ``POS_INF``/``NEG_INF`` for unbounded ends.
        """
        lo, hi = self.bound(expr)
        return ConstIntBound(to_sentinel(lo), to_sentinel(hi))

    # --- visiting ---------------------------------------------------------------------------
    def _visit(self, e, memo):
        key = id(e)
        cached = memo.get(key)
        if cached is not None:
            return cached
        rule = getattr(self, "_b_" + type(e).__name__, None)
        dtype = getattr(e, "dtype", None)
        if rule is None:
            if getattr(e, "_sequal_kind", None) == "var":
                result = self._b_Var(e, memo)
            else:
                result = dtype_interval(dtype) if isinstance(dtype, str) else (-_INF, _INF)
        else:
            result = rule(e, memo)
        if isinstance(dtype, str):
            lo, hi = dtype_interval(dtype)
            result = (max(result[0], lo), min(result[1], hi))
        memo[key] = result
        return result

    def _b_IntImm(self, e, memo):
        return (e.value, e.value)

    def _b_Var(self, e, memo):
        known = self.var_bounds.get(e)
        if known is not None:
            return known
        if type(e).__name__ == "SizeVar":
            return (0, dtype_interval(e.dtype)[1])
        return dtype_interval(e.dtype)

    _b_SizeVar = _b_Var

    def _b_Add(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        return (a[0] + b[0], a[1] + b[1])

    def _b_Sub(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        return (a[0] - b[1], a[1] - b[0])

    def _b_Mul(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        if e.a is e.b:  # a square is never negative
            products = [_mul(a[0], a[0]), _mul(a[1], a[1])]
            lo = 0 if a[0] <= 0 <= a[1] else min(products)
            return (lo, max(products))
        products = [_mul(x, y) for x in a for y in b]
        return (min(products), max(products))

    def _b_FloorDiv(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        return self._div_bound(a, b, e.dtype)

    def _div_bound(self, a, b, dtype):
        if b[0] > 0 or b[1] < 0:
            # The divisor's sign is known: the extremes are at the corners.
            values = [_floor_div(x, y) for x in a for y in b]
            return (min(values), max(values))
        return dtype_interval(dtype)

    def _b_FloorMod(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        if b[0] > 0:
            hi = b[1] - 1
            if a[0] >= 0:
                if a[1] <= b[0] - 1:
                    return a
                return (0, min(a[1], hi))
            return (0, hi)
        if b[1] < 0:
            return (b[0] + 1, 0)
        return dtype_interval(e.dtype)

    def _b_Div(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        if a[0] >= 0 and b[0] > 0:
            return self._div_bound(a, b, e.dtype)
        if b[0] > 0 or b[1] < 0:
            # With the divisor's sign known, truncated division is monotone in each operand
            # (for a fixed sign of the other), so its extremes are at the corners too.
            values = [_trunc_div(x, y) for x in a for y in b]
            return (min(values), max(values))
        return dtype_interval(e.dtype)

    def _b_Mod(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        if b[0] > 0:
            m = b[1] - 1
            if a[0] >= 0:
                return (0, min(a[1], m))
            if a[1] <= 0:
                return (max(a[0], -m), 0)
            return (max(a[0], -m), min(a[1], m))
        return dtype_interval(e.dtype)

    def _b_Min(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        return (min(a[0], b[0]), min(a[1], b[1]))

    def _b_Max(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        return (max(a[0], b[0]), max(a[1], b[1]))

    def _b_Select(self, e, memo):
        t, f = self._visit(e.true_value, memo), self._visit(e.false_value, memo)
        return (min(t[0], f[0]), max(t[1], f[1]))

    def _b_Cast(self, e, memo):
        if dtype_info(e.value.dtype).kind in ("int", "uint", "bool"):
            return self._visit(e.value, memo)
        return dtype_interval(e.dtype)

    def _b_Let(self, e, memo):
        self._visit(e.value, memo)
        saved = self.var_bounds.get(e.var)
        self.var_bounds[e.var] = self._visit(e.value, memo)
        try:
            return self._visit(e.body, {})
        finally:
            if saved is None:
                self.var_bounds.pop(e.var, None)
            else:
                self.var_bounds[e.var] = saved

    def _b_BitwiseAnd(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        nonneg = [x for x in (a, b) if x[0] >= 0]
        if nonneg:
            return (0, min(x[1] for x in nonneg))
        return dtype_interval(e.dtype)

    def _b_RShift(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        if b[0] >= 0 and b[0] == b[1] and not math.isinf(b[0]):
            shift = 1 << int(b[0])
            return (_floor_div(a[0], shift), _floor_div(a[1], shift))
        if a[0] >= 0:
            return (0, a[1])
        return dtype_interval(e.dtype)

    def _b_LShift(self, e, memo):
        a, b = self._visit(e.a, memo), self._visit(e.b, memo)
        if b[0] >= 0 and b[0] == b[1] and not math.isinf(b[0]) and b[0] < 64:
            shift = 1 << int(b[0])
            return (_mul(a[0], shift), _mul(a[1], shift))
        return dtype_interval(e.dtype)

    def _bool(self, e, memo):
        return (0, 1)

    _b_EQ = _b_NE = _b_LT = _b_LE = _b_GT = _b_GE = _b_And = _b_Or = _b_Not = _bool
