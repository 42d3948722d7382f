"""The simplifier's exact fast paths give what the full canonical path gives.

``Simplifier.simplify`` returns an integer constant and an unbound variable as they are (the
very object), and ``_mono_key`` builds a one-factor key without a Counter; each is checked
against the general path on boundary cases.
"""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tvm import tirx
from tvm.arith import Analyzer
from tvm.arith.canonical import Simplifier, _mono_key
from tvm.ffi.structural import structural_equal
from tvm.ir import Range

_BOUNDARIES = [
    ("int8", -128), ("int8", 127), ("int8", 0), ("uint8", 0), ("uint8", 255),
    ("int16", -32768), ("int32", -(2**31)), ("int32", 2**31 - 1), ("int32", -1),
    ("int64", -(2**63)), ("int64", 2**63 - 1), ("uint32", 2**32 - 1), ("uint64", 2**64 - 1),
]


def _slow(analyzer, expr):
    """The general path: the sum-of-products form and back."""
    simp = Simplifier(analyzer)
    return simp.to_expr(simp.to_sum(expr))


@pytest.mark.parametrize(("dtype", "value"), _BOUNDARIES)
def test_integer_constant_is_returned_as_is(dtype, value):
    imm = tirx.IntImm(dtype, value)
    fast = Simplifier(Analyzer()).simplify(imm)
    assert fast is imm
    assert structural_equal(fast, _slow(Analyzer(), imm))


@given(st.sampled_from(["int8", "int32", "int64", "uint16"]), st.integers(-(2**70), 2**70))
def test_any_in_range_constant_matches_the_slow_path(dtype, value):
    lo, hi = {"int8": (-128, 127), "int32": (-(2**31), 2**31 - 1),
              "int64": (-(2**63), 2**63 - 1), "uint16": (0, 65535)}[dtype]
    imm = tirx.IntImm(dtype, min(max(value, lo), hi))
    assert structural_equal(Simplifier(Analyzer()).simplify(imm), _slow(Analyzer(), imm))


@pytest.mark.parametrize(
    "make", [lambda: tirx.Var("x", "int64"), lambda: tirx.SizeVar("n", "int32")]
)
def test_unbound_variable_is_returned_as_is(make):
    var = make()
    ana = Analyzer()
    ana.bind(var, Range.from_min_extent(0, 8))  # a range bound is no value binding
    assert Simplifier(ana).simplify(var) is var
    assert _slow(ana, var) is var


def test_bound_variable_still_takes_its_value():
    x, y = tirx.Var("x", "int32"), tirx.Var("y", "int32")
    ana = Analyzer()
    ana.bind(x, y * 2 + 1)
    result = Simplifier(ana).simplify(x)
    assert structural_equal(result, y * 2 + 1)
    assert structural_equal(result, _slow(ana, x))


def test_unchanged_vector_expression_keeps_its_objects():
    # Constants no longer come back as new objects, so an already simple Ramp is kept whole.
    i = tirx.Var("i", "int64")
    ramp = tirx.Ramp(i * tirx.IntImm("int64", 4), tirx.IntImm("int64", 1), 4)
    simp = Simplifier(Analyzer())
    assert simp.simplify(ramp.stride) is ramp.stride
    out = Analyzer().simplify(tirx.Ramp(tirx.IntImm("int64", 3), tirx.IntImm("int64", 1), 4))
    assert isinstance(out, tirx.Ramp) and out.base.value == 3 and out.stride.value == 1


@given(st.lists(st.sampled_from(["a", "b", ("var", 1), ("IntImm", "int32", 2)]),
                min_size=1, max_size=4))
def test_mono_key_matches_the_counter_form(keys):
    assert _mono_key(tuple(keys)) == frozenset(Counter(keys).items())


def _keep_same(expr, analyzer=None):
    return Simplifier(analyzer or Analyzer(), keep_same=True).simplify(expr)


def test_keep_same_returns_an_already_canonical_expression_itself():
    i, j = tirx.Var("i", "int64"), tirx.Var("j", "int64")
    c = tirx.IntImm
    for expr in (i * c("int64", 64) + j, i * c("int64", 64) + j * c("int64", 4) + c("int64", 3),
                 tirx.floordiv(i, c("int64", 8)) * c("int64", 2) - j):
        default = Simplifier(Analyzer()).simplify(expr)
        assert structural_equal(default, expr)  # the general path gives the same tree...
        assert default is not expr  # ...as a new object
        assert _keep_same(expr) is expr


def test_keep_same_still_simplifies_what_changes():
    i, j = tirx.Var("i", "int64"), tirx.Var("j", "int64")
    c = tirx.IntImm
    for expr in (tirx.Mul(c("int64", 2), c("int64", 10)), j + i * c("int64", 64),
                 i * c("int64", 256) + (j * c("int64", 16) + c("int64", 5)), i - i + j):
        out = _keep_same(expr)
        assert out is not expr
        assert structural_equal(out, Simplifier(Analyzer()).simplify(expr))
    ana = Analyzer()
    ana.bind(j, Range.from_min_extent(0, 4))
    mod = tirx.floormod(j, c("int64", 4))  # folds to j with the range
    assert _keep_same(mod, ana) is j


@given(st.integers(-50, 50), st.integers(-50, 50), st.integers(-50, 50))
def test_keep_same_agrees_with_the_default_on_linear_forms(a, b, k):
    i, j = tirx.Var("i", "int32"), tirx.Var("j", "int32")
    expr = i * tirx.IntImm("int32", a) + j * tirx.IntImm("int32", b) + tirx.IntImm("int32", k)
    assert structural_equal(_keep_same(expr), Simplifier(Analyzer()).simplify(expr))


# Analyzer.bind with a constant Range takes a fast path unless ``min + extent`` wraps; the
# bounds below are what the general path (fold, simplify, bound) gives, wrapping included.
_BIND_CASES = [
    ("int32", 0, 4, 0, 3), ("int64", 0, 1, 0, 0), ("int32", -5, 10, -5, 4),
    ("int32", 2**31 - 4, 4, 2**31 - 4, 2**31 - 1),
    ("int32", 2**31 - 4, 5, 2**31 - 4, -(2**31)),  # min + extent wraps: general path
    ("int64", 2**63 - 10, 10, 2**63 - 10, 2**63 - 1),
    ("int32", 0, 0, 0, -1), ("int32", 3, -2, 3, 0),
    ("uint8", 250, 6, 250, -1), ("uint8", 250, 5, 250, 254), ("int8", -128, 1, -128, -128),
]


@pytest.mark.parametrize(("dtype", "lo", "extent", "want_lo", "want_hi"), _BIND_CASES)
def test_bind_constant_range_bounds(dtype, lo, extent, want_lo, want_hi):
    var = tirx.Var("v", dtype)
    ana = Analyzer()
    ana.bind(var, Range.from_min_extent(tirx.IntImm(dtype, lo), tirx.IntImm(dtype, extent)))
    bound = ana.const_int_bound(var)
    assert (bound.min_value, bound.max_value) == (want_lo, want_hi)


def test_bind_symbolic_or_mixed_dtype_range_takes_the_general_path():
    n = tirx.Var("n", "int32")
    i, j = tirx.Var("i", "int32"), tirx.Var("j", "int64")
    ana = Analyzer()
    ana.bind(n, Range.from_min_extent(0, 16))
    ana.bind(i, Range.from_min_extent(tirx.IntImm("int32", 1), n))
    assert (ana.const_int_bound(i).min_value, ana.const_int_bound(i).max_value) == (1, 15)
    ana.bind(j, Range.from_min_extent(tirx.IntImm("int32", 2), tirx.IntImm("int64", 3)))
    assert (ana.const_int_bound(j).min_value, ana.const_int_bound(j).max_value) == (2, 4)


def test_keep_same_on_a_long_sum_does_not_recurse_per_term():
    xs = [tirx.Var(f"x{k}", "int64") for k in range(3000)]
    expr = xs[0] * tirx.IntImm("int64", 3)
    for x in xs[1:]:
        expr = expr + x * tirx.IntImm("int64", 3)  # equal scales: first-appearance order
    expr = expr + tirx.IntImm("int64", 1)
    assert _keep_same(expr) is expr
