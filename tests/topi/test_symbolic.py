"""Computes on symbolic int64 shapes (as Relax legalization builds them) against NumPy."""

import math

import numpy as np
import pytest

from tvm import te, tirx, topi

N = te.var("n", "int64")


def _i64(*values):
    return tuple(tirx.IntImm("int64", v) for v in values)


A = te.placeholder((N,) + _i64(3, 4), name="A")
B = te.placeholder(_i64(4, 2), name="B")
IMG = te.placeholder((N,) + _i64(2, 5, 5), name="IMG")
W = te.placeholder(_i64(3, 2, 3, 3), name="W")

CASES = {
    "softmax": (lambda: topi.nn.softmax(A, 1), [A],
                lambda a: np.exp(a) / np.exp(a).sum(1, keepdims=True)),
    "matmul": (lambda: topi.nn.matmul(A, B), [A, B], lambda a, b: a @ b),
    "sum_keepdims": (lambda: topi.sum(A, (0, 2), True), [A],
                     lambda a: a.sum((0, 2), keepdims=True)),
    "argmax": (lambda: topi.argmax(A, 0), [A], lambda a: np.argmax(a, 0)),
    "concat": (lambda: topi.concatenate([A, A], 0), [A], lambda a: np.concatenate([a, a], 0)),
    "reshape": (lambda: topi.reshape(A, (N * 2,) + _i64(6)), [A], lambda a: a.reshape(-1, 6)),
    "cumsum": (lambda: topi.cumsum(A, 0), [A], lambda a: np.cumsum(a, 0)),
    "flip": (lambda: topi.flip(A, 0), [A], lambda a: np.flip(a, 0)),
    "layer_norm": (lambda: topi.nn.layer_norm(A, None, None, [-1]), [A],
                   lambda a: (a - a.mean(-1, keepdims=True)) /
                   np.sqrt(a.var(-1, keepdims=True) + 1e-5)),
    "conv2d": (lambda: topi.nn.conv2d(IMG, W, 1, 1, 1), [IMG, W], None),
    "avg_pool": (lambda: topi.nn.pool2d(IMG, 2, 2, 1, 0, "avg"), [IMG],
                 lambda x: x[:, :, :4, :4].reshape(2, 2, 2, 2, 2, 2).mean((3, 5))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_symbolic_int64(run, rng, name):
    build, inputs, ref = CASES[name]
    out_t = build()
    assert all(d.dtype == "int64" for d in out_t.shape)
    arrays = [rng.standard_normal([2 if not hasattr(d, "value") else int(d.value)
                                   for d in t.shape]).astype("float32") for t in inputs]
    out = run(inputs, out_t, arrays, n=2)
    if ref is None:  # conv2d: compare with a direct float64 loop
        x, w = arrays
        xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
        expected = np.zeros((2, 3, 5, 5))
        for a in range(3):
            for b in range(3):
                expected += np.einsum("nchw,oc->nohw", xp[:, :, a:a + 5, b:b + 5], w[:, :, a, b])
    else:
        expected = ref(*arrays)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


H = te.var("h", "int64")


def test_symbolic_spatial_conv_and_pool(run, rng):
    x = rng.standard_normal((1, 2, 5, 5)).astype("float32")
    X = te.placeholder(_i64(1, 2) + (H,) + _i64(5), name="X")
    P = topi.nn.pool2d(X, 2, 2, 1, 0, "max", ceil_mode=True)
    out = run([X], P, [x], h=5)
    xp = np.pad(x, [(0, 0), (0, 0), (0, 1), (0, 1)], constant_values=-np.inf)
    np.testing.assert_array_equal(out, xp.reshape(1, 2, 3, 2, 3, 2).max((3, 5)))
    w = rng.standard_normal((3, 2, 3, 3)).astype("float32")
    out = run([X, W], topi.nn.conv2d(X, W, 2, 1, 1), [x, w], h=5)
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    expected = np.zeros((1, 3, 3, 3))
    for a in range(3):
        for b in range(3):
            expected += np.einsum("nchw,oc->nohw", xp[:, :, a:a + 5:2, b:b + 5:2], w[:, :, a, b])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["softmax", "layer_norm", "gelu", "sum"])
def test_float16(run, rng, name):
    a = rng.uniform(-1, 1, (3, 5)).astype("float16")
    A = te.placeholder((3, 5), "float16", name="A")
    build = {"softmax": lambda: topi.nn.softmax(A), "gelu": lambda: topi.nn.gelu(A),
             "layer_norm": lambda: topi.nn.layer_norm(A, None, None, [1]),
             "sum": lambda: topi.sum(A, 1)}[name]
    v = a.astype("float64")
    ref = {"softmax": lambda: np.exp(v) / np.exp(v).sum(1, keepdims=True),
           "gelu": lambda: 0.5 * v * (1 + np.vectorize(math.erf)(v / np.sqrt(2))),
           "layer_norm": lambda: (v - v.mean(1, keepdims=True)) /
           np.sqrt(v.var(1, keepdims=True) + 1e-5),
           "sum": lambda: v.sum(1)}[name]
    out = run([A], build(), [a])
    assert out.dtype == np.float16
    np.testing.assert_allclose(out, ref(), rtol=1e-2, atol=1e-2)
