"""Analyzer.simplify: canonical forms (expected texts are TVM 0.27's where they agree)."""

import pytest

import tvm
from tvm import arith, tirx
from tvm.ffi import structural_equal

x, y, z = tirx.Var("x"), tirx.Var("y"), tirx.Var("z")
n, m = tirx.Var("n", "int64"), tirx.Var("m", "int64")


@pytest.mark.parametrize(
    "expr, text",
    [
        (n * 4 // 2, "n * T.int64(2)"),
        ((n * 4) % 2, "T.int64(0)"),
        ((x + 1) - x, "1"),
        (tirx.min(x, x), "x"),
        (x * 2 + x, "x * 3"),
        (y + x, "y + x"),
        (x + y - x, "y"),
        (x * 2 - 2 * x, "0"),
        ((x + 3) // 2 * 2, "(x + 3) // 2 * 2"),
        (x * 3 + y * 2 + x, "x * 4 + y * 2"),
        (2 * (x + y), "x * 2 + y * 2"),
        ((x + y) * (x - y), "(x + y) * (x - y)"),
        (x * y + y * x, "x * y * 2"),
        ((x * 6 + 4) // 2, "x * 3 + 2"),
        ((x * 6 + 3) // 2, "x * 3 + 1"),
        ((x * 6 + 3) % 2, "1"),
        ((x * 4 + y * 3) // 4, "y * 3 // 4 + x"),
        ((x * 4 + y + 5) // 4, "(y + 5) // 4 + x"),
        ((x + 5) % 4, "(x + 1) % 4"),
        ((x * 5) % 4, "x % 4"),
        ((x * 5) // 4, "x * 5 // 4"),
        ((x * 4 + y + 5) % 4, "(y + 1) % 4"),
        (n * m * 2 // m, "n * T.int64(2)"),
        (1 + x + 2, "x + 3"),
        (x - 5 + x, "x * 2 - 5"),
        (z + y + x, "z + y + x"),
        (tirx.max(x, x + 1), "x + 1"),
        (tirx.min(x + 1, x), "x"),
        (tirx.max(x + 1, x + 2), "x + 2"),
        ((x // 4) * 4 + x % 4, "x"),
        (x % 4 + (x // 4) * 4, "x"),
        (x // 2 * 2 + x % 2, "x"),
        (x - x // 2 * 2, "x % 2"),
        (x // 2 + x // 2, "x // 2 * 2"),
        ((x * 4 + 2) % 4, "2"),
        ((x * 4 + 5) // 4, "x + 1"),
        (n * 2 - n, "n"),
        ((n + 1) * 2 - 2, "n * T.int64(2)"),
        (n * (n + 1), "n * (n + T.int64(1))"),
        (x * (y + 1) * 2, "x * (y + 1) * 2"),
        (x - y, "x - y"),
        (3 - x, "3 - x"),
        (3 - x - y, "3 - x - y"),
        (-x - y, "0 - x - y"),
        (-x, "0 - x"),  # TVM leaves the literal x * -1 as written
        (x * -2, "x * -2"),
        (y - x - y, "0 - x"),
        (x * -2 + y, "y - x * 2"),
        ((x + y) * 2 - x, "y * 2 + x"),
        (tirx.min(x, y), "T.min(x, y)"),
        (tirx.min(x, y) - tirx.min(x, y), "0"),
        (tirx.Select(x < 1, x, x), "x"),
        (tirx.Select(x < y, x, y), "T.Select(x < y, x, y)"),
        ((x * 8) // 4, "x * 2"),
        ((x * 3) // 6, "x // 2"),
        ((x * 3) % 6, "x % 2 * 3"),
        ((x // 2) % 2, "x % 4 // 2"),
        (x * 2 - x * 7 - y, "0 - y - x * 5"),
        (x % 2 + y % 8, "y % 8 + x % 2"),
        (tirx.truncdiv(x * 4, 2), "x * 2"),
        (tirx.truncmod(x * 4 + 1, 2), "T.truncmod(x * 4 + 1, 2)"),
        ((x * -4) // 2, "x * -2"),
        (tirx.Cast("int64", x) + tirx.Cast("int64", x), 'T.Cast("int64", x) * T.int64(2)'),
        (tirx.Cast("int64", tirx.const(3)), "T.int64(3)"),
        (tirx.Mul(x, 0) + y, "y"),
        (x * y * 2, "x * y * 2"),
        (2 * y * x, "y * x * 2"),
        ((n * 4 + m * 4) // 2, "n * T.int64(2) + m * T.int64(2)"),
        ((m + 4) // 2, "m // T.int64(2) + T.int64(2)"),
        (x // 2 // 3, "x // 6"),
        ((x // 2 + 1) // 3, "(x + 2) // 6"),
        ((m - n) % 4, "(m - n) % T.int64(4)"),
        ((m - 5) % 2, "(m + T.int64(1)) % T.int64(2)"),
        (3 - (n + 4), "T.int64(0) - n - T.int64(1)"),
        (x * x - (y - 4), "x * x + 4 - y"),
        (x + (y % 8 - y), "x + y % 8 - y"),
    ],
)
def test_integer_canonical_form(expr, text):
    # Term order follows TVM: larger signed scale first, then larger // and % constants.
    assert repr(arith.Analyzer().simplify(expr)) == text


@pytest.mark.parametrize(
    "expr, text",
    [
        (x < x + 1, "T.bool(True)"),
        (x + 1 > x, "T.bool(True)"),
        (x <= x, "T.bool(True)"),  # noqa: PLR0124
        ((x - 1) < x, "T.bool(True)"),
        (tirx.EQ(x, x), "T.bool(True)"),
        (tirx.EQ(x * 2, 2 * x), "T.bool(True)"),
        (tirx.EQ(n * 4 // 2, 2 * n), "T.bool(True)"),
        (tirx.EQ(2 * x, 1), "T.bool(False)"),
        (tirx.NE(2 * x, 1), "T.bool(True)"),
        (tirx.Not(x < y), "y <= x"),
        (tirx.Not(x <= y), "y < x"),
        (tirx.Not(tirx.EQ(x, y)), "x != y"),
        (tirx.all(x < y, x < y), "x < y"),
        (tirx.all(x < 5, x < 3), "x < 5 and x < 3"),
        (x + 1 < y, "x + 1 < y"),
        (tirx.EQ(x, y), "x == y"),
        (tirx.any(x < x + 1, y < 0), "T.bool(True)"),
    ],
)
def test_boolean_simplification(expr, text):
    assert repr(arith.Analyzer().simplify(expr)) == text


def test_float_expressions_fold_constants_only():
    f = tirx.Var("f", "float32")
    ana = arith.Analyzer()
    assert repr(ana.simplify(f * 2.0 + tirx.const(1.0) * 3.0)) == (
        "f * T.float32(2.0) + T.float32(3.0)"
    )
    assert repr(ana.simplify(f + 0.0)) == "f"
    # No reasoning that NaN would break.
    assert repr(ana.simplify(tirx.EQ(f, f))) == "f == f"


def test_bounds_make_division_vanish():
    ana = arith.Analyzer()
    i = tirx.Var("i")
    ana.bind(i, tvm.ir.Range.from_min_extent(0, 4))
    assert ana.simplify(i % 4) is i
    assert repr(ana.simplify(i // 4)) == "0"
    assert repr(ana.simplify((i + 4 * y) % 4)) == "i"
    assert repr(ana.simplify((i + 4 * y) // 4)) == "y"
    assert repr(ana.simplify(tirx.min(i, 10))) == "i"
    assert repr(ana.simplify(i < 4)) == "T.bool(True)"


def test_size_var_is_non_negative():
    ana = arith.Analyzer()
    s = tirx.SizeVar("s", "int64")
    assert repr(ana.simplify(tirx.max(s, 0))) == "s"
    assert repr(ana.simplify(s >= 0)) == "T.bool(True)"
    assert repr(ana.simplify(tirx.truncdiv(s * 2 + 1, 2))) == "s"


def test_bound_expression_is_substituted():
    ana = arith.Analyzer()
    ana.bind(y, x + 1)
    assert repr(ana.simplify(y - x)) == "1"
    assert repr(ana.simplify(y * 2)) == "x * 2 + 2"


def test_simplify_keeps_unchanged_expression_identity():
    ana = arith.Analyzer()
    expr = x * 2 + y
    assert ana.simplify(expr) is expr or structural_equal(ana.simplify(expr), expr)
    assert ana.simplify(x) is x


def test_simplify_is_idempotent():
    ana = arith.Analyzer()
    for expr in [(x * 4 + y + 5) // 4, x * y + y * x - 3, (x + 3) // 2 * 2 + x % 7]:
        once = ana.simplify(expr)
        assert structural_equal(ana.simplify(once), once)


def test_other_nodes_have_simplified_children():
    f = tirx.Var("f", "float32")
    ana = arith.Analyzer()
    out = ana.simplify(tirx.exp(tirx.Cast("float32", x + 1 - 1)) + f)
    assert repr(out) == 'T.exp(T.Cast("float32", x)) + f'
    ramp = tirx.Ramp(x + 0 * y, 1, 4)
    assert repr(ana.simplify(ramp)) == "T.Ramp(x, 1, 4)"


def test_python_numbers_are_accepted():
    assert repr(arith.Analyzer().simplify(3)) == "3"


def test_rewrite_and_canonical_simplify_are_available():
    ana = arith.Analyzer()
    assert repr(ana.rewrite_simplify(x + 1 - 1)) == "x"
    assert repr(ana.canonical_simplify(x * 2 + x)) == "x * 3"


def test_let_inlining():
    ana = arith.Analyzer()
    t = tirx.Var("t")
    assert repr(ana.simplify(tirx.Let(t, 1, t + y))) == "y + 1"
    assert repr(ana.simplify(tirx.Let(t, x, t * 2 - x))) == "x"
    # A computed value stays bound, the body is simplified.
    assert repr(ana.simplify(tirx.Let(t, y * 2, t + t))) == "T.Let(t * 2, where={t: y * 2})"
    # A float Let is inlined too.
    f = tirx.Var("f", "float32")
    assert repr(ana.simplify(tirx.Let(f, tirx.const(1.5), f + tirx.Var("g", "float32")))) == (
        "T.float32(1.5) + g"
    )


def test_let_shadowing():
    ana = arith.Analyzer()
    t = tirx.Var("t")
    inner = tirx.Let(t, y * 2, t + 1)
    assert repr(ana.simplify(tirx.Let(t, 5, inner + t))) == "T.Let(t + 1, where={t: y * 2}) + 5"


def test_intrinsic_calls_with_decided_conditions():
    ana = arith.Analyzer()
    assert ana.simplify(tirx.if_then_else(x < x + 1, x, y)) is x
    assert repr(ana.simplify(tirx.likely(x < x + 1))) == "T.bool(True)"
    assert repr(ana.simplify(tirx.if_then_else(x < 3, x, y) + 1)) == (
        "T.if_then_else(x < 3, x, y) + 1"
    )


def test_widening_casts_distribute():
    ana = arith.Analyzer()
    cx = tirx.Cast("int64", x)
    assert repr(ana.simplify(tirx.Cast("int64", x + 1) - cx)) == "T.int64(1)"
    assert repr(ana.simplify(cx * 2 - cx)) == 'T.Cast("int64", x)'
    # Narrowing casts can lose information and stay opaque.
    assert repr(ana.simplify(tirx.Cast("int32", n) - tirx.Cast("int32", n))) == "0"
    assert repr(ana.simplify(tirx.Cast("int64", tirx.Cast("int32", n)))) == (
        'T.Cast("int64", T.Cast("int32", n))'
    )


def test_conjunctions_and_disjunctions_of_one_difference():
    ana = arith.Analyzer()
    assert repr(ana.simplify(tirx.all(x < y, y < x))) == "T.bool(False)"
    assert repr(ana.simplify(tirx.any(x < y, y <= x))) == "T.bool(True)"
    assert repr(ana.simplify(tirx.all(x < y, x > y + 3))) == "T.bool(False)"
    assert repr(ana.simplify(tirx.any(tirx.NE(x, y), tirx.EQ(x - y, 0)))) == "T.bool(True)"
    assert repr(ana.simplify(tirx.all(x <= y, y <= x))) == "x <= y and y <= x"


@pytest.mark.parametrize(
    "expr, text",
    [
        (x >= y + 1, "y < x"),
        (x > y, "y < x"),
        (x > y + 1, "y + 1 < x"),
        (x >= y - 1, "y <= x + 1"),
        (x * 2 + 1 > y * 3 - 2, "y * 3 < x * 2 + 3"),
        (tirx.EQ(n - n, m), "m == T.int64(0)"),
        (tirx.NE(3, x), "x != 3"),
        (tirx.EQ(m, (n % 8) % 2), "m == n % T.int64(2)"),
    ],
)
def test_comparison_spelling_follows_tvm(expr, text):
    assert repr(arith.Analyzer().simplify(expr)) == text


def test_division_by_a_sum_that_divides_exactly():
    ana = arith.Analyzer()
    assert repr(ana.simplify((n * 2 + m * 2) // (n + m))) == "T.int64(2)"
    assert repr(ana.simplify((n * 2 + m * 2) % (n + m))) == "T.int64(0)"
    assert repr(ana.simplify((n + m + 1) // (n + m))) == "(n + m + T.int64(1)) // (n + m)"
    e = n * (n + m) // (n * (n + m))
    assert repr(ana.simplify(e)) == "T.int64(1)"
    assert ana.can_prove_equal(e, 1)


@pytest.mark.parametrize(
    "build, text",
    [
        (lambda R, B: R(x, 1, 4) + B(y, 4) - B(y, 4), "T.Ramp(x, 1, 4)"),
        (lambda R, B: R(x, 1, 4) * B(tirx.const(2), 4), "T.Ramp(x * 2, 2, 4)"),
        (lambda R, B: R(x, 1, 4) + R(y, 2, 4), "T.Ramp(x + y, 3, 4)"),
        (lambda R, B: B(x, 4) - R(x, 1, 4), "T.Ramp(0, -1, 4)"),
        (lambda R, B: R(x, 1, 4) - R(x, 1, 4), "T.Broadcast(0, 4)"),
        (lambda R, B: (R(x * 2, 1, 4) + 2) * 3, "T.Ramp(x * 6 + 6, 3, 4)"),
        (lambda R, B: B(x + 1, 4) * B(tirx.const(2), 4), "T.Broadcast(x * 2 + 2, 4)"),
    ],
)
def test_vector_lanes_simplify(build, text):
    assert repr(arith.Analyzer().simplify(build(tirx.Ramp, tirx.Broadcast))) == text


def test_comparison_pinned_by_bounds_becomes_equality():
    # TVM's RewriteSimplifier: x in [0, 3] makes ``x >= 3`` the single point ``x == 3``,
    # ``x <= 0`` the point ``x == 0``, and ``x != 3`` the strict ``x < 3``.
    x = tirx.Var("x", "int32")
    ana = arith.Analyzer()
    ana.bind(x, tvm.ir.Range(0, 4))
    assert str(ana.simplify(x >= 3)) == "x == 3"
    assert str(ana.simplify(x <= 0)) == "x == 0"
    assert str(ana.simplify(x != 3)) == "x < 3"
    assert str(ana.simplify(x != 0)) == "0 < x"
    assert str(ana.simplify(x > 2)) == "2 < x"  # strict forms are left as they are
    assert str(ana.simplify(x < 3)) == "x < 3"


def test_division_splits_off_a_bounded_low_part():
    # Values checked against TVM 0.27's Analyzer.simplify, i in [0, 16), j and v in [0, 2).
    i, j, v = (tirx.Var(n, "int32") for n in "ijv")
    ana = arith.Analyzer()
    for var, extent in ((i, 16), (j, 2), (v, 2)):
        ana.bind(var, tvm.ir.Range(0, extent))
    m = i * 4 + j * 2 + v
    assert str(ana.simplify(m // 32)) == "i // 8"
    assert str(ana.simplify(m // 2)) == "i * 2 + j"
    assert str(ana.simplify((i * 2 + j) % 16)) == "i % 8 * 2 + j"
    assert str(ana.simplify(m % 32 // 2)) == "i % 8 * 2 + j"
    assert str(ana.simplify(m % 32 // 4)) == "i % 8"
    # A longer sum's modulo stays as written (0.27 too).
    assert str(ana.simplify(m % 32 * 2)) == "(i * 4 + j * 2 + v) % 32 * 2"
    assert str(ana.simplify(m % 32 // 2 * 4 + m // 32 * 2 + v)) == \
        "i % 8 * 8 + j * 4 + i // 8 * 2 + v"
