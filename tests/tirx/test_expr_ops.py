"""Python operators on PrimExprs: dtype promotion, constant folding, errors.

Expected texts are what Apache TVM 0.27's ``tvm.tirx`` builds for the same Python code.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tvm import tirx


@pytest.fixture
def v():
    return {
        "x": tirx.Var("x", "int32"),
        "y": tirx.Var("y", "int64"),
        "f": tirx.Var("f", "float32"),
        "h": tirx.Var("h", "float16"),
        "c": tirx.Var("c", "int8"),
        "u": tirx.Var("u", "uint32"),
        "v": tirx.Var("v", "uint8"),
        "b": tirx.Var("b", "bool"),
    }


@pytest.mark.parametrize(
    "build, text, dtype",
    [
        (lambda v: v["x"] + v["y"], 'T.Cast("int64", x) + y', "int64"),
        (lambda v: v["y"] + 1, "y + T.int64(1)", "int64"),
        (lambda v: v["x"] + 1.5, 'T.Cast("float32", x) + T.float32(1.5)', "float32"),
        (lambda v: v["f"] + 1, "f + T.float32(1.0)", "float32"),
        (lambda v: v["h"] + 1.0, 'T.Cast("float32", h) + T.float32(1.0)', "float32"),
        (lambda v: v["x"] + v["h"], 'T.Cast("float16", x) + h', "float16"),
        (lambda v: v["c"] + 1, 'T.Cast("int32", c) + 1', "int32"),
        (lambda v: v["u"] + 1, "u + T.uint32(1)", "uint32"),
        (lambda v: v["v"] + 1, 'T.Cast("int32", v) + 1', "int32"),
        (lambda v: v["c"] + v["u"], 'T.Cast("uint32", c) + u', "uint32"),
        (lambda v: v["y"] + v["u"], 'y + T.Cast("int64", u)', "int64"),
        (lambda v: v["b"] + 1, 'T.Cast("int32", b) + 1', "int32"),
        (lambda v: v["b"] + v["f"], 'T.Cast("float32", b) + f', "float32"),
        (lambda v: v["x"] + True, "x + 1", "int32"),
        (lambda v: v["x"] + 2**40, 'T.Cast("int64", x) + T.int64(1099511627776)', "int64"),
        (lambda v: v["x"] + np.int64(3), "x + 3", "int32"),
        (lambda v: v["x"] + np.float32(3), 'T.Cast("float32", x) + T.float32(3.0)', "float32"),
        (lambda v: 1 - v["x"], "1 - x", "int32"),
        (lambda v: 2 * v["x"], "2 * x", "int32"),
        (lambda v: v["x"] // 2, "x // 2", "int32"),
        (lambda v: v["x"] % 2, "x % 2", "int32"),
        (lambda v: v["f"] / 2, "f / T.float32(2.0)", "float32"),
        (lambda v: -v["x"], "x * -1", "int32"),
        (lambda v: -v["y"], "y * T.int64(-1)", "int64"),
        (lambda v: -v["f"], "f * T.float32(-1.0)", "float32"),
        (lambda v: -(v["x"] + 1), "(x + 1) * -1", "int32"),
        (lambda v: ~v["x"], "~x", "int32"),
        (lambda v: v["x"] & 1, "x & 1", "int32"),
        (lambda v: v["x"] | 1, "x | 1", "int32"),
        (lambda v: v["x"] ^ 1, "x ^ 1", "int32"),
        (lambda v: v["x"] << 1, "x << 1", "int32"),
        (lambda v: v["x"] >> 1, "x >> 1", "int32"),
        (lambda v: v["b"] & v["b"], "b & b", "bool"),
        (lambda v: v["x"] < 1, "x < 1", "bool"),
        (lambda v: v["x"] < 1.5, 'T.Cast("float32", x) < T.float32(1.5)', "bool"),
        (lambda v: v["x"] >= v["y"], 'T.Cast("int64", x) >= y', "bool"),
        (lambda v: (v["x"] < 1) & (v["x"] > 0), "(x < 1) & (x > 0)", "bool"),
        (lambda v: (v["x"] < 1) + 1, 'T.Cast("int32", x < 1) + 1', "int32"),
        (lambda v: tirx.min(v["x"], v["y"]), 'T.min(T.Cast("int64", x), y)', "int64"),
        (lambda v: tirx.max(v["x"], 1), "T.max(x, 1)", "int32"),
        (lambda v: v["x"] + v["y"] + 1, 'T.Cast("int64", x) + y + T.int64(1)', "int64"),
    ],
)
def test_promotion(v, build, text, dtype):
    expr = build(v)
    assert repr(expr) == text
    assert expr.dtype == dtype


@pytest.mark.parametrize(
    "build, text",
    [
        (lambda x, f: x + 0, "x"),
        (lambda x, f: 0 + x, "x"),
        (lambda x, f: x - 0, "x"),
        (lambda x, f: x * 1, "x"),
        (lambda x, f: x * 0, "0"),
        (lambda x, f: f * 0, "T.float32(0.0)"),
        (lambda x, f: f * 1, "f"),
        (lambda x, f: f + 0, "f"),
        (lambda x, f: x // 1, "x"),
        (lambda x, f: x % 1, "0"),
        (lambda x, f: 0 // x, "0"),
        (lambda x, f: x - x, "x - x"),  # identities only, no deeper simplification
        (lambda x, f: x < x, "x < x"),  # noqa: PLR0124
        (lambda x, f: tirx.min(x, x), "x"),
        (lambda x, f: x + 0.0, 'T.Cast("float32", x)'),
        (lambda x, f: x.astype("int32"), "x"),
    ],
)
def test_identities(build, text):
    x, f = tirx.Var("x", "int32"), tirx.Var("f", "float32")
    assert repr(build(x, f)) == text


@pytest.mark.parametrize(
    "build, text",
    [
        (lambda: tirx.const(2) + 3, "5"),
        (lambda: tirx.const(7) // tirx.const(2), "3"),
        (lambda: tirx.const(-7) // tirx.const(2), "-4"),
        (lambda: tirx.const(-7) % tirx.const(2), "1"),
        (lambda: tirx.truncdiv(tirx.const(-7), tirx.const(2)), "-3"),
        (lambda: tirx.truncmod(tirx.const(-7), 2), "-1"),
        (lambda: tirx.const(2**31 - 1) + tirx.const(1), "-2147483648"),  # int32 wraps
        (lambda: tirx.const(1.5) + tirx.const(2.0), "T.float32(3.5)"),
        (lambda: tirx.const(0.1) + tirx.const(0.2), "T.float32(0.30000001192092896)"),
        (
            lambda: tirx.const(0.1, "float64") + tirx.const(0.2, "float64"),
            "T.float64(0.30000000000000004)",
        ),
        (lambda: tirx.const(1.5) / tirx.const(2.0), "T.float32(0.75)"),
        (lambda: tirx.const(1) << tirx.const(2), "4"),
        (lambda: tirx.const(6) & tirx.const(3), "2"),
        (lambda: tirx.const(1) < tirx.const(2), "T.bool(True)"),
        (lambda: tirx.max(tirx.const(1), tirx.const(3)), "3"),
        (lambda: -tirx.const(3), "-3"),
        (lambda: tirx.const(2.7).astype("int32"), "2"),
        (lambda: tirx.const(3).astype("float32"), "T.float32(3.0)"),
        (lambda: tirx.const(3) == 3, "T.bool(True)"),
    ],
)
def test_constant_folding(build, text):
    assert repr(build()) == text


def test_integer_true_division_is_an_error():
    x = tirx.Var("x")
    with pytest.raises(TypeError, match="multiple types of integer divisions"):
        x / 2
    with pytest.raises(TypeError, match="multiple types of integer divisions"):
        tirx.const(7) / tirx.const(2)


def test_floor_division_of_floats_is_an_error():
    f = tirx.Var("f", "float32")
    with pytest.raises(TypeError, match="floordiv requires integer operands, got float32"):
        f // 2
    with pytest.raises(TypeError, match="floormod requires integer operands, got float32"):
        f % 2


def test_division_by_zero_constant():
    x = tirx.Var("x")
    with pytest.raises(ValueError, match="divide by zero"):
        x // 0
    with pytest.raises(ValueError, match="divide by zero"):
        tirx.const(1) % tirx.const(0)


def test_unsupported_operands():
    x = tirx.Var("x")
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Var' and 'NoneType'"):
        x + None
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"
    with pytest.raises(TypeError):
        abs(x)  # TVM defines no __abs__; use tirx.abs
    with pytest.raises(TypeError):
        x**2


def test_bool_of_expression_raises():
    x = tirx.Var("x")
    with pytest.raises(ValueError, match="Cannot use and / or / not operator to Expr"):
        bool(x < 1)
    with pytest.raises(ValueError, match="tvm.tirx.all / tvm.tirx.any"):
        if x:
            pass


def test_constants_convert_to_bool():
    assert bool(tirx.const(3)) is True
    assert bool(tirx.const(0.0)) is False


def test_equality_operator():
    x, y = tirx.Var("x"), tirx.Var("y")
    eq = x == y
    assert isinstance(eq, tirx.EqualOp)
    assert bool(x == x) is True  # noqa: PLR0124
    assert bool(x == y) is False
    assert bool(x == 1) is False
    assert bool(x != y) is True
    assert bool(x != x) is False  # noqa: PLR0124
    node = eq.asobject()
    assert isinstance(node, tirx.EQ) and repr(node) == "x == y"
    assert repr((x != 1).asobject()) == "x != 1"
    assert repr(x.equal(1)) == "x == 1"
    # Usable where an expression is expected.
    assert repr(tirx.all(x == 1, y == 2)) == "x == 1 and y == 2"
    assert repr(tirx.Select(x == 1, x, y)) == "T.Select(x == 1, x, y)"
    assert (x == None) is not None
    assert not (x == None)  # noqa: SIM201


def test_equality_of_constants_folds():
    assert repr(tirx.const(3) == 3) == "T.bool(True)"
    assert bool(tirx.const(3) == tirx.const(4)) is False
    assert bool(tirx.const(3) != tirx.const(4)) is True


def test_expressions_are_dict_keys_by_identity():
    x, x2 = tirx.Var("x"), tirx.Var("x")
    table = {x: 1, x2: 2}
    assert table[x] == 1 and table[x2] == 2
    a, b = tirx.const(3), tirx.const(3)
    assert len({a: 0, b: 1}) == 2


def test_const():
    assert repr(tirx.const(1)) == "1"
    assert tirx.const(1).dtype == "int32"
    assert tirx.const(2**40).dtype == "int64"
    assert repr(tirx.const(1.0)) == "T.float32(1.0)"
    assert repr(tirx.const(True)) == "T.bool(True)"
    assert repr(tirx.const(True, "int32")) == "1"
    assert repr(tirx.const(5, "float32")) == "T.float32(5.0)"
    assert repr(tirx.const(np.int64(3))) == "T.int64(3)"
    assert repr(tirx.const(np.float16(0.5))) == "T.float16(0.5)"
    with pytest.raises(TypeError, match="Cannot automatically inference the type"):
        tirx.const("a")
    with pytest.raises(ValueError, match="not an integer"):
        tirx.const(1.5, "int32")


def test_logical_folding():
    x = tirx.Var("x")
    assert repr(tirx.all(tirx.const(True), x < 1)) == "x < 1"
    assert repr(tirx.any(tirx.const(True), x < 1)) == "T.bool(True)"
    assert repr(tirx.all(tirx.const(False), x < 1)) == "T.bool(False)"
    assert repr(tirx.any(x < 1, x < 2, x < 3)) == "x < 1 or x < 2 or x < 3"
    assert repr(tirx.all(x < 1)) == "x < 1"
    # The Not node constructor does not fold.
    assert repr(tirx.Not(tirx.const(True))) == "not T.bool(True)"


def test_vector_scalar_broadcast():
    x = tirx.Var("x")
    ramp = tirx.Ramp(x, 1, 4)
    assert repr(ramp + 1) == "T.Ramp(x, 1, 4) + T.Broadcast(1, 4)"
    assert (ramp < 3).dtype == "boolx4"
    with pytest.raises(TypeError, match="lanes differ"):
        ramp + tirx.Ramp(x, 1, 8)


def test_literals_that_do_not_fit_are_errors():
    u = tirx.Var("u", "uint32")
    with pytest.raises(ValueError, match="cannot make uint from negative value -1"):
        u + -1
    with pytest.raises(ValueError, match="cannot make uint from negative value -1"):
        tirx.const(-1).astype("uint32")
    with pytest.raises(ValueError, match="exceeds maximum of float16"):
        tirx.Var("h", "float16") + 2**40
    with pytest.raises(ValueError, match="exceeds maximum of float32"):
        tirx.const(1e40, "float32")
    # Infinities and NaN are values, not overflow.
    assert repr(tirx.FloatImm("float16", float("inf"))) == 'T.float16("inf")'


def test_bitwise_with_python_int_uses_the_other_dtype():
    c = tirx.Var("c", "int8")
    assert repr(c & 1) == "c & T.int8(1)"
    assert repr(c | -1) == "c | T.int8(-1)"
    with pytest.raises(ValueError, match="Literal value 300 exceeds range of int8"):
        c & 300
    with pytest.raises(ValueError, match="cannot make uint from negative value -1"):
        tirx.Var("v", "uint8") & -1


def test_integer_division_rejects_bool():
    c, b = tirx.Var("c", "int8"), tirx.Var("b", "bool")
    with pytest.raises(TypeError, match="floordiv requires integer operands, got bool"):
        c // True
    with pytest.raises(TypeError, match="floordiv requires integer operands, got bool"):
        b // c
    with pytest.raises(TypeError, match="truncmod requires integer operands, got bool"):
        tirx.truncmod(c, b)


def test_float16_beats_bfloat16_in_either_order():
    h, bf = tirx.Var("h", "float16"), tirx.Var("b", "bfloat16")
    assert repr(h + bf) == 'h + T.Cast("float16", b)'
    assert repr(bf + h) == 'T.Cast("float16", b) + h'


_WRAP_DTYPES = ["int8", "int32", "int64", "uint8", "uint32"]


def _wrap(value, dtype):
    bits = int("".join(ch for ch in dtype if ch.isdigit()))
    value &= (1 << bits) - 1
    if dtype.startswith("int") and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_FOLDS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "floordiv": (lambda a, b: a // b, lambda a, b: a // b),
    "floormod": (lambda a, b: a % b, lambda a, b: a % b),
    "truncdiv": (tirx.truncdiv, _trunc_div),
    "truncmod": (tirx.truncmod, lambda a, b: a - _trunc_div(a, b) * b),
    "min": (tirx.min, min),
    "max": (tirx.max, max),
    "and": (lambda a, b: a & b, lambda a, b: a & b),
    "xor": (lambda a, b: a ^ b, lambda a, b: a ^ b),
}


@settings(max_examples=300, deadline=None)
@given(
    dtype=st.sampled_from(_WRAP_DTYPES),
    op=st.sampled_from(sorted(_FOLDS)),
    a=st.integers(-(2**63), 2**64 - 1),
    b=st.integers(-(2**63), 2**64 - 1),
)
def test_constant_folding_matches_wrapping_arithmetic(dtype, op, a, b):
    a, b = _wrap(a, dtype), _wrap(b, dtype)
    build, reference = _FOLDS[op]
    if op in ("floordiv", "floormod", "truncdiv", "truncmod") and b == 0:
        return
    unsigned = dtype.startswith("uint")
    if op == "sub" and unsigned and a == 0 and b > 0:
        with pytest.raises(RuntimeError, match="minuend is 0"):
            build(tirx.const(a, dtype), tirx.const(b, dtype))
        return
    index_type = dtype in ("int32", "int64")
    if (op == "truncmod" and not index_type) or (op == "floormod" and not (index_type or unsigned)):
        # As in TVM: % folds only for int32/int64 (floormod also for unsigned types)
        # (x % 1 and 0 % x still simplify to 0)
        folded = build(tirx.const(a, dtype), tirx.const(b, dtype))
        trivial = a == 0 or b == 1
        assert isinstance(folded, tirx.IntImm) == trivial
        if trivial:
            assert folded.value == 0
        return
    folded = build(tirx.const(a, dtype), tirx.const(b, dtype))
    assert isinstance(folded, tirx.IntImm) and folded.dtype == dtype
    assert folded.value == _wrap(reference(a, b), dtype)


@settings(max_examples=200, deadline=None)
@given(
    a=st.integers(-(2**31), 2**31 - 1),
    b=st.integers(-(2**31), 2**31 - 1),
    op=st.sampled_from(["lt", "le", "gt", "ge", "eq", "ne"]),
)
def test_constant_comparisons_fold(a, b, op):
    import operator

    ca, cb = tirx.const(a), tirx.const(b)
    fn = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}.get(op)
    if fn is None:
        folded = ca == cb if op == "eq" else ca != cb
        expected = (a == b) if op == "eq" else (a != b)
    else:
        folded, expected = fn(ca, cb), fn(a, b)
    assert repr(folded) == f"T.bool({expected})"


def test_negation():
    x = tirx.Var("x")
    assert repr(-tirx.Ramp(x, 1, 4)) == "T.Ramp(x, 1, 4) * T.Broadcast(-1, 4)"
    with pytest.raises(TypeError, match="cannot negate an expression of unsigned dtype uint8"):
        -tirx.Var("u", "uint8")
    with pytest.raises(TypeError, match="cannot negate an expression of unsigned dtype bool"):
        -tirx.Var("b", "bool")
