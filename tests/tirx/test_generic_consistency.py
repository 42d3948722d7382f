"""Regression tests: dtypes of TIR arithmetic with Python literals, as in Apache TVM 0.27.

An int literal takes the other operand's dtype; a float literal is ``float32`` and a
narrower float (or any int) operand is cast up to it. The expected texts are TVM 0.27's.
"""

import pytest

from tvm import tirx


@pytest.mark.parametrize(
    "dtype, lit, op, out_dtype, text",
    [
        ("float16", 1, "+", "float16", "x + T.float16(1.0)"),
        ("float16", 1.0, "+", "float32", 'T.Cast("float32", x) + T.float32(1.0)'),
        ("float16", 2.5, "*", "float32", 'T.Cast("float32", x) * T.float32(2.5)'),
        ("float16", 1.0, "-r", "float32", 'T.float32(1.0) - T.Cast("float32", x)'),
        ("float16", 2.5, "<", "bool", 'T.Cast("float32", x) < T.float32(2.5)'),
        ("bfloat16", 1, "-r", "bfloat16", "T.bfloat16(1.0) - x"),
        ("bfloat16", 2.5, "+", "float32", 'T.Cast("float32", x) + T.float32(2.5)'),
        ("int8", 1, "+", "int32", 'T.Cast("int32", x) + 1'),
        ("int8", 1, "-r", "int32", '1 - T.Cast("int32", x)'),
        ("float32", 1, "*", "float32", "x"),
        ("float16", 1, "*", "float16", "x"),
    ],
)
def test_literal_operand_dtype(dtype, lit, op, out_dtype, text):
    x = tirx.Var("x", dtype)
    if op == "+":
        expr = x + lit
    elif op == "*":
        expr = x * lit
    elif op == "-r":
        expr = lit - x
    else:
        expr = x < lit
    assert expr.dtype == out_dtype
    assert str(expr) == text
