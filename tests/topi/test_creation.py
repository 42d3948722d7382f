"""Creation computes (full, arange, eye, tril/triu, one_hot) against NumPy."""

import numpy as np
import pytest

from tvm import te, topi


def test_full_zeros_ones(run):
    np.testing.assert_array_equal(run([], topi.full((3, 5), "int32", 7), []),
                                  np.full((3, 5), 7, "int32"))
    np.testing.assert_array_equal(run([], topi.zeros((2,)), []), np.zeros(2, "float32"))
    np.testing.assert_array_equal(run([], topi.ones((1, 3), "float16"), []),
                                  np.ones((1, 3), "float16"))
    A = te.placeholder((3,), "float32", name="A")
    np.testing.assert_array_equal(run([A], topi.full_like(A, 2.5), [np.zeros(3, "float32")]),
                                  np.full(3, 2.5, "float32"))


@pytest.mark.parametrize("args, dtype", [((5,), "int64"), ((1, 7, 2), "int32"),
                                         ((0.5, 2.0, 0.25), "float32"), ((5, 0, -2), "int64")])
def test_arange(run, args, dtype):
    np.testing.assert_array_equal(run([], topi.arange(*args, dtype=dtype), []),
                                  np.arange(*args).astype(dtype))


@pytest.mark.parametrize("n, m, k", [(3, None, 0), (3, 5, 1), (4, 3, -1)])
def test_eye(run, n, m, k):
    np.testing.assert_array_equal(run([], topi.eye(n, m, k), []),
                                  np.eye(n, m, k, dtype="float32"))


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_tril_triu(run, rng, k):
    a = rng.standard_normal((2, 3, 5)).astype("float32")
    A = te.placeholder((2, 3, 5), name="A")
    np.testing.assert_array_equal(run([A], topi.tril(A, k), [a]), np.tril(a, k))
    np.testing.assert_array_equal(run([A], topi.triu(A, k), [a]), np.triu(a, k))
    np.testing.assert_array_equal(run([A], topi.trilu(A, k, True), [a]), np.triu(a, k))


def test_trilu_rank_error():
    with pytest.raises(ValueError, match="at least 2"):
        topi.trilu(te.placeholder((3,), name="A"), 0, True)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(run, axis):
    idx = np.array([[0, 2, 1], [3, 1, 0]], "int32")
    I = te.placeholder((2, 3), "int32", name="I")
    out = run([I], topi.one_hot(I, 1.0, 0.0, 4, axis, "float32"), [idx])
    hot = np.eye(4, dtype="float32")[idx]  # one-hot on the last axis
    np.testing.assert_array_equal(out, np.moveaxis(hot, -1, axis))


def test_full_from_tensor(run):
    F = te.placeholder((), "float64", name="F")
    out = run([F], topi.full((2, 3), "float32", F), [np.array(2.5)])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.full((2, 3), 2.5, "float32"))
    with pytest.raises(ValueError, match="0-D"):
        topi.full((2,), "float32", te.placeholder((1,), name="G"))
