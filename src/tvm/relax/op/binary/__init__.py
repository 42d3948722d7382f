"""Binary arithmetic ops (``relax.add``, ``relax.multiply``): elementwise with broadcasting.

Each row of ``BINARY_ARITH_OPS`` declares one op; the op library adds more rows
(``subtract``, ``divide``, ...) and their constructors below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...expr import Call
from ..registry import register_relax_op
from .infer import infer_binary_arith

__all__ = ["add", "multiply"]

#: (op name, description) — every op here uses :func:`infer_binary_arith`.
BINARY_ARITH_OPS = (
    ("add", "Elementwise addition with broadcasting."),
    ("multiply", "Elementwise multiplication with broadcasting."),
)

_OPS = {
    name: register_relax_op(name, 2, "binary", infer_binary_arith, description=doc)
    for name, doc in BINARY_ARITH_OPS
}


def add(x1, x2) -> Call:
    """``R.add(x1, x2)``: elementwise ``x1 + x2`` with NumPy broadcasting."""
    return Call(_OPS["add"], [x1, x2])


def multiply(x1, x2) -> Call:
    """``R.multiply(x1, x2)``: elementwise ``x1 * x2`` with NumPy broadcasting."""
    return Call(_OPS["multiply"], [x1, x2])


# --- the op library's rows (arithmetic, comparison, logical and bitwise) -----------------------

from .infer import infer_binary_compare

#: (op name, description) of ops typed like arithmetic (same dtype in and out).
MORE_BINARY_ARITH_OPS = (
    ("subtract", "Elementwise subtraction with broadcasting."),
    ("divide", "Elementwise true division (integer division truncates for ints)."),
    ("floor_divide", "Elementwise division rounded toward minus infinity."),
    ("floor_mod", "Elementwise remainder of floor division (sign of the divisor)."),
    ("mod", "Elementwise remainder of truncated division (sign of the dividend)."),
    ("power", "Elementwise power."),
    ("atan2", "Elementwise arc tangent of ``x1 / x2`` in the quadrant of ``(x2, x1)``."),
    ("log_add_exp", "Elementwise ``log(exp(x1) + exp(x2))``, computed without overflow."),
    ("maximum", "Elementwise maximum."),
    ("minimum", "Elementwise minimum."),
    ("logical_and", "Elementwise logical AND."),
    ("logical_or", "Elementwise logical OR."),
    ("logical_xor", "Elementwise logical XOR."),
    ("bitwise_and", "Elementwise bitwise AND."),
    ("bitwise_or", "Elementwise bitwise OR."),
    ("bitwise_xor", "Elementwise bitwise XOR."),
    ("left_shift", "Elementwise left shift."),
    ("right_shift", "Elementwise right shift."),
)

#: (op name, description) of comparisons (bool out).
BINARY_COMPARE_OPS = (
    ("equal", "Elementwise ``x1 == x2``."),
    ("not_equal", "Elementwise ``x1 != x2``."),
    ("less", "Elementwise ``x1 < x2``."),
    ("less_equal", "Elementwise ``x1 <= x2``."),
    ("greater", "Elementwise ``x1 > x2``."),
    ("greater_equal", "Elementwise ``x1 >= x2``."),
)

for _name, _doc in MORE_BINARY_ARITH_OPS:
    _OPS[_name] = register_relax_op(_name, 2, "binary", infer_binary_arith, description=_doc)
for _name, _doc in BINARY_COMPARE_OPS:
    _OPS[_name] = register_relax_op(_name, 2, "binary", infer_binary_compare, description=_doc)


def _make_binary(name, doc):
    def constructor(x1, x2):
        return Call(_OPS[name], [x1, x2])

    constructor.__name__ = constructor.__qualname__ = name
    constructor.__doc__ = f"``R.{name}(x1, x2)``: {doc}"
    return constructor


for _name, _doc in MORE_BINARY_ARITH_OPS + BINARY_COMPARE_OPS:
    globals()[_name] = _make_binary(_name, _doc)
    __all__.append(_name)

if TYPE_CHECKING:
    # The constructors the loop above makes, as a type checker sees them (it cannot follow
    # ``globals()``); tests/test_typing.py checks these against the table.
    from ...expr import Expr

    __all__ += ["atan2", "bitwise_and", "bitwise_or", "bitwise_xor", "divide", "equal",
                "floor_divide", "floor_mod", "greater", "greater_equal", "left_shift", "less",
                "less_equal", "log_add_exp", "logical_and", "logical_or", "logical_xor", "maximum",
                "minimum", "mod", "not_equal", "power", "right_shift", "subtract"]

    def atan2(x1: Expr, x2: Expr) -> Call: ...
    def bitwise_and(x1: Expr, x2: Expr) -> Call: ...
    def bitwise_or(x1: Expr, x2: Expr) -> Call: ...
    def bitwise_xor(x1: Expr, x2: Expr) -> Call: ...
    def divide(x1: Expr, x2: Expr) -> Call: ...
    def equal(x1: Expr, x2: Expr) -> Call: ...
    def floor_divide(x1: Expr, x2: Expr) -> Call: ...
    def floor_mod(x1: Expr, x2: Expr) -> Call: ...
    def greater(x1: Expr, x2: Expr) -> Call: ...
    def greater_equal(x1: Expr, x2: Expr) -> Call: ...
    def left_shift(x1: Expr, x2: Expr) -> Call: ...
    def less(x1: Expr, x2: Expr) -> Call: ...
    def less_equal(x1: Expr, x2: Expr) -> Call: ...
    def log_add_exp(x1: Expr, x2: Expr) -> Call: ...
    def logical_and(x1: Expr, x2: Expr) -> Call: ...
    def logical_or(x1: Expr, x2: Expr) -> Call: ...
    def logical_xor(x1: Expr, x2: Expr) -> Call: ...
    def maximum(x1: Expr, x2: Expr) -> Call: ...
    def minimum(x1: Expr, x2: Expr) -> Call: ...
    def mod(x1: Expr, x2: Expr) -> Call: ...
    def not_equal(x1: Expr, x2: Expr) -> Call: ...
    def power(x1: Expr, x2: Expr) -> Call: ...
    def right_shift(x1: Expr, x2: Expr) -> Call: ...
    def subtract(x1: Expr, x2: Expr) -> Call: ...

from . import reference  # noqa: F401 - registers FReference after the ops exist
