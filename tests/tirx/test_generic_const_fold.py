"""Constant folding in the operator layer: the cases where Apache TVM folds, refuses or raises."""

import numpy as np
import pytest

from tvm import tirx


@pytest.mark.parametrize("build", [tirx.floordiv, tirx.floormod, tirx.truncdiv, tirx.truncmod,
                                   tirx.div])
def test_division_by_constant_zero_is_a_runtime_and_value_error(build):
    with pytest.raises(RuntimeError, match="divide by zero"):
        build(tirx.const(5, "int32"), tirx.const(0, "int32"))
    with pytest.raises(ValueError, match="divide by zero"):
        build(tirx.Var("x", "int32"), tirx.const(0, "int32"))


def test_float_division_by_zero_raises():
    with pytest.raises(RuntimeError, match="divide by zero"):
        tirx.const(1.0, "float32") / tirx.const(0.0, "float32")


def test_modulo_folds_for_index_types_and_unsigned_floormod_only():
    assert tirx.floormod(tirx.const(-7, "int64"), tirx.const(3, "int64")).value == 2
    assert tirx.truncmod(tirx.const(-7, "int32"), tirx.const(3, "int32")).value == -1
    assert tirx.floormod(tirx.const(7, "uint8"), tirx.const(3, "uint8")).value == 1
    for dtype in ("int8", "int16", "uint8", "uint32"):
        folded = tirx.truncmod(tirx.const(7, dtype), tirx.const(3, dtype))
        assert not isinstance(folded, tirx.IntImm)
        assert str(folded) == f"T.truncmod(T.{dtype}(7), T.{dtype}(3))"
    assert not isinstance(tirx.floormod(tirx.const(7, "int8"), tirx.const(3, "int8")),
                          tirx.IntImm)


def test_unsigned_zero_minus_positive_raises_other_differences_wrap():
    with pytest.raises(RuntimeError, match="minuend is 0"):
        tirx.const(0, "uint8") - tirx.const(10, "uint8")
    assert (tirx.const(3, "uint8") - tirx.const(10, "uint8")).value == 249
    assert (tirx.const(0, "uint8") - tirx.const(0, "uint8")).value == 0


def test_float32_folds_round_operands_to_float32():
    rng = np.random.default_rng(1)
    for _ in range(50):
        x, y = rng.uniform(-3e38, 3e38, size=2)
        for op in (np.add, np.subtract, np.multiply):
            with np.errstate(over="ignore"):
                expected = op(np.float32(x), np.float32(y))
            folded = {np.add: lambda a, b: a + b, np.subtract: lambda a, b: a - b,
                      np.multiply: lambda a, b: a * b}[op](tirx.const(x, "float32"),
                                                          tirx.const(y, "float32"))
            assert folded.value == float(expected)


def test_const_without_dtype_widens_out_of_range_floats():
    assert tirx.const(3.5).dtype == "float32"
    assert tirx.const(3.402e39).dtype == "float64"
    assert tirx.const(-3.402e39).value == -3.402e39
    assert tirx.const(float("inf")).dtype == "float32"
    assert tirx.const(-3.38953139e38, "bfloat16").value == -3.38953139e38
    with pytest.raises(ValueError, match="exceeds maximum of bfloat16"):
        tirx.const(3.4e38, "bfloat16")


def test_min_max_reduce_any_number_of_arguments():
    x = tirx.Var("x", "int32")
    assert tirx.max(*range(7)).value == 6
    assert tirx.min(5, 3, 9, 4).value == 3
    assert str(tirx.max(x, 2, x + 1)) == "T.max(T.max(x, 2), x + 1)"


def test_operand_type_errors_are_type_and_runtime_errors():
    i = tirx.Var("i", "int32")
    for build in (lambda: tirx.all(i, tirx.const(1, "bool")),
                  lambda: tirx.if_then_else(i, 1, 2),
                  lambda: tirx.power(i, i)):
        with pytest.raises(TypeError):
            build()
        with pytest.raises(RuntimeError):
            build()


def test_power_promotes_to_the_float_operand():
    i, d = tirx.Var("i", "int32"), tirx.Var("d", "float64")
    call = tirx.power(i, d)
    assert call.dtype == "float64"
    assert [a.dtype for a in call.args] == ["float64", "float64"]


def test_shift_amounts_outside_the_type_width_are_rejected():
    x = tirx.Var("x", "int32")
    for amount in (-1, 32):
        with pytest.raises(RuntimeError, match="outside"):
            x << amount
        with pytest.raises(ValueError, match="outside"):
            x >> amount
    assert str(x << 31) == "x << 31"


def test_bitwise_operators_on_floats_are_type_and_runtime_errors():
    f = tirx.const(1.5, "float32")
    for build in (lambda: f << 2.0, lambda: f | 1.0, lambda: ~f):
        with pytest.raises(TypeError, match="integer operand"):
            build()
        with pytest.raises(RuntimeError):
            build()


def test_isnan_of_16_bit_floats_tests_float32():
    h = tirx.Var("h", "float16")
    assert str(tirx.isnan(h)) == 'T.isnan(T.Cast("float32", h))'
    assert tirx.isnan(tirx.Var("v", "float16x4")).dtype == "boolx4"
    assert str(tirx.isnan(tirx.Var("f", "float32"))) == "T.isnan(f)"
