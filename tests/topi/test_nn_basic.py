"""topi.nn activations, softmax, dense/matmul and padding against NumPy."""

import math

import numpy as np
import pytest

from tvm import te, topi

_ERF = np.vectorize(math.erf, otypes=[np.float64])


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


ACTIVATIONS = {
    "relu": (lambda x: topi.nn.relu(x), lambda v: np.maximum(v, 0)),
    "leaky_relu": (lambda x: topi.nn.leaky_relu(x, 0.1), lambda v: np.where(v > 0, v, 0.1 * v)),
    "gelu": (topi.nn.gelu, lambda v: 0.5 * v * (1 + _ERF(v / math.sqrt(2)))),
    "gelu_tanh": (topi.nn.gelu_tanh, lambda v: 0.5 * v * (1 + np.tanh(
        math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))),
    "silu": (topi.nn.silu, lambda v: v / (1 + np.exp(-v))),
    "softplus": (lambda x: topi.nn.softplus(x, 2.0, 3.0),
                 lambda v: np.where(2 * v > 3, v, np.log1p(np.exp(2 * v)) / 2)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations(run, rng, name):
    a = rng.uniform(-3, 3, (3, 5)).astype("float32")
    A = te.placeholder((3, 5), name="A")
    build, ref = ACTIVATIONS[name]
    np.testing.assert_allclose(run([A], build(A), [a]), ref(a.astype("float64")), rtol=1e-5,
                               atol=1e-6)


def test_prelu_and_dropout(run, rng):
    a = rng.uniform(-1, 1, (2, 3, 5)).astype("float32")
    s = np.array([0.1, 0.2, 0.3], "float32")
    A = te.placeholder((2, 3, 5), name="A")
    S = te.placeholder((3,), name="S")
    np.testing.assert_allclose(run([A, S], topi.nn.prelu(A, S, 1), [a, s]),
                               np.where(a > 0, a, a * s[:, None]), rtol=1e-6)
    out, mask = run([A], topi.nn.dropout(A, 0.3), [a])
    np.testing.assert_array_equal(out, a)
    np.testing.assert_array_equal(mask, np.ones_like(a))
    with pytest.raises(ValueError, match="rate"):
        topi.nn.dropout(A, 1.5)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_log_softmax(run, rng, axis):
    a = rng.uniform(-3, 3, (3, 5)).astype("float32")
    A = te.placeholder((3, 5), name="A")
    expected = _softmax(a.astype("float64"), axis)
    np.testing.assert_allclose(run([A], topi.nn.softmax(A, axis), [a]), expected, rtol=1e-5)
    np.testing.assert_allclose(run([A], topi.nn.log_softmax(A, axis), [a]), np.log(expected),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sa, sb, ta, tb", [
    ((3, 5), (5, 2), False, False),
    ((5, 3), (5, 2), True, False),
    ((3, 5), (2, 5), False, True),
    ((5,), (5, 3), False, False),
    ((3, 5), (5,), False, False),
    ((5,), (5,), False, False),
    ((2, 1, 3, 5), (3, 5, 2), False, False),
    ((2, 3, 5), (2, 1, 5), False, True),
])
def test_matmul(run, rng, sa, sb, ta, tb):
    a = rng.standard_normal(sa).astype("float32")
    b = rng.standard_normal(sb).astype("float32")
    A, B = te.placeholder(sa, name="A"), te.placeholder(sb, name="B")
    out = run([A, B], topi.nn.matmul(A, B, transpose_a=ta, transpose_b=tb), [a, b])
    ea = np.swapaxes(a, -1, -2) if ta else a
    eb = np.swapaxes(b, -1, -2) if tb else b
    np.testing.assert_allclose(out, np.matmul(ea, eb), rtol=1e-5, atol=1e-5)


def test_matmul_out_dtype_bias_dense_batch(run, rng):
    a = rng.integers(-3, 3, (3, 5)).astype("int8")
    b = rng.integers(-3, 3, (5, 2)).astype("int8")
    A, B = te.placeholder((3, 5), "int8", name="A"), te.placeholder((5, 2), "int8", name="B")
    out = run([A, B], topi.nn.matmul(A, B, out_dtype="int32"), [a, b])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, a.astype("int32") @ b.astype("int32"))
    x = rng.standard_normal((3, 5)).astype("float32")
    w = rng.standard_normal((4, 5)).astype("float32")
    bias = rng.standard_normal(4).astype("float32")
    X, W, C = (te.placeholder(s, name=n) for s, n in (((3, 5), "X"), ((4, 5), "W"),
                                                      ((4,), "C")))
    np.testing.assert_allclose(run([X, W, C], topi.nn.dense(X, W, C), [x, w, bias]),
                               x @ w.T + bias, rtol=1e-5, atol=1e-5)
    p = rng.standard_normal((2, 3, 5)).astype("float32")
    q = rng.standard_normal((2, 4, 5)).astype("float32")
    P, Q = te.placeholder((2, 3, 5), name="P"), te.placeholder((2, 4, 5), name="Q")
    np.testing.assert_allclose(run([P, Q], topi.nn.batch_matmul(P, Q), [p, q]),
                               p @ q.transpose(0, 2, 1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run([X, W], topi.matmul(X, W, transp_b=True), [x, w]),
                               x @ w.T, rtol=1e-5, atol=1e-5)


def test_matmul_errors():
    A, B = te.placeholder((3, 5), name="A"), te.placeholder((4, 2), name="B")
    with pytest.raises(ValueError, match="reduction extents differ"):
        topi.nn.matmul(A, B)
    with pytest.raises(ValueError, match="2-D"):
        topi.nn.dense(te.placeholder((5,), name="V"), B)


def test_pad_modes(run, rng):
    a = rng.standard_normal((3, 4)).astype("float32")
    A = te.placeholder((3, 4), name="A")
    np.testing.assert_array_equal(run([A], topi.nn.pad(A, [1, 0], [2, 1], 0.5), [a]),
                                  np.pad(a, [(1, 2), (0, 1)], constant_values=0.5))
    np.testing.assert_array_equal(run([A], topi.nn.mirror_pad(A, [1, 2], [2, 1], "REFLECT"),
                                      [a]), np.pad(a, [(1, 2), (2, 1)], mode="reflect"))
    np.testing.assert_array_equal(run([A], topi.nn.mirror_pad(A, [1, 2], [2, 1]), [a]),
                                  np.pad(a, [(1, 2), (2, 1)], mode="symmetric"))
    np.testing.assert_array_equal(run([A], topi.nn.replicate_pad(A, [2, 1], [0, 3]), [a]),
                                  np.pad(a, [(2, 0), (1, 3)], mode="edge"))
    with pytest.raises(ValueError, match="widths"):
        topi.nn.pad(A, [1])
