"""Analyses of scalar expressions: :func:`expr_deep_equal` and the evaluator :func:`evaluate`.

:func:`evaluate` computes the value of a PrimExpr for given variable values, with TIR's
integer semantics (``//`` and ``%`` floor, ``Div``/``Mod`` truncate). By default integers are
exact (mathematical) integers, the model under which :class:`tvm.arith.Analyzer` simplifies;
``wrap=True`` wraps each integer result into its dtype as hardware does.

Examples
--------
>>> from tvm import tirx
>>> from tvm.tirx.analysis import evaluate
>>> x = tirx.Var("x", "int32")
>>> evaluate((x * 3 + 1) // 2, {x: 5})
8
>>> evaluate(tirx.Select(x < 0, -x, x), {x: -4})
4
"""

from __future__ import annotations

import math

from ...ir.expr import PrimExpr
from ...runtime.data_type import dtype_info
from .. import expr as E
from ..expr import IntImm, Var, int_range

__all__ = ["evaluate", "expr_deep_equal", "lane_expr"]


def expr_deep_equal(lhs, rhs) -> bool:
    """Structural equality where every variable, even a ``Let`` variable, must be identical."""
    stack = [(lhs, rhs)]
    while stack:
        a, b = stack.pop()
        if a is b:
            continue
        if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b))
            continue
        if not hasattr(a, "_fields") or not hasattr(b, "_fields"):
            if a != b or type(a) is not type(b):
                return False
            continue
        if type(a) is not type(b) or isinstance(a, Var):
            return False
        for fobj in a._fields:
            if fobj.role != "ignore":
                stack.append((getattr(a, fobj.name, None), getattr(b, fobj.name, None)))
    return True


def _trunc_div(x, y):
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def _wrap(value, dtype):
    info = dtype_info(dtype)
    if info.kind == "bool":
        return bool(value)
    if info.kind not in ("int", "uint"):
        return value
    bits = info.bits
    value &= (1 << bits) - 1
    if info.kind == "int" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


class _Evaluator:
    def __init__(self, bindings, wrap):
        self.bindings = dict(bindings or {})
        self.wrap = wrap

    def run(self, e):
        rule = getattr(self, "e_" + type(e).__name__, None)
        if rule is None:
            if isinstance(e, Var):
                return self.e_Var(e)
            raise ValueError(f"evaluate: cannot evaluate {type(e).__name__} ({e!r})")
        value = rule(e)
        if self.wrap and isinstance(value, int) and not isinstance(value, bool):
            value = _wrap(value, e.dtype)
        return value

    def _int(self, e):
        return dtype_info(e.dtype).kind in ("int", "uint", "bool")

    def e_IntImm(self, e):
        return bool(e.value) if e.dtype == "bool" else e.value

    def e_FloatImm(self, e):
        return e.value

    def e_StringImm(self, e):
        return e.value

    def e_Var(self, e):
        if e not in self.bindings:
            raise ValueError(f"evaluate: variable {e.name} has no value")
        value = self.bindings[e]
        if isinstance(value, PrimExpr):
            value = self.run(value)
        return value

    e_SizeVar = e_Var

    def e_Add(self, e):
        return self.run(e.a) + self.run(e.b)

    def e_Sub(self, e):
        return self.run(e.a) - self.run(e.b)

    def e_Mul(self, e):
        return self.run(e.a) * self.run(e.b)

    def _divisor(self, e):
        b = self.run(e.b)
        if b == 0 and self._int(e):
            raise ValueError(f"evaluate: division by zero in {e!r}")
        return b

    def e_Div(self, e):
        a, b = self.run(e.a), self._divisor(e)
        return _trunc_div(a, b) if self._int(e) else a / b

    def e_Mod(self, e):
        a, b = self.run(e.a), self._divisor(e)
        return a - _trunc_div(a, b) * b if self._int(e) else math.fmod(a, b)

    def e_FloorDiv(self, e):
        a, b = self.run(e.a), self._divisor(e)
        return a // b if self._int(e) else math.floor(a / b)

    def e_FloorMod(self, e):
        a, b = self.run(e.a), self._divisor(e)
        return a % b

    def e_Min(self, e):
        return min(self.run(e.a), self.run(e.b))

    def e_Max(self, e):
        return max(self.run(e.a), self.run(e.b))

    def e_EQ(self, e):
        return self.run(e.a) == self.run(e.b)

    def e_NE(self, e):
        return self.run(e.a) != self.run(e.b)

    def e_LT(self, e):
        return self.run(e.a) < self.run(e.b)

    def e_LE(self, e):
        return self.run(e.a) <= self.run(e.b)

    def e_GT(self, e):
        return self.run(e.a) > self.run(e.b)

    def e_GE(self, e):
        return self.run(e.a) >= self.run(e.b)

    def e_And(self, e):
        return bool(self.run(e.a)) and bool(self.run(e.b))

    def e_Or(self, e):
        return bool(self.run(e.a)) or bool(self.run(e.b))

    def e_Not(self, e):
        return not self.run(e.a)

    def e_BitwiseAnd(self, e):
        return self.run(e.a) & self.run(e.b)

    def e_BitwiseOr(self, e):
        return self.run(e.a) | self.run(e.b)

    def e_BitwiseXor(self, e):
        return self.run(e.a) ^ self.run(e.b)

    def e_BitwiseNot(self, e):
        a = self.run(e.a)
        return (not a) if isinstance(a, bool) else ~a

    def e_LShift(self, e):
        return self.run(e.a) << self.run(e.b)

    def e_RShift(self, e):
        return self.run(e.a) >> self.run(e.b)

    def e_Select(self, e):
        cond = self.run(e.condition)
        t, f = self.run(e.true_value), self.run(e.false_value)  # Select evaluates both
        return t if cond else f

    def e_Let(self, e):
        saved = self.bindings.get(e.var, _MISSING)
        self.bindings[e.var] = self.run(e.value)
        try:
            return self.run(e.body)
        finally:
            if saved is _MISSING:
                del self.bindings[e.var]
            else:
                self.bindings[e.var] = saved

    def e_Cast(self, e):
        value = self.run(e.value)
        kind = dtype_info(e.dtype).kind
        if kind == "bool":
            return bool(value)
        if kind in ("int", "uint"):
            value = int(value)  # floats truncate toward zero, as C casts do
            lo, hi = int_range(e.dtype)
            return _wrap(value, e.dtype) if self.wrap or not lo <= value <= hi else value
        if kind == "float":
            return float(value)
        raise ValueError(f"evaluate: cannot cast to {e.dtype}")

    def e_Call(self, e):
        name = getattr(e.op, "name", "")
        if name == "tirx.if_then_else":
            return self.run(e.args[1]) if self.run(e.args[0]) else self.run(e.args[2])
        if name == "tirx.likely":
            return self.run(e.args[0])
        fn = _MATH.get(name)
        if fn is None:
            raise ValueError(f"evaluate: cannot evaluate a call to {name or repr(e.op)}")
        return fn(*(self.run(a) for a in e.args))


_MISSING = object()

_MATH = {
    "tirx.exp": math.exp,
    "tirx.log": math.log,
    "tirx.sqrt": math.sqrt,
    "tirx.tanh": math.tanh,
    "tirx.fabs": math.fabs,
    "tirx.floor": math.floor,
    "tirx.ceil": math.ceil,
    "tirx.pow": math.pow,
    "tirx.sin": math.sin,
    "tirx.cos": math.cos,
    "tirx.sigmoid": lambda v: 1.0 / (1.0 + math.exp(-v)),
    "tirx.isnan": math.isnan,
}


def evaluate(expr, bindings=None, wrap: bool = False):
    """The value of ``expr`` given ``{Var: value}`` bindings.

    Integers are exact unless ``wrap=True``; bools come back as ``bool``, floats as ``float``;
    a vector expression (``Ramp``, ``Broadcast`` and arithmetic on them) gives a tuple of lanes.
    Raises ``ValueError`` for an unbound variable, a division by zero or an unsupported call.
    """
    if isinstance(expr, (int, float)):
        return expr
    if isinstance(expr, IntImm) and not bindings:
        return bool(expr.value) if expr.dtype == "bool" else expr.value
    evaluator = _Evaluator(bindings, wrap)
    lanes = dtype_info(expr.dtype).lanes
    if lanes > 1:
        return tuple(evaluator.run(lane_expr(expr, i)) for i in range(lanes))
    return evaluator.run(expr)


def lane_expr(expr, lane: int):
    """The scalar expression computing lane ``lane`` of a vector expression."""
    if dtype_info(expr.dtype).lanes == 1:
        return expr
    if isinstance(expr, E.Ramp):
        offset = IntImm(expr.stride.dtype, lane)
        return E.Add(expr.base, E.Mul(expr.stride, offset))
    if isinstance(expr, E.Broadcast):
        return expr.value
    if isinstance(expr, E.BinaryOpExpr):
        return type(expr)(lane_expr(expr.a, lane), lane_expr(expr.b, lane))
    if isinstance(expr, (E.Not, E.BitwiseNot)):
        return type(expr)(lane_expr(expr.a, lane))
    if isinstance(expr, E.Select):
        return E.Select(*(lane_expr(x, lane) for x in
                          (expr.condition, expr.true_value, expr.false_value)))
    if isinstance(expr, E.Cast):
        return E.Cast(dtype_info(expr.dtype).element, lane_expr(expr.value, lane))
    if isinstance(expr, E.Shuffle):
        flat = [(v, i) for v in expr.vectors for i in range(dtype_info(v.dtype).lanes)]
        vector, index = flat[int(evaluate(expr.indices[lane]))]
        return lane_expr(vector, index)
    raise ValueError(f"evaluate: cannot split {type(expr).__name__} into lanes")
