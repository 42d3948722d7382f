"""Scalar semantics of the PrimFunc interpreter: dtypes, integer wrapping, division, casts and
the NumPy implementations of math intrinsics.

Integers are exact Python ints wrapped to their dtype (two's complement); floats are NumPy
scalars of their dtype, so float32/float16 arithmetic rounds as the hardware would.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["MATH_INTRINSICS", "InterpreterError"]


class InterpreterError(ValueError):
    """The interpreter met a construct it cannot run, or arguments that do not fit."""


GARBAGE_INT = 0x5A5A5A5A


def np_dtype(dtype: str):
    """The NumPy dtype that holds values of the TIR scalar ``dtype`` (bfloat16 and float8 from
    ``ml_dtypes``).

    Raises
    ------
    InterpreterError
        When NumPy has no such dtype.
    """
    if dtype == "bool":
        return np.dtype("bool")
    if dtype == "bfloat16" or dtype.startswith("float8"):
        import ml_dtypes  # bfloat16/float8 only come from ml_dtypes

        return np.dtype(getattr(ml_dtypes, dtype))
    try:
        return np.dtype(dtype)
    except TypeError as e:
        raise InterpreterError(f"the interpreter cannot hold values of dtype {dtype}") from e


def is_float(dtype: str) -> bool:
    """Whether ``dtype`` is a floating-point dtype (``float*`` or ``bfloat*``)."""
    return dtype.startswith(("float", "bfloat"))


def is_int(dtype: str) -> bool:
    """Whether ``dtype`` is a signed or unsigned integer dtype (``int*`` or ``uint*``)."""
    return dtype.startswith(("int", "uint"))


def bits_of(dtype: str) -> int:
    """The bit width written in ``dtype`` (``"int16"`` -> 16); 32 when it has no digits."""
    digits = "".join(ch for ch in dtype if ch.isdigit())
    return int(digits) if digits else 32


def wrap_int(value: int, dtype: str) -> int:
    """Wrap a Python int into the range of an integer dtype (two's complement)."""
    bits = bits_of(dtype)
    mask = (1 << bits) - 1
    value = int(value) & mask
    if dtype.startswith("int") and value >> (bits - 1):
        value -= 1 << bits
    return value


def cast_value(value, dtype: str):
    """Convert a scalar to ``dtype`` as TIR's ``Cast`` does.

    To bool by truth value; to an integer by truncating floats toward zero and wrapping (two's
    complement); to a float through the NumPy scalar type.

    Raises
    ------
    InterpreterError
        When a NaN or infinity is cast to an integer, or ``dtype`` is not bool, int or float.
    """
    if dtype == "bool":
        return bool(value)
    if is_int(dtype):
        if isinstance(value, (float, np.floating)):
            if math.isnan(value) or math.isinf(value):
                raise InterpreterError(f"cannot cast {value} to {dtype}")
            value = math.trunc(float(value))
        return wrap_int(int(value), dtype)
    if is_float(dtype):
        return np_dtype(dtype).type(value)
    raise InterpreterError(f"the interpreter cannot cast to dtype {dtype}")


def truncdiv(a, b):
    """Integer division rounded toward zero (C semantics, TIR's ``Div`` on ints).

    Raises
    ------
    ZeroDivisionError
        When ``b`` is 0.
    """
    if b == 0:
        raise ZeroDivisionError("integer division by zero in the PrimFunc")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def truncmod(a, b):
    """The remainder of :func:`truncdiv` (it has the sign of ``a``)."""
    return a - truncdiv(a, b) * b


def floordiv(a, b):
    """Integer division rounded toward minus infinity (TIR's ``FloorDiv``).

    Raises
    ------
    ZeroDivisionError
        When ``b`` is 0.
    """
    if b == 0:
        raise ZeroDivisionError("integer division by zero in the PrimFunc")
    return a // b


def floormod(a, b):
    """The remainder of :func:`floordiv` (it has the sign of ``b``).

    Raises
    ------
    ZeroDivisionError
        When ``b`` is 0.
    """
    if b == 0:
        raise ZeroDivisionError("integer modulo by zero in the PrimFunc")
    return a % b


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _rsqrt(x):
    return 1 / np.sqrt(x)


def _erf(x):
    return math.erf(float(x))


def _round(x):
    # TVM's round is round-half-to-even (nearbyint), as NumPy's rint.
    return np.rint(x)


#: Math intrinsics by op name suffix: NumPy functions of the call's arguments.
MATH_INTRINSICS = {
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(type(x)(10), x),
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": _rsqrt, "tanh": np.tanh, "sigmoid": _sigmoid, "erf": _erf,
    "pow": np.power, "fabs": np.abs, "abs": np.abs, "floor": np.floor, "ceil": np.ceil,
    "round": _round, "nearbyint": np.rint, "trunc": np.trunc, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "atan2": np.arctan2, "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "isnan": np.isnan, "isinf": np.isinf,
    "isfinite": np.isfinite, "fmod": np.fmod, "copysign": np.copysign, "hypot": np.hypot,
    "nextafter": np.nextafter, "ldexp": np.ldexp, "fma": lambda a, b, c: a * b + c,
}


def int_intrinsic(name):
    """The Python function of the integer intrinsic ``name`` (``shift_left``,
    ``bitwise_and``, ``popcount``, ...), or None when it is not one.
    """
    table = {
        "shift_left": lambda a, b: a << b,
        "shift_right": lambda a, b: a >> b,
        "bitwise_and": lambda a, b: a & b,
        "bitwise_or": lambda a, b: a | b,
        "bitwise_xor": lambda a, b: a ^ b,
        "bitwise_not": lambda a: ~a,
        "popcount": lambda a: (a & ((1 << 64) - 1)).bit_count(),
    }
    return table.get(name)
