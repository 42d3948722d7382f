"""Indexing computes (take, strided_slice, where, gather, scatter_elements) against NumPy."""

import numpy as np
import pytest

from tvm import te, topi


@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("mode", ["clip", "wrap", "fast"])
def test_take(run, rng, axis, mode):
    a = rng.standard_normal((3, 5)).astype("float32")
    n = a.size if axis is None else a.shape[axis]
    idx = np.array([[0, 2], [1, n - 1], [2, 0]], "int64")
    if mode != "fast":
        idx[0, 0], idx[2, 1] = -1, n + 1  # out of range: clipped or wrapped
    A = te.placeholder((3, 5), name="A")
    indices = te.placeholder(idx.shape, "int64", name="I")
    out = run([A, indices], topi.take(A, indices, axis=axis, mode=mode), [a, idx])
    np.testing.assert_array_equal(out, np.take(a, idx, axis=axis,
                                               mode="wrap" if mode == "wrap" else "clip"))


def test_take_bad_mode():
    A = te.placeholder((3,), name="A")
    indices = te.placeholder((2,), "int32", name="I")
    with pytest.raises(ValueError, match="mode"):
        topi.take(A, indices, axis=0, mode="bogus")


@pytest.mark.parametrize("begin, end, strides, axes", [
    ([1, 0], [3, 5], None, None),
    ([0, 1], [5, 4], [2, 2], None),
    ([-1], [-6], [-2], [1]),
    ([4], [1], [-1], [1]),
    ([-2, 1], [100, 3], [1, 1], [0, 1]),
])
def test_strided_slice(run, rng, begin, end, strides, axes):
    a = rng.standard_normal((3, 5)).astype("float32")
    A = te.placeholder((3, 5), name="A")
    out = run([A], topi.strided_slice(A, begin, end, strides, axes), [a])
    index = [slice(None)] * 2
    for k, ax in enumerate(axes or range(len(begin))):
        index[ax] = slice(begin[k], end[k], (strides or [1] * len(begin))[k])
    np.testing.assert_array_equal(out, a[tuple(index)])


def test_strided_slice_symbolic(run, rng):
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = topi.strided_slice(A, [1], [n], [1], axes=[0])
    a = rng.standard_normal((5, 4)).astype("float32")
    np.testing.assert_array_equal(run([A], B, [a], n=5)[:4], a[1:])


def test_where(run, rng):
    c = rng.standard_normal((3, 1)) > 0
    x = rng.standard_normal((1, 5)).astype("float32")
    y = rng.standard_normal((3, 5)).astype("float32")
    C = te.placeholder((3, 1), "bool", name="C")
    X = te.placeholder((1, 5), name="X")
    Y = te.placeholder((3, 5), name="Y")
    np.testing.assert_array_equal(run([C, X, Y], topi.where(C, X, Y), [c, x, y]),
                                  np.where(c, x, y))
    np.testing.assert_array_equal(run([C, Y], topi.where(C, Y, 0.5), [c, y]),
                                  np.where(c, y, np.float32(0.5)))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_gather(run, rng, axis):
    a = rng.standard_normal((3, 5)).astype("float32")
    n = a.shape[axis]
    idx = rng.integers(-n, n, size=(2, 4)).astype("int32")
    A = te.placeholder((3, 5), name="A")
    indices = te.placeholder((2, 4), "int32", name="I")
    out = run([A, indices], topi.gather(A, axis, indices), [a, idx])
    expected = np.empty(idx.shape, "float32")
    for pos in np.ndindex(*idx.shape):
        src = list(pos)
        src[axis] = idx[pos] % n
        expected[pos] = a[tuple(src)]
    np.testing.assert_array_equal(out, expected)
    out2 = run([A, indices], topi.gather_elements(A, indices, axis), [a, idx])
    np.testing.assert_array_equal(out2, out)


def _scatter_ref(data, indices, updates, axis, reduction):
    out = np.array(data)
    ops = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
    for pos in np.ndindex(*indices.shape):
        target = list(pos)
        i = indices[pos]
        target[axis] = i + data.shape[axis] if i < 0 else i
        target = tuple(target)
        if reduction == "update":
            out[target] = updates[pos]
        elif reduction == "mean":
            out[target] = (out[target] + updates[pos]) / 2
        else:
            out[target] = ops[reduction](out[target], updates[pos])
    return out


@pytest.mark.parametrize("reduction", ["update", "add", "mul", "max", "min", "mean"])
@pytest.mark.parametrize("axis", [0, 1])
def test_scatter_elements(run, rng, reduction, axis):
    data = rng.standard_normal((3, 5)).astype("float32")
    n = data.shape[axis]
    idx = rng.integers(-n, n, size=(2, 3)).astype("int64")
    upd = rng.standard_normal((2, 3)).astype("float32")
    D = te.placeholder((3, 5), name="D")
    indices = te.placeholder((2, 3), "int64", name="I")
    U = te.placeholder((2, 3), name="U")
    out = run([D, indices, U], topi.scatter_elements(D, indices, U, axis, reduction),
              [data, idx, upd])
    np.testing.assert_allclose(out, _scatter_ref(data, idx, upd, axis, reduction), rtol=1e-6)


def test_scatter_elements_bad_reduction():
    D = te.placeholder((3,), name="D")
    indices = te.placeholder((3,), "int32", name="I")
    with pytest.raises(ValueError, match="reduction must be one of"):
        topi.scatter_elements(D, indices, D, 0, "bogus")


def test_dynamic_strided_slice(run, rng):
    a = rng.standard_normal((4, 5)).astype("float32")
    begin, end, strides = (np.array(v, "int64") for v in ([1, -4], [4, 5], [2, 1]))
    A = te.placeholder((4, 5), name="A")
    B, E, S = (te.placeholder((2,), "int64", name=n) for n in "BES")
    out = run([A, B, E, S], topi.dynamic_strided_slice(A, B, E, S, (2, 4)),
              [a, begin, end, strides])
    np.testing.assert_array_equal(out, a[1:4:2, -4:5])
    with pytest.raises(ValueError, match="output_shape"):
        topi.dynamic_strided_slice(A, B, E, S, (2,))
