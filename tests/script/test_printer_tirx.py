"""PrimExpr printing; expected strings are Apache TVM 0.27's ``str()`` of the same expression."""

import pytest

from tvm import tirx
from tvm.script.printer import script

n = tirx.Var("n", "int64")
i = tirx.Var("i", "int32")


@pytest.mark.parametrize(
    "make, text",
    [
        (lambda: n * 2, "n * T.int64(2)"),
        (lambda: n + 1 - 3, "n + T.int64(1) - T.int64(3)"),
        (lambda: (n + 1) * 3, "(n + T.int64(1)) * T.int64(3)"),
        (lambda: tirx.floordiv(n, 2), "n // T.int64(2)"),
        (lambda: tirx.floormod(n, 2), "n % T.int64(2)"),
        (lambda: tirx.max(n, 1), "T.max(n, T.int64(1))"),
        (lambda: tirx.Min(i, tirx.IntImm("int32", 2)), "T.min(i, 2)"),
        (lambda: tirx.Cast("float32", i), 'T.Cast("float32", i)'),
        (lambda: tirx.FloatImm("float32", 1.5), "T.float32(1.5)"),
        (lambda: tirx.FloatImm("float64", 0.1), "T.float64(0.10000000000000001)"),
        (lambda: tirx.FloatImm("float32", float("inf")), 'T.float32("inf")'),
        (lambda: tirx.IntImm("int64", 3), "T.int64(3)"),
        (lambda: tirx.IntImm("int32", 3), "3"),
        (lambda: tirx.IntImm("bool", 1), "T.bool(True)"),
        (lambda: i < 3, "i < 3"),
        (lambda: tirx.And(i < 3, i > 1), "i < 3 and i > 1"),
        (lambda: tirx.Not(i < 3), "not i < 3"),
        (lambda: tirx.Select(i < 3, i, tirx.IntImm("int32", 1)), "T.Select(i < 3, i, 1)"),
        (lambda: tirx.Mul(i, tirx.IntImm("int32", -1)), "i * -1"),
        (lambda: i * (i - 1), "i * (i - 1)"),
        (lambda: i - (i - 1), "i - (i - 1)"),
        (lambda: tirx.Mul(tirx.FloorDiv(i, tirx.IntImm("int32", 2)), tirx.IntImm("int32", 2)),
         "i // 2 * 2"),
        (lambda: tirx.Div(i, tirx.IntImm("int32", 2)), "T.Div(i, 2)"),
    ],
)
def test_prim_expr_text(make, text):
    expr = make()
    assert script(expr) == text
    assert str(expr) == text


def test_int_dtype_option():
    assert script(tirx.IntImm("int64", 3), int_dtype="int64") == "3"
    assert script(tirx.IntImm("int32", 3), int_dtype="int64") == "T.int32(3)"


def test_float_dtype_option():
    assert script(tirx.FloatImm("float32", 1.0), float_dtype="float32") == "1.0"


def test_intrinsic_calls():
    call = tirx.Call("float32", "tirx.exp", [tirx.Cast("float32", i)])
    assert script(call) == 'T.exp(T.Cast("float32", i))'
