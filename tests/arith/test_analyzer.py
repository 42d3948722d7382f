"""Analyzer proofs, bounds and variable knowledge (bind, update, constraint_scope, int_set)."""

import pytest

import tvm
from tvm import arith, tirx

x, y = tirx.Var("x"), tirx.Var("y")
n, m = tirx.Var("n", "int64"), tirx.Var("m", "int64")
INF = arith.ConstIntBound.POS_INF


def test_can_prove_equal_symbolic_shapes():
    ana = arith.Analyzer()
    assert ana.can_prove_equal(n * 4 // 2, 2 * n)
    assert ana.can_prove_equal(n * m, m * n)
    assert ana.can_prove_equal((n + 1) * (m + 1), n * m + n + m + 1)
    assert ana.can_prove_equal(n * (n + 1) - n * n, n)
    assert ana.can_prove_equal(n // 2 * 2 + n % 2, n)
    assert ana.can_prove_equal(3, tirx.const(3))
    assert not ana.can_prove_equal(n, m)
    assert not ana.can_prove_equal(n * 2, n * 3)
    assert not ana.can_prove_equal(n // 2 * 2, n)


def test_can_prove_equal_of_floats_is_structural():
    ana = arith.Analyzer()
    f = tirx.Var("f", "float32")
    assert ana.can_prove_equal(f + 0.0, f)
    assert not ana.can_prove_equal(f * 2.0, f + f)


def test_can_prove():
    ana = arith.Analyzer()
    assert ana.can_prove(x < x + 1)
    assert ana.can_prove(tirx.EQ(x * 2, 2 * x))
    assert ana.can_prove(x * x >= 0)
    assert ana.can_prove(x % 4 < 4)
    assert ana.can_prove(tirx.all(x < x + 1, x - 1 < x))
    assert ana.can_prove(tirx.any(x < 0, x < x + 1))
    assert not ana.can_prove(x < y)
    assert not ana.can_prove(x > 0)
    assert ana.can_prove(True)
    assert not ana.can_prove(tirx.const(False))
    with pytest.raises(TypeError, match="can_prove expects a bool expression, got dtype int32"):
        ana.can_prove(x + 1)


def test_can_prove_uses_size_vars_and_ranges():
    ana = arith.Analyzer()
    s = tirx.SizeVar("s", "int64")
    assert ana.can_prove(s * 2 + 1 > 0)
    assert not ana.can_prove(n * 2 + 1 > 0)
    ana.bind(n, tvm.ir.Range.from_min_extent(1, 16))
    assert ana.can_prove(n * 2 + 1 > 0)
    assert ana.can_prove(n <= 16)
    assert not ana.can_prove(n < 16)


def test_const_int_bound():
    ana = arith.Analyzer()
    b = ana.const_int_bound(x)
    assert (b.min_value, b.max_value) == (-(2**31), 2**31 - 1)
    b = ana.const_int_bound(n)
    assert (b.min_value, b.max_value) == (-INF, INF)
    assert arith.ConstIntBound.NEG_INF == -INF == -(2**63 - 1)
    assert repr(ana.const_int_bound(tirx.const(3))) == (
        "arith.ConstIntBound(min_value=3, max_value=3)"
    )
    assert (ana.const_int_bound(x % 4).min_value, ana.const_int_bound(x % 4).max_value) == (0, 3)
    b = ana.const_int_bound(x // 4)
    assert (b.min_value, b.max_value) == (-(2**29), 2**29 - 1)
    b = ana.const_int_bound(tirx.Var("u", "uint8"))
    assert (b.min_value, b.max_value) == (0, 255)
    b = ana.const_int_bound(tirx.SizeVar("s", "int64"))
    assert (b.min_value, b.max_value) == (0, INF)
    b = ana.const_int_bound(x < y)
    assert (b.min_value, b.max_value) == (0, 1)


def test_const_int_bound_arithmetic():
    ana = arith.Analyzer()
    ana.bind(x, tvm.ir.Range.from_min_extent(0, 4))
    ana.bind(y, tvm.ir.Range.from_min_extent(-2, 5))

    def bound(e):
        b = ana.const_int_bound(e)
        return b.min_value, b.max_value

    assert bound(x * 2 + 1) == (1, 7)
    assert bound(x - y) == (-2, 5)
    assert bound(x * y) == (-6, 6)
    assert bound(tirx.min(x, y)) == (-2, 2)
    assert bound(tirx.max(x, y)) == (0, 3)
    assert bound(y // 2) == (-1, 1)
    assert bound(y % 3) == (0, 2)
    assert bound(x % 8) == (0, 3)
    assert bound(tirx.truncdiv(y, 2)) == (-1, 1)  # exact: the corners of a sign-known divisor
    assert bound(tirx.truncmod(y, 3)) == (-2, 2)
    assert bound(tirx.Select(x < 1, x, y)) == (-2, 3)
    assert bound(tirx.Cast("int64", x)) == (0, 3)
    assert bound(x >> 1) == (0, 1)
    assert bound(x << 2) == (0, 12)
    assert bound(x & 5) == (0, 3)
    assert bound(tirx.Let(tirx.Var("t"), x, x + 1)) == (1, 4)


def test_update_and_override():
    ana = arith.Analyzer()
    ana.update(x, arith.ConstIntBound(0, 10))
    assert ana.const_int_bound_is_bound(x)
    assert not ana.const_int_bound_is_bound(y)
    assert ana.const_int_bound(x + 1).max_value == 11
    ana.update(x, arith.ConstIntBound(0, 10))  # the same bound again is fine
    with pytest.raises(ValueError, match="Trying to update var 'x' with a different const bound"):
        ana.update(x, arith.ConstIntBound(0, 5))
    ana.update(x, arith.ConstIntBound(0, 5), override=True)
    assert ana.const_int_bound(x).max_value == 5
    with pytest.raises(TypeError, match="update expects a ConstIntBound"):
        ana.update(x, (0, 1))


def test_bind_conflicts():
    ana = arith.Analyzer()
    ana.bind(x, tvm.ir.Range.from_min_extent(0, 4))
    with pytest.raises(ValueError, match="different const bound: original=\\[0, 3\\], new=\\[0, 7\\]"):
        ana.bind(x, tvm.ir.Range.from_min_extent(0, 8))
    ana.bind(x, tvm.ir.Range.from_min_extent(0, 8), allow_override=True)
    ana.bind(y, x + 1)
    with pytest.raises(ValueError, match="Trying to update var 'y' with a different value"):
        ana.bind(y, x + 2)
    assert ana.const_int_bound(y).max_value == 8
    with pytest.raises(TypeError, match="bind expects a tirx.Var"):
        ana.bind(x + 1, 3)


def test_constraint_scope():
    ana = arith.Analyzer()
    with ana.constraint_scope(tirx.all(x < 10, 0 <= x)):
        assert ana.can_prove(x < 11)
        b = ana.const_int_bound(x)
        assert (b.min_value, b.max_value) == (0, 9)
        assert repr(ana.simplify(x // 16)) == "0"
    assert not ana.can_prove(x < 11)
    assert ana.const_int_bound(x).max_value == 2**31 - 1


def test_int_set():
    ana = arith.Analyzer()
    s = ana.int_set(x, {x: tvm.ir.Range.from_min_extent(0, 10)})
    assert isinstance(s, arith.IntervalSet)
    assert (s.min_value.value, s.max_value.value) == (0, 9)
    s = ana.int_set(x * 2 + 1, {x: tvm.ir.Range.from_min_extent(0, 10)})
    assert (s.min_value.value, s.max_value.value) == (1, 19)
    assert not s.is_single_point()
    # A variable outside dom_map stays symbolic: a single point.
    point = ana.int_set(n)
    assert point.min_value is n and point.max_value is n
    # dom_map is only in effect during the call
    assert ana.const_int_bound(x).max_value == 2**31 - 1


def test_int_set_symbolic_ends():
    ana = arith.Analyzer()
    r = tvm.ir.Range.from_min_extent
    assert repr(ana.int_set(x + y, {x: r(0, 10)})) == "IntervalSet[y, y + 9]"
    assert repr(ana.int_set(x * 2 - y, {x: r(0, 10), y: r(1, 3)})) == "IntervalSet[-3, 17]"
    assert repr(ana.int_set(x * -2, {x: r(0, 10)})) == "IntervalSet[-18, 0]"
    assert repr(ana.int_set(x // 4, {x: r(y, 16)})) == "IntervalSet[y // 4, (y + 15) // 4]"
    assert repr(ana.int_set(x % 4, {x: r(0, 16)})) == "IntervalSet[0, 3]"
    assert repr(ana.int_set(tirx.max(x, y), {x: r(0, 16)})) == (
        "IntervalSet[T.max(0, y), T.max(15, y)]"
    )
    assert ana.int_set(x, {}).is_single_point()
    nested = ana.int_set(x + 1, {x: arith.IntervalSet(tirx.const(2), y)})
    assert repr(nested) == "IntervalSet[3, y + 1]"
    assert ana.int_set(n * m, {n: r(tirx.const(0, "int64"), tirx.const(4, "int64"))}).is_everything()
    with pytest.raises(TypeError, match="int_set domain of x must be a Range or IntervalSet"):
        ana.int_set(x, {x: 3})


@pytest.mark.parametrize(
    "expr, coeff, base",
    [
        (x * 4 + 2, 4, 2),
        (tirx.const(7), 0, 7),
        (x, 1, 0),
        (x * 4 + y * 6 + 1, 2, 1),
        ((x * 4) // 2, 2, 0),
        (x * 6 % 4, 2, 0),
        ((x * 8 + 4) * 3, 24, 12),
        (x * x * 4, 4, 0),
        (x * 4 - 1, 4, 3),
    ],
)
def test_modular_set(expr, coeff, base):
    m = arith.Analyzer().modular_set(expr)
    assert (m.coeff, m.base) == (coeff, base)
    assert repr(m) == f"arith.ModularSet(coeff={coeff}, base={base})"


def test_modular_set_rejects_floats():
    with pytest.raises(TypeError, match="modular_set expects an integer expression, got dtype float32"):
        arith.Analyzer().modular_set(tirx.Var("f", "float32"))
