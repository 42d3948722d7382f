"""Property tests: simplification, proofs and bounds agree with evaluation on random values."""

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tvm import arith, tirx
from tvm.ffi import structural_equal
from tvm.tirx.analysis import evaluate

X, Y, Z = tirx.Var("x", "int64"), tirx.Var("y", "int64"), tirx.Var("z", "int64")
S = tirx.SizeVar("s", "int64")
T = tirx.Var("t", "int64")  # bound by Let expressions only
VARS = [X, Y, Z, S]

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

leaves = st.one_of(
    st.sampled_from(VARS),
    st.integers(-6, 6).map(lambda v: tirx.const(v, "int64")),
)
divisors = st.sampled_from([-3, -2, 2, 3, 4, 6, 8]).map(lambda v: tirx.const(v, "int64"))


def _extend(children):
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(lambda p: p[0] + p[1]),
        pair.map(lambda p: p[0] - p[1]),
        pair.map(lambda p: p[0] * p[1]),
        st.tuples(children, divisors).map(lambda p: tirx.floordiv(p[0], p[1])),
        st.tuples(children, divisors).map(lambda p: tirx.floormod(p[0], p[1])),
        st.tuples(children, divisors).map(lambda p: tirx.truncdiv(p[0], p[1])),
        st.tuples(children, divisors).map(lambda p: tirx.truncmod(p[0], p[1])),
        pair.map(lambda p: tirx.FloorDiv(p[0], p[1])),
        pair.map(lambda p: tirx.FloorMod(p[0], p[1])),
        pair.map(lambda p: tirx.min(p[0], p[1])),
        pair.map(lambda p: tirx.max(p[0], p[1])),
        st.tuples(children, children, children, children).map(
            lambda p: tirx.Select(p[0] < p[1], p[2], p[3])
        ),
        st.tuples(children, children).map(lambda p: tirx.Let(T, p[0], p[1] * T + T)),
        st.tuples(children, st.integers(-3, 3)).map(
            lambda p: tirx.Let(T, tirx.const(p[1], "int64"), p[0] - T)
        ),
        children.map(lambda c: tirx.Cast("int64", tirx.Cast("int32", c))),
        children.map(lambda c: tirx.Cast("int64", tirx.Cast("int32", c) + 1)),
        st.tuples(children, children, children, children).map(
            lambda p: tirx.if_then_else(tirx.all(p[0] < p[1], p[1] <= p[0] + 3), p[2], p[3])
        ),
    )


exprs = st.recursive(leaves, _extend, max_leaves=10)
assignments = st.fixed_dictionaries(
    {X: st.integers(-20, 20), Y: st.integers(-20, 20), Z: st.integers(-20, 20),
     S: st.integers(0, 20)}
)


def _value(expr, env):
    """The value, or None where the expression is undefined (a division by zero)."""
    try:
        return evaluate(expr, env)
    except ValueError as err:
        assert "division by zero" in str(err)
        return None


@SETTINGS
@given(expr=exprs, env=st.lists(assignments, min_size=3, max_size=3))
def test_simplify_preserves_value(expr, env):
    simplified = arith.Analyzer().simplify(expr)
    assert simplified.dtype == expr.dtype
    for values in env:
        expected = _value(expr, values)
        assume(expected is not None)
        assert evaluate(simplified, values) == expected, (expr, simplified, values)


@SETTINGS
@given(expr=exprs)
def test_simplified_form_is_provably_equal_and_stable(expr):
    ana = arith.Analyzer()
    simplified = ana.simplify(expr)
    assert ana.can_prove_equal(expr, simplified)
    again = ana.simplify(simplified)
    assert structural_equal(ana.simplify(again), again)


@SETTINGS
@given(a=exprs, b=exprs, op=st.sampled_from(["lt", "le", "eq", "ne"]), env=assignments)
def test_comparisons_simplify_soundly(a, b, op, env):
    cond = {"lt": tirx.LT, "le": tirx.LE, "eq": tirx.EQ, "ne": tirx.NE}[op](a, b)
    expected = _value(cond, env)
    assume(expected is not None)
    simplified = arith.Analyzer().simplify(cond)
    assert evaluate(simplified, env) == expected, (cond, simplified, env)


@SETTINGS
@given(a=exprs, b=exprs, env=st.lists(assignments, min_size=4, max_size=4))
def test_proofs_are_sound(a, b, env):
    ana = arith.Analyzer()
    proved_le = ana.can_prove(a <= b)
    proved_eq = ana.can_prove_equal(a, b)
    for values in env:
        va, vb = _value(a, values), _value(b, values)
        if va is None or vb is None:
            continue
        if proved_le:
            assert va <= vb, (a, b, values)
        if proved_eq:
            assert va == vb, (a, b, values)


@SETTINGS
@given(expr=exprs, env=st.lists(assignments, min_size=4, max_size=4))
def test_const_int_bound_contains_every_value(expr, env):
    ana = arith.Analyzer()
    for var in (X, Y, Z):
        ana.update(var, arith.ConstIntBound(-20, 20))
    ana.update(S, arith.ConstIntBound(0, 20))
    bound = ana.const_int_bound(expr)
    for values in env:
        value = _value(expr, values)
        if value is not None:
            assert bound.min_value <= value <= bound.max_value, (expr, bound, values)


@pytest.mark.parametrize("steps", [1, 2])
def test_simplify_steps_argument(steps):
    assert repr(arith.Analyzer().simplify(X * 4 // 2, steps=steps)) == "x * T.int64(2)"


@SETTINGS
@given(
    expr=exprs,
    lo=st.integers(-10, 10),
    extent=st.integers(1, 12),
    env=st.lists(assignments, min_size=3, max_size=3),
)
def test_int_set_contains_every_value(expr, lo, extent, env):
    import tvm

    ana = arith.Analyzer()
    dom = {X: tvm.ir.Range.from_min_extent(tirx.const(lo, "int64"), tirx.const(extent, "int64"))}
    interval = ana.int_set(expr, dom)
    for values in env:
        values = dict(values)
        values[X] = lo + values[X] % extent  # a point of the domain
        value = _value(expr, values)
        if value is None:
            continue
        if interval.min_value is not None:
            bound = _value(interval.min_value, values)
            assert bound is None or bound <= value, (expr, interval, values)
        if interval.max_value is not None:
            bound = _value(interval.max_value, values)
            assert bound is None or value <= bound, (expr, interval, values)


@SETTINGS
@given(expr=exprs, env=st.lists(assignments, min_size=3, max_size=3))
def test_modular_set_holds_for_every_value(expr, env):
    m = arith.Analyzer().modular_set(expr)
    for values in env:
        value = _value(expr, values)
        if value is None:
            continue
        if m.coeff == 0:
            assert value == m.base, (expr, m, values)
        else:
            assert (value - m.base) % m.coeff == 0, (expr, m, values)


_small = st.recursive(
    st.one_of(st.sampled_from([X, Y]), st.integers(-4, 4).map(lambda v: tirx.const(v, "int64"))),
    lambda c: st.tuples(c, c, st.sampled_from(["+", "-", "*"])).map(
        lambda p: p[0] + p[1] if p[2] == "+" else p[0] - p[1] if p[2] == "-" else p[0] * p[1]
    ),
    max_leaves=4,
)
_vector_leaves = st.one_of(
    st.tuples(_small, st.integers(-3, 3)).map(
        lambda p: tirx.Ramp(p[0], tirx.const(p[1], "int64"), 4)
    ),
    _small.map(lambda v: tirx.Broadcast(v, 4)),
)
vector_exprs = st.recursive(
    _vector_leaves,
    lambda c: st.tuples(c, c, st.sampled_from(["+", "-", "*"])).map(
        lambda p: p[0] + p[1] if p[2] == "+" else p[0] - p[1] if p[2] == "-" else p[0] * p[1]
    ),
    max_leaves=5,
)


@SETTINGS
@given(expr=vector_exprs, env=assignments)
def test_vector_simplify_preserves_every_lane(expr, env):
    simplified = arith.Analyzer().simplify(expr)
    assert simplified.dtype == expr.dtype
    assert evaluate(simplified, env) == evaluate(expr, env), (expr, simplified)
