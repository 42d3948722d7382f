"""tirx.analysis for expressions: the evaluator and expr_deep_equal."""

import pytest

from tvm import tirx
from tvm.tirx.analysis import evaluate, expr_deep_equal


def test_integer_semantics():
    x, y = tirx.Var("x"), tirx.Var("y")
    env = {x: -7, y: 2}
    assert evaluate(x // y, env) == -4
    assert evaluate(x % y, env) == 1
    assert evaluate(tirx.truncdiv(x, y), env) == -3
    assert evaluate(tirx.truncmod(x, y), env) == -1
    assert evaluate(tirx.min(x, y) + tirx.max(x, y), env) == -5
    assert evaluate(tirx.Select(x < y, x, y), env) == -7
    assert evaluate(tirx.all(x < y, y > 0), env) is True
    assert evaluate(tirx.Not(x < y), env) is False
    assert evaluate(tirx.if_then_else(x < 0, 1, 2), env) == 1
    assert evaluate((x & 3) | (y << 1), env) == ((-7 & 3) | 4)


def test_exact_or_wrapping_integers():
    x = tirx.Var("x")
    big = x * 65536 * 65536
    assert evaluate(big, {x: 1}) == 2**32
    assert evaluate(big, {x: 1}, wrap=True) == 0
    assert evaluate(tirx.Cast("int8", x), {x: 300}) == 44


def test_let_and_cast_and_floats():
    x = tirx.Var("x")
    f = tirx.Var("f", "float32")
    assert evaluate(tirx.Let(x, 3, x * x), {}) == 9
    assert evaluate(tirx.Cast("int32", f), {f: -2.7}) == -2
    assert evaluate(tirx.exp(f) + 1.0, {f: 0.0}) == 2.0
    assert evaluate(tirx.const(5)) == 5


def test_errors():
    x = tirx.Var("x")
    with pytest.raises(ValueError, match="variable x has no value"):
        evaluate(x + 1, {})
    with pytest.raises(ValueError, match="division by zero"):
        y = tirx.Var("y")
        evaluate(x // y, {x: 1, y: 0})
    with pytest.raises(ValueError, match="cannot evaluate a call to tirx.call_extern"):
        evaluate(tirx.call_extern("int32", "f", x), {x: 1})


def test_expr_deep_equal():
    x, y = tirx.Var("x"), tirx.Var("y")
    assert expr_deep_equal(x * 2 + 1, x * 2 + 1)
    assert not expr_deep_equal(x * 2 + 1, y * 2 + 1)
    assert not expr_deep_equal(x + 1, x - 1)
    assert not expr_deep_equal(tirx.const(1), tirx.const(1, "int64"))
    # Unlike structural_equal, Let variables are not mapped.
    assert not expr_deep_equal(tirx.Let(x, 1, x), tirx.Let(y, 1, y))
    assert expr_deep_equal(tirx.Let(x, 1, x), tirx.Let(x, 1, x))


def test_vector_lanes():
    x = tirx.Var("x")
    ramp = tirx.Ramp(x, 2, 4)
    assert evaluate(ramp * 3 + 1, {x: 1}) == (4, 10, 16, 22)
    assert evaluate(tirx.Ramp(x, 1, 4) < 6, {x: 4}) == (True, True, False, False)
    assert evaluate(tirx.Shuffle([ramp], [3, 0]), {x: 10}) == (16, 10)
    assert evaluate(tirx.Select(ramp < 3, ramp, tirx.Broadcast(x, 4)), {x: 0}) == (0, 2, 0, 0)


def test_undefined_vars_of_expressions():
    from tvm.tirx.analysis import undefined_vars

    x, y = tirx.Var("x"), tirx.Var("y")
    assert undefined_vars(tirx.Let(x, 1, x + y)) == [y]
    assert undefined_vars(x * 2 + y + x) == [x, y]
    assert undefined_vars(x + y, defs=[x]) == [y]
