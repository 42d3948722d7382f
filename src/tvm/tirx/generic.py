"""The rules behind PrimExpr operators: conversion, dtype promotion and constant folding.

These functions are what ``x + 1``, ``x // 2``, ``tirx.min(a, b)`` etc. call. They follow
``tvm.tirx`` (Apache TVM 0.27):

* Python numbers become constants: ``int`` is ``int32`` (``int64`` when it does not fit),
  ``float`` is ``float32``, ``bool`` is ``bool``.
* Operand dtypes are matched before building a node: float beats int (the int side is cast to
  the float's dtype), more bits beat fewer, a bool is cast to the other side's dtype, and
  int vs uint of equal width becomes uint. A scalar meets a vector by ``Broadcast``.
* Constants fold (``IntImm + IntImm`` -> ``IntImm``, integer arithmetic wraps to the dtype),
  and the identities ``x + 0``, ``x - 0``, ``x * 1``, ``x * 0``, ``x // 1``, ``x % 1``,
  ``min(x, x)`` simplify. Anything deeper is :class:`tvm.arith.Analyzer`'s job.
* ``/`` on integers raises ``TypeError``: say ``floordiv``/``truncdiv`` explicitly.

Examples
--------
>>> from tvm import tirx
>>> x = tirx.Var("x", "int32")
>>> x + tirx.Var("y", "int64")
T.Cast("int64", x) + y
>>> x * 1 + 0
x
>>> tirx.const(7) // 2
3
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

from ..runtime.data_type import dtype_info, normalize_dtype, with_lanes
from .expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    BitwiseAnd,
    BitwiseNot,
    BitwiseOr,
    BitwiseXor,
    Broadcast,
    Call,
    Cast,
    Div,
    EqualOp,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    LShift,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    NotEqualOp,
    Or,
    PrimExpr,
    RShift,
    Sub,
    int_range,
)

if TYPE_CHECKING:
    from ..ir.base import Span

__all__ = [
    "add",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cast",
    "const",
    "convert",
    "convert_pair",
    "div",
    "equal",
    "equal_op",
    "floordiv",
    "floormod",
    "greater",
    "greater_equal",
    "left_shift",
    "less",
    "less_equal",
    "logical_and",
    "logical_not",
    "logical_or",
    "match_types",
    "max",
    "min",
    "multiply",
    "negate",
    "not_equal",
    "not_equal_op",
    "right_shift",
    "subtract",
    "true_divide",
    "truncdiv",
    "truncmod",
]

# --- conversion ------------------------------------------------------------------------------


def _is_scalar(value) -> bool:
    return isinstance(value, (numbers.Number, bool)) and not isinstance(value, complex)


def _default_int(value: int, span=None) -> IntImm:
    if -(1 << 31) <= value < (1 << 31):
        return IntImm("int32", value, span=span)
    if -(1 << 63) <= value < (1 << 63):
        return IntImm("int64", value, span=span)
    if 0 <= value < (1 << 64):
        return IntImm("uint64", value, span=span)
    raise ValueError(f"integer constant {value} does not fit in 64 bits")


def convert(value: Any, dtype: str | None = None, span: Span | None = None) -> PrimExpr:
    """Convert ``value`` to a PrimExpr; Python numbers use ``dtype`` as a hint when it fits.

    Raises ``TypeError`` for values that have no PrimExpr form (``None``, lists, ...).
    """
    if isinstance(value, PrimExpr):
        return value
    tp = type(value)
    if tp is bool or tp.__name__ == "bool_":
        value = bool(value)
        if dtype is not None and dtype_info(dtype).kind in ("int", "uint", "bool"):
            return IntImm(dtype, int(value), span=span)
        return IntImm("bool", int(value), span=span)
    if tp is int or isinstance(value, numbers.Integral):
        value = int(value)
        if dtype is not None:
            kind = dtype_info(dtype).kind
            if kind in ("int", "uint", "bool"):
                lo, hi = int_range(dtype)
                if lo <= value <= hi:
                    return IntImm(dtype, value, span=span)
            elif kind == "float":
                return FloatImm(dtype, value, span=span)
        return _default_int(value, span)
    if tp is float or isinstance(value, numbers.Real):
        if dtype is not None and dtype_info(dtype).kind == "float":
            return FloatImm(dtype, float(value), span=span)
        return FloatImm("float32", float(value), span=span)
    if isinstance(value, (EqualOp, NotEqualOp)):
        return value.asobject()
    raise TypeError(f"cannot convert {type(value).__name__} {value!r} to a PrimExpr")


_FLOAT32_MAX = 3.4028234663852886e38


def convert_pair(a, b):
    """Convert two operands, giving a Python number the dtype of the other side."""
    if isinstance(a, PrimExpr):
        return a, convert(b, a.dtype)
    if isinstance(b, PrimExpr):
        return convert(a, b.dtype), b
    return convert(a), convert(b)


def const(value: Any, dtype: str | None = None, span: Span | None = None) -> PrimExpr:
    """A constant PrimExpr: ``const(1)`` is int32, ``const(1.0)`` float32, ``const(True)`` bool.

    NumPy scalars keep their dtype (``const(np.int64(3))`` is ``T.int64(3)``).
    """
    if dtype is None:
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            dtype = "bool"
        elif type(value).__module__ == "numpy" and hasattr(value, "dtype"):
            dtype = normalize_dtype(value.dtype)
        elif isinstance(value, numbers.Integral):
            return _default_int(int(value), span)
        elif isinstance(value, numbers.Real):
            # float32 unless the (finite) value is out of its range, as in TVM.
            magnitude = abs(float(value))
            too_big = magnitude > _FLOAT32_MAX and magnitude != float("inf")
            dtype = "float64" if too_big else "float32"
        else:
            raise TypeError(
                f"Cannot automatically inference the type. value={value!r}; pass a dtype"
            )
    dtype = normalize_dtype(dtype)
    kind = dtype_info(dtype).kind
    if kind in ("int", "uint", "bool"):
        fractional = isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)
        if fractional and float(value) != int(value):
            raise ValueError(f"const {value!r} is not an integer, but dtype is {dtype}")
        return IntImm(dtype, int(value), span=span)
    if kind == "float":
        return FloatImm(dtype, float(value), span=span)
    raise TypeError(f"const supports int, uint, bool and float dtypes, got {dtype}")


# --- constant helpers ------------------------------------------------------------------------


def _wrap_int(value: int, dtype: str) -> int:
    """Wrap ``value`` into ``dtype``'s range (two's complement), as integer hardware does."""
    info = dtype_info(dtype)
    if info.kind == "bool":
        return 1 if value else 0
    bits = info.bits
    value &= (1 << bits) - 1
    if info.kind == "int" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _round_float(value: float, dtype: str) -> float:
    """Round a folded float to ``dtype``'s precision (float32 folds give float32 results)."""
    bits = dtype_info(dtype).bits
    if bits >= 64 or math.isnan(value) or math.isinf(value):
        return value
    import numpy as np  # lazy: only constant folding of narrow floats needs it

    if dtype_info(dtype).element in ("float32", "float16"):
        with np.errstate(over="ignore"):
            return float(np.array(value, dtype=dtype_info(dtype).element))
    return value


def _make_const(dtype: str, value, span=None):
    info = dtype_info(dtype)
    if info.kind == "float":
        return FloatImm(dtype, _round_float(float(value), dtype), span=span)
    return IntImm(dtype, _wrap_int(int(value), dtype), span=span)


def _num(e):
    """The value of a constant operand at its dtype's precision (a float32 literal such as
    0.1 is folded as the float32 nearest to it, as compiled code computes)."""
    if isinstance(e, FloatImm):
        return _round_float(e.value, e.dtype)
    return e.value


def _is_const(e, value=None) -> bool:
    if not isinstance(e, (IntImm, FloatImm)):
        return False
    return value is None or e.value == value


# --- casting and dtype matching ----------------------------------------------------------------


def cast(value, dtype, span=None):
    """Cast ``value`` to ``dtype``; constants fold and a same-dtype cast returns ``value``."""
    value = convert(value)
    dtype = normalize_dtype(dtype)
    if value.dtype == dtype:
        return value
    info = dtype_info(dtype)
    src_lanes = dtype_info(value.dtype).lanes
    if (isinstance(value, (IntImm, FloatImm)) and info.kind == "uint" and value.value < 0):
        raise ValueError(f"cannot make uint from negative value {value.value}")
    if isinstance(value, IntImm) and info.lanes == 1:
        if info.kind == "float":
            return FloatImm(dtype, float(value.value), span=span)
        if info.kind in ("int", "uint", "bool"):
            return IntImm(dtype, _wrap_int(value.value, dtype), span=span)
    if isinstance(value, FloatImm) and info.lanes == 1:
        if info.kind == "float":
            return FloatImm(dtype, _round_float(value.value, dtype), span=span)
        if info.kind == "bool":
            return IntImm(dtype, int(value.value != 0), span=span)
        if info.kind in ("int", "uint") and math.isfinite(value.value):
            return IntImm(dtype, _wrap_int(int(value.value), dtype), span=span)
    if src_lanes == 1 and info.lanes > 1:
        # Scalar to vector: cast the scalar, then broadcast it.
        return Broadcast(cast(value, info.element, span), info.lanes, span=span)
    if isinstance(value, Broadcast) and info.lanes == src_lanes:
        return Broadcast(cast(value.value, info.element, span), info.lanes, span=span)
    return Cast(dtype, value, span=span)


def match_types(a, b, op_name="binary op"):
    """Convert and promote two operands to one dtype (see the module docstring)."""
    a = convert(a)
    b = convert(b)
    if a.dtype == b.dtype:
        return a, b
    ia, ib = dtype_info(a.dtype), dtype_info(b.dtype)
    if ia.lanes != ib.lanes:
        if ia.lanes == 1:
            a = Broadcast(a, ib.lanes)
            ia = dtype_info(a.dtype)
        elif ib.lanes == 1:
            b = Broadcast(b, ia.lanes)
            ib = dtype_info(b.dtype)
        else:
            raise TypeError(f"{op_name}: operand lanes differ: {a.dtype} vs. {b.dtype}")
        if a.dtype == b.dtype:
            return a, b
    ka, kb = ia.kind, ib.kind
    if ka not in ("int", "uint", "float", "bool") or kb not in ("int", "uint", "float", "bool"):
        raise TypeError(f"{op_name}: cannot combine operands of dtype {a.dtype} and {b.dtype}")
    if ka == kb == "float" and ia.bits == ib.bits and ia.element != ib.element:
        # float16 vs bfloat16 (or two float8 formats): the IEEE-style "float<bits>" wins.
        target = a.dtype if ia.element.startswith("float") else b.dtype
    elif ka == kb:
        target = a.dtype if ia.bits >= ib.bits else b.dtype
    elif ka == "float" or kb == "float":
        target = a.dtype if ka == "float" else b.dtype
    elif ka == "bool" or kb == "bool":
        target = b.dtype if ka == "bool" else a.dtype
    elif ia.bits != ib.bits:
        target = a.dtype if ia.bits > ib.bits else b.dtype
    else:
        target = a.dtype if ka == "uint" else b.dtype
    return cast(a, target), cast(b, target)


def _operands(a, b, symbol):
    try:
        return match_types(a, b, symbol)
    except TypeError as err:
        if _convertible(a) and _convertible(b):
            raise
        raise TypeError(
            f"unsupported operand type(s) for {symbol}: '{type(a).__name__}' and "
            f"'{type(b).__name__}'"
        ) from err


def _convertible(value) -> bool:
    return isinstance(value, (PrimExpr, EqualOp, NotEqualOp)) or _is_scalar(value)


def _require_int(a, name):
    if dtype_info(a.dtype).kind not in ("int", "uint"):
        raise TypeError(f"{name} requires integer operands, got {a.dtype}")


def _division_operands(a, b, symbol, name):
    """Operands of an integer division; bools are rejected before promotion, as in TVM."""
    for v in (a, b):
        if isinstance(v, bool) or (isinstance(v, PrimExpr) and dtype_info(v.dtype).kind == "bool"):
            raise TypeError(f"{name} requires integer operands, got bool")
    a, b = _operands(a, b, symbol)
    _require_int(a, name)
    _check_nonzero_divisor(b, name)
    return a, b


class OperandTypeError(TypeError, RuntimeError):
    """An operand of a type the operator does not take (an int where a bool is needed...).

    A ``TypeError`` that is also a ``RuntimeError``, the kind Apache TVM's error for these
    checks derives from, so code written for either catches it.
    """


class ConstFoldError(ValueError, RuntimeError):
    """An undefined result found while building or folding: division or modulo by the
    constant zero, an unsigned subtraction below zero, a shift by a constant amount outside
    ``[0, bits)``.

    A ``ValueError`` (an invalid argument) that is also a ``RuntimeError``, the kind Apache
    TVM's error here derives from, so code written for either catches it.
    """


def _check_nonzero_divisor(b, name):
    if _is_const(b, 0):
        raise ConstFoldError(f"{name}: divide by zero")


def _index_dtypes(a, b) -> bool:
    """Both operands int32 or int64 scalars: the types TVM folds ``%`` for."""
    return a.dtype in ("int32", "int64") and b.dtype in ("int32", "int64")


# --- arithmetic ------------------------------------------------------------------------------


def add(a, b, span=None):
    """``a + b`` with promotion and folding."""
    a, b = _operands(a, b, "+")
    if _is_const(a) and _is_const(b):
        return _make_const(a.dtype, _num(a) + _num(b), span)
    if _is_const(a, 0):
        return b
    if _is_const(b, 0):
        return a
    return Add(a, b, span=span)


def subtract(a, b, span=None):
    """``a - b`` with promotion and folding."""
    a, b = _operands(a, b, "-")
    if _is_const(a) and _is_const(b):
        if dtype_info(a.dtype).kind == "uint" and a.value == 0 and b.value > 0:
            # TVM's check (other negative unsigned results wrap around, as in C)
            raise ConstFoldError(
                f"subtract: the unsigned {a.dtype} minuend is 0 and the subtrahend {b.value}: "
                "the result would be a negative unsigned value"
            )
        return _make_const(a.dtype, _num(a) - _num(b), span)
    if _is_const(b, 0):
        return a
    return Sub(a, b, span=span)


def multiply(a, b, span=None):
    """``a * b`` with promotion and folding (``x * 0`` is ``0``)."""
    a, b = _operands(a, b, "*")
    if _is_const(a) and _is_const(b):
        return _make_const(a.dtype, _num(a) * _num(b), span)
    if _is_const(a, 1):
        return b
    if _is_const(b, 1):
        return a
    if _is_const(a, 0):
        return a
    if _is_const(b, 0):
        return b
    return Mul(a, b, span=span)


def true_divide(a, b, span=None):
    """``a / b``: float division; on integers a ``TypeError`` asking for an explicit kind."""
    a, b = _operands(a, b, "/")
    if dtype_info(a.dtype).kind != "float":
        raise TypeError(
            "TVM supports multiple types of integer divisions, please call div, "
            "indexdiv/indexmod, floordiv/floormod  or truncdiv/truncmod directly to avoid "
            "ambiguity in the code."
        )
    return div(a, b, span)


def div(a, b, span=None):
    """``Div``: float division, or truncated division for integers (``tvm.tirx.div``)."""
    a, b = _operands(a, b, "/")
    if dtype_info(a.dtype).kind != "float":
        return truncdiv(a, b, span)
    if _is_const(b, 0):
        raise ConstFoldError("div: divide by zero")
    if _is_const(a) and _is_const(b):
        return _make_const(a.dtype, _num(a) / _num(b), span)
    if _is_const(b, 1):
        return a
    return Div(a, b, span=span)


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def truncdiv(a, b, span=None):
    """Integer division rounding toward zero (C semantics); builds ``Div``."""
    a, b = _division_operands(a, b, "truncdiv", "truncdiv")
    if _is_const(a) and _is_const(b):
        return _make_const(a.dtype, _trunc_div(a.value, b.value), span)
    if _is_const(b, 1) or _is_const(a, 0):
        return a
    return Div(a, b, span=span)


def truncmod(a, b, span=None):
    """Remainder of :func:`truncdiv` (sign of ``a``); builds ``Mod``."""
    a, b = _division_operands(a, b, "truncmod", "truncmod")
    if _is_const(a) and _is_const(b) and _index_dtypes(a, b):
        return _make_const(a.dtype, a.value - _trunc_div(a.value, b.value) * b.value, span)
    if _is_const(b, 1):
        return _make_const(a.dtype, 0, span)
    if _is_const(a, 0):
        return a
    return Mod(a, b, span=span)


def floordiv(a, b, span=None):
    """Integer division rounding toward minus infinity (``a // b``)."""
    a, b = _division_operands(a, b, "//", "floordiv")
    if _is_const(a) and _is_const(b):
        return _make_const(a.dtype, a.value // b.value, span)
    if _is_const(b, 1) or _is_const(a, 0):
        return a
    return FloorDiv(a, b, span=span)


def floormod(a, b, span=None):
    """Remainder of :func:`floordiv`, with the sign of ``b`` (``a % b``)."""
    a, b = _division_operands(a, b, "%", "floormod")
    unsigned = dtype_info(a.dtype).kind == "uint"  # no overflow: folded as TVM does
    if _is_const(a) and _is_const(b) and (unsigned or _index_dtypes(a, b)):
        return _make_const(a.dtype, a.value % b.value, span)
    if _is_const(b, 1):
        return _make_const(a.dtype, 0, span)
    if _is_const(a, 0):
        return a
    return FloorMod(a, b, span=span)


def min(a, b, *more, span=None):
    """``min(a, b, ...)`` with promotion and folding; more than two arguments are reduced left
    to right (``tvm.tirx.min(*values)``, as TVM's reducer does for a list of expressions)."""
    if more:
        result = min(a, b, span=span)
        for value in more:
            result = min(result, value, span=span)
        return result
    a, b = _operands(a, b, "min")
    if _is_const(a) and _is_const(b):
        return a if a.value <= b.value else b
    if a is b:
        return a
    return Min(a, b, span=span)


def max(a, b, *more, span=None):
    """``max(a, b, ...)`` with promotion and folding; more than two arguments are reduced left
    to right (``tvm.tirx.max(*values)``, as TVM's reducer does for a list of expressions)."""
    if more:
        result = max(a, b, span=span)
        for value in more:
            result = max(result, value, span=span)
        return result
    a, b = _operands(a, b, "max")
    if _is_const(a) and _is_const(b):
        return a if a.value >= b.value else b
    if a is b:
        return a
    return Max(a, b, span=span)


def negate(a, span=None):
    """``-a``: folds constants, otherwise ``a * -1`` as TVM builds it."""
    a = convert(a)
    if isinstance(a, IntImm):
        return _make_const(a.dtype, -a.value, span)
    if isinstance(a, FloatImm):
        return FloatImm(a.dtype, -a.value, span=span)
    info = dtype_info(a.dtype)
    if info.kind in ("uint", "bool"):
        raise TypeError(f"cannot negate an expression of unsigned dtype {a.dtype}")
    minus_one = convert(-1, info.element)
    if info.lanes != 1:
        minus_one = Broadcast(minus_one, info.lanes)
    return Mul(a, minus_one, span=span)


# --- comparison ------------------------------------------------------------------------------


def _compare(cls, symbol, fold):
    def build(a, b, span=None):
        a, b = _operands(a, b, symbol)
        if _is_const(a) and _is_const(b):
            return IntImm("bool", int(fold(a.value, b.value)), span=span)
        return cls(a, b, span=span)

    build.__name__ = cls.__name__.lower()
    build.__doc__ = f"``a {symbol} b`` as a ``{cls.__name__}`` (constants fold to a bool)."
    return build


less = _compare(LT, "<", lambda x, y: x < y)
less_equal = _compare(LE, "<=", lambda x, y: x <= y)
greater = _compare(GT, ">", lambda x, y: x > y)
greater_equal = _compare(GE, ">=", lambda x, y: x >= y)
_equal = _compare(EQ, "==", lambda x, y: x == y)


def equal(a, b, span=None):
    """``a == b`` as an ``EQ`` (constants fold to a bool; so do two ``T.vscale()`` calls, the
    same unknown value, as in TVM)."""
    result = _equal(a, b, span)
    if isinstance(result, EQ) and _is_vscale_call(result.a) and _is_vscale_call(result.b):
        return IntImm("bool", 1, span=span)
    return result


def _is_vscale_call(e) -> bool:
    return isinstance(e, Call) and getattr(e.op, "name", None) == "tirx.vscale"
not_equal = _compare(NE, "!=", lambda x, y: x != y)


def equal_op(a, b):
    """What ``a == b`` returns: a folded bool constant, or an :class:`EqualOp`."""
    if _convertible(b) and _is_const(a) and (_is_const(b) or _is_scalar(b)):
        return equal(a, b)
    return EqualOp(a, b)


def not_equal_op(a, b):
    """What ``a != b`` returns: a folded bool constant, or a :class:`NotEqualOp`."""
    if _convertible(b) and _is_const(a) and (_is_const(b) or _is_scalar(b)):
        return not_equal(a, b)
    return NotEqualOp(a, b)


# --- logic and bits --------------------------------------------------------------------------


def _as_bool(value, name):
    value = convert(value)
    if dtype_info(value.dtype).kind != "bool":
        raise OperandTypeError(f"{name} requires bool operands, got {value.dtype}")
    return value


def logical_and(a, b, span=None):
    """``a and b`` on bools; ``True and x`` is ``x``, ``False and x`` is ``False``."""
    a, b = _as_bool(a, "logical_and"), _as_bool(b, "logical_and")
    for x, y in ((a, b), (b, a)):
        if _is_const(x):
            return y if x.value else x
    return And(a, b, span=span)


def logical_or(a, b, span=None):
    """``a or b`` on bools; ``True or x`` is ``True``, ``False or x`` is ``x``."""
    a, b = _as_bool(a, "logical_or"), _as_bool(b, "logical_or")
    for x, y in ((a, b), (b, a)):
        if _is_const(x):
            return x if x.value else y
    return Or(a, b, span=span)


def logical_not(a, span=None):
    """``not a`` on a bool (constants fold)."""
    a = _as_bool(a, "logical_not")
    if _is_const(a):
        return IntImm(a.dtype, int(not a.value), span=span)
    if isinstance(a, Not):
        return a.a
    return Not(a, span=span)


def _bitwise(cls, symbol, fold):
    def build(a, b, span=None):
        # A Python int takes the other operand's dtype (and must fit it), as in TVM.
        if isinstance(a, PrimExpr) and _is_python_int(b):
            b = _int_like(b, a.dtype)
        elif isinstance(b, PrimExpr) and _is_python_int(a):
            a = _int_like(a, b.dtype)
        a, b = _operands(a, b, symbol)
        if dtype_info(a.dtype).kind not in ("int", "uint", "bool"):
            raise OperandTypeError(f"operator {symbol} requires integer operands, got {a.dtype}")
        if cls in (LShift, RShift) and isinstance(b, IntImm):
            bits = dtype_info(a.dtype).bits
            if not 0 <= b.value < bits:
                raise ConstFoldError(
                    f"operator {symbol}: shift amount {b.value} is outside [0, {bits}) for "
                    f"{a.dtype} (the result is undefined)"
                )
        if _is_const(a) and _is_const(b):
            return _make_const(a.dtype, fold(a.value, b.value), span)
        return cls(a, b, span=span)

    build.__doc__ = f"``a {symbol} b`` on integers (constants fold)."
    return build


bitwise_and = _bitwise(BitwiseAnd, "&", lambda x, y: x & y)
bitwise_or = _bitwise(BitwiseOr, "|", lambda x, y: x | y)
bitwise_xor = _bitwise(BitwiseXor, "^", lambda x, y: x ^ y)
left_shift = _bitwise(LShift, "<<", lambda x, y: x << y)
right_shift = _bitwise(RShift, ">>", lambda x, y: x >> y)


def _is_python_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _int_like(value, dtype):
    """The int ``value`` as a constant of integer dtype ``dtype`` (errors if it cannot be)."""
    info = dtype_info(dtype)
    if info.kind not in ("int", "uint") or info.lanes != 1:
        return value
    value = int(value)
    if info.kind == "uint" and value < 0:
        raise ValueError(f"cannot make uint from negative value {value}")
    return IntImm(dtype, value)


def bitwise_not(a, span=None):
    """``~a`` on an integer (constants fold)."""
    a = convert(a)
    if dtype_info(a.dtype).kind not in ("int", "uint", "bool"):
        raise OperandTypeError(f"operator ~ requires an integer operand, got {a.dtype}")
    if isinstance(a, IntImm) and dtype_info(a.dtype).kind != "bool":
        return _make_const(a.dtype, ~a.value, span)
    return BitwiseNot(a, span=span)


def _lanes_of(dtype):
    return dtype_info(dtype).lanes


def bool_dtype_like(dtype):
    """``bool`` with the lanes of ``dtype``."""
    return with_lanes("bool", _lanes_of(dtype))

