"""Unary math, broadcast binary ops and reductions against NumPy."""

import math

import numpy as np
import pytest

from tvm import te, tirx, topi

_ERF = np.vectorize(math.erf, otypes=[np.float64])

UNARY = {
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "tanh": np.tanh, "erf": _ERF, "abs": np.abs,
    "negative": np.negative, "sign": np.sign, "round": np.rint, "floor": np.floor,
    "ceil": np.ceil, "trunc": np.trunc, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "sinh": np.sinh, "cosh": np.cosh, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "asinh": np.arcsinh, "atanh": np.arctanh, "square": np.square,
    "log2": np.log2, "log10": np.log10, "identity": lambda x: x,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_float(run, name):
    a = np.array([[0.1, 0.5, 0.9], [-0.0, 0.25, 2.5]], "float32")
    if name in ("log", "sqrt", "rsqrt", "log2", "log10"):
        a = np.abs(a) + 0.5
    if name in ("asin", "acos", "atanh"):
        a = np.clip(a, -0.9, 0.9)
    A = te.placeholder(a.shape, name="A")
    out = run([A], getattr(topi, name)(A), [a])
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, UNARY[name](a.astype("float64")), rtol=1e-5, atol=1e-6)


def test_acosh(run):
    a = np.array([1.0, 2.0, 7.5], "float32")
    A = te.placeholder((3,), name="A")
    np.testing.assert_allclose(run([A], topi.acosh(A), [a]), np.arccosh(a), rtol=1e-5)


def test_round_half_even_and_sign_int(run):
    a = np.array([0.5, 1.5, 2.5, -0.5], "float32")
    A = te.placeholder((4,), name="A")
    np.testing.assert_array_equal(run([A], topi.round(A), [a]), np.rint(a))
    b = np.array([-3, 0, 7], "int32")
    B = te.placeholder((3,), "int32", name="B")
    np.testing.assert_array_equal(run([B], topi.sign(B), [b]), np.sign(b))
    np.testing.assert_array_equal(run([B], topi.abs(B), [b]), np.abs(b))


def test_nan_inf_predicates(run):
    a = np.array([0.0, np.nan, np.inf, -np.inf, 1.0], "float32")
    A = te.placeholder((5,), name="A")
    for name, fn in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
        out = run([A], getattr(topi, name)(A), [a])
        assert out.dtype == np.bool_
        np.testing.assert_array_equal(out, fn(a))


def test_clip_cast_bitwise_not_logical_not(run):
    a = np.array([-2.0, 0.3, 5.0], "float32")
    A = te.placeholder((3,), name="A")
    np.testing.assert_array_equal(run([A], topi.clip(A, -1.0, 1.0), [a]), np.clip(a, -1, 1))
    out = run([A], topi.cast(A, "int32"), [a])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, a.astype("int32"))
    b = np.array([0, 5, -3], "int32")
    B = te.placeholder((3,), "int32", name="B")
    np.testing.assert_array_equal(run([B], topi.bitwise_not(B), [b]), ~b)
    c = np.array([True, False])
    C = te.placeholder((2,), "bool", name="C")
    np.testing.assert_array_equal(run([C], topi.logical_not(C), [c]), ~c)
    np.testing.assert_array_equal(run([C], topi.bitwise_not(C), [c]), ~c)


def _int_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


FLOAT_BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "floor_divide": lambda a, b: np.floor(a / b), "floor_mod": lambda a, b: a - np.floor(a / b) * b,
    "mod": np.fmod, "power": np.power, "maximum": np.maximum, "minimum": np.minimum,
    "equal": np.equal, "not_equal": np.not_equal, "less": np.less,
    "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "log_add_exp": np.logaddexp,
}


@pytest.mark.parametrize("name", sorted(FLOAT_BINARY))
def test_binary_float_broadcast(run, rng, name):
    a = rng.uniform(0.5, 2.0, (3, 1)).astype("float32")
    b = rng.uniform(-2.0, 2.0, (5,)).astype("float32")
    b[0] = a[0, 0]  # one equal pair for the comparisons
    if name in ("divide", "floor_divide", "floor_mod", "mod"):
        b[np.abs(b) < 0.25] = 0.75
    A = te.placeholder((3, 1), name="A")
    B = te.placeholder((5,), name="B")
    out = run([A, B], getattr(topi, name)(A, B), [a, b])
    expected = FLOAT_BINARY[name](a.astype("float64"), b.astype("float64"))
    assert out.shape == (3, 5)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


INT_BINARY = {
    "divide": _int_div, "mod": lambda a, b: a - _int_div(a, b) * b,
    "floor_divide": np.floor_divide, "floor_mod": np.mod, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": np.left_shift, "right_shift": np.right_shift, "maximum": np.maximum,
}


@pytest.mark.parametrize("name", sorted(INT_BINARY))
def test_binary_int(run, name):
    a = np.array([[7, -7, 5], [-1, 0, 9]], "int32")
    b = np.array([2, 3, -4], "int32")
    if "shift" in name:
        a, b = np.abs(a), np.abs(b)
    A = te.placeholder((2, 3), "int32", name="A")
    B = te.placeholder((3,), "int32", name="B")
    out = run([A, B], getattr(topi, name)(A, B), [a, b])
    np.testing.assert_array_equal(out, INT_BINARY[name](a, b))


@pytest.mark.parametrize("name, fn", [("logical_and", np.logical_and),
                                      ("logical_or", np.logical_or),
                                      ("logical_xor", np.logical_xor),
                                      ("bitwise_xor", np.logical_xor)])
def test_binary_bool(run, name, fn):
    a = np.array([[True], [False]])
    b = np.array([True, False, True])
    A = te.placeholder((2, 1), "bool", name="A")
    B = te.placeholder((3,), "bool", name="B")
    np.testing.assert_array_equal(run([A, B], getattr(topi, name)(A, B), [a, b]), fn(a, b))


def test_binary_scalar_operands(run):
    a = np.array([1.0, 2.0, 3.0], "float32")
    A = te.placeholder((3,), name="A")
    np.testing.assert_array_equal(run([A], topi.subtract(10.0, A), [a]), 10 - a)
    np.testing.assert_array_equal(run([A], topi.multiply(A, 2), [a]), a * 2)


def test_broadcast_errors():
    A = te.placeholder((3, 2), name="A")
    B = te.placeholder((4,), name="B")
    with pytest.raises(ValueError, match="do not broadcast"):
        topi.add(A, B)
    with pytest.raises(TypeError, match="logical ops need bool"):
        topi.logical_and(A, A)
    with pytest.raises(TypeError, match="expected a te.Tensor"):
        topi.add(A, "x")


def test_broadcast_symbolic(run, rng):
    n = te.var("n")
    A = te.placeholder((n, 1), name="A")
    B = te.placeholder((3,), name="B")
    a = rng.standard_normal((4, 1)).astype("float32")
    b = rng.standard_normal(3).astype("float32")
    np.testing.assert_allclose(run([A, B], topi.add(A, B), [a, b], n=4), a + b)


@pytest.mark.parametrize("name, fn", [("sum", np.sum), ("max", np.max), ("min", np.min),
                                      ("prod", np.prod), ("mean", np.mean),
                                      ("variance", np.var), ("std", np.std)])
@pytest.mark.parametrize("axis", [None, 0, (0, 2), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(run, rng, name, fn, axis, keepdims):
    a = rng.uniform(0.5, 1.5, (3, 1, 5)).astype("float32")
    A = te.placeholder((3, 1, 5), name="A")
    out = run([A], getattr(topi, name)(A, axis, keepdims), [a])
    np.testing.assert_allclose(out, fn(a, axis=axis, keepdims=keepdims), rtol=1e-5)


def test_all_any(run):
    a = np.array([[True, False, True], [True, True, True]])
    A = te.placeholder((2, 3), "bool", name="A")
    np.testing.assert_array_equal(run([A], topi.all(A, 1), [a]), a.all(1))
    np.testing.assert_array_equal(run([A], topi.any(A, 0), [a]), a.any(0))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_arg_reductions(run, rng, name, axis, keepdims):
    a = rng.integers(0, 3, (3, 5)).astype("float32")  # ties: the first index wins
    A = te.placeholder((3, 5), name="A")
    out = run([A], getattr(topi, name)(A, axis, keepdims), [a])
    np.testing.assert_array_equal(out, getattr(np, name)(a, axis=axis, keepdims=keepdims))


def test_arg_reduction_last_index_and_int64(run):
    a = np.array([[1.0, 3.0, 3.0, 0.0]], "float32")
    A = te.placeholder((1, 4), name="A")
    assert int(run([A], topi.argmax(A, 1, select_last_index=True), [a])[0]) == 2
    B = te.placeholder((tirx.IntImm("int64", 1), tirx.IntImm("int64", 4)), name="B")
    out = run([B], topi.argmax(B, 1), [a])
    assert out.dtype == np.int64 and out.tolist() == [1]


def test_arg_reduction_is_one_two_value_reduction(run):
    A = te.placeholder((2, 4), name="A")
    out = topi.argmin(A, 1, select_last_index=True)
    temp = out.op.input_tensors[0]
    # TVM's staging: <x>_red_temp computes (index, value) together; <x>_red copies the index.
    assert (out.op.name, temp.op.name, temp.op.num_outputs) == ("A_red", "A_red_temp", 2)
    a = np.array([[2.0, 1.0, 1.0, 3.0], [0.0, 5.0, 0.0, 0.0]], "float32")
    assert run([A], out, [a]).tolist() == [2, 3]


def test_prod_of_booleans_is_a_logical_and(run):
    a = np.array([[True, True, False], [True, True, True]])
    A = te.placeholder((2, 3), "bool", name="A")
    out = topi.prod(A, 1)
    assert type(out.op.body[0].combiner.result[0]).__name__ == "And"
    np.testing.assert_array_equal(run([A], out, [a]), a.all(1))


def test_reduction_axis_errors():
    A = te.placeholder((3, 5), name="A")
    with pytest.raises(ValueError, match="out of range"):
        topi.sum(A, 2)
    with pytest.raises(ValueError, match="repeated axis"):
        topi.sum(A, (0, 0))


def test_broadcast_of_different_symbolic_extents_as_tvm():
    c, h = tirx.Var("c", "int64"), tirx.Var("h", "int64")
    A = te.placeholder((c,), name="A")
    B = te.placeholder((h,), name="B")
    C = te.placeholder((tirx.IntImm("int64", 4),), name="C")
    # Assumed equal at run time: the output extent is their maximum (TVM's BroadcastShape).
    assert str(topi.add(A, B).shape[0]) == "T.max(c, h)"
    # A symbolic extent against a static one (not 1) takes the static one.
    assert int(topi.add(A, C).shape[0]) == 4
