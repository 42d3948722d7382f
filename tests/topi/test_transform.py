"""Shape manipulation, indexing and creation computes against NumPy."""

import numpy as np
import pytest

from tvm import te, topi


def _ph(shape, dtype="float32", name="A"):
    return te.placeholder(shape, dtype, name=name)


@pytest.mark.parametrize("newshape", [(5, 3), (15,), (-1, 5), (3, 1, 5)])
def test_reshape(run, rng, newshape):
    a = rng.standard_normal((3, 5)).astype("float32")
    A = _ph((3, 5))
    out = run([A], topi.reshape(A, newshape), [a])
    np.testing.assert_array_equal(out, a.reshape(newshape))


def test_reshape_errors():
    A = _ph((3, 5))
    with pytest.raises(ValueError, match="cannot reshape"):
        topi.reshape(A, (4, 4))
    with pytest.raises(ValueError, match="at most one -1"):
        topi.reshape(A, (-1, -1))


def test_reshape_symbolic(run, rng):
    n = te.var("n")
    A = te.placeholder((n, 3), name="A")
    B = topi.reshape(A, (3, n))
    a = rng.standard_normal((5, 3)).astype("float32")
    np.testing.assert_array_equal(run([A], B, [a], n=5), a.reshape(3, 5))


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (-1, 0, 1)])
def test_transpose(run, rng, axes):
    a = rng.standard_normal((1, 3, 5)).astype("float32")
    A = _ph((1, 3, 5))
    np.testing.assert_array_equal(run([A], topi.transpose(A, axes), [a]),
                                  np.transpose(a, axes))


def test_transpose_bad_axes():
    with pytest.raises(ValueError, match="permutation"):
        topi.transpose(_ph((2, 3)), (0, 0))


def test_expand_dims_and_squeeze(run, rng):
    a = rng.standard_normal((3, 5)).astype("float32")
    A = _ph((3, 5))
    np.testing.assert_array_equal(run([A], topi.expand_dims(A, 1, 2), [a]),
                                  a[:, None, None, :])
    np.testing.assert_array_equal(run([A], topi.expand_dims(A, [0, 3]), [a]),
                                  np.expand_dims(a, (0, 3)))
    B = _ph((1, 3, 1, 5), name="B")
    b = rng.standard_normal((1, 3, 1, 5)).astype("float32")
    np.testing.assert_array_equal(run([B], topi.squeeze(B), [b]), b.squeeze())
    np.testing.assert_array_equal(run([B], topi.squeeze(B, [2]), [b]), b.squeeze(2))
    # As Relax: a listed axis whose extent is not 1 is kept.
    np.testing.assert_array_equal(run([B], topi.squeeze(B, [1, 2]), [b]), b.squeeze(2))


def test_flatten(run, rng):
    a = rng.standard_normal((3, 1, 5)).astype("float32")
    A = _ph((3, 1, 5))
    np.testing.assert_array_equal(run([A], topi.flatten(A), [a]), a.reshape(-1))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concatenate(run, rng, axis):
    shapes = [(3, 5), (3, 5), (3, 5)]
    shapes = [tuple(s if d != axis % 2 else k + 1 for d, s in enumerate(sh))
              for k, sh in enumerate(shapes)]
    arrays = [rng.standard_normal(s).astype("float32") for s in shapes]
    ts = [_ph(s, name=f"A{k}") for k, s in enumerate(shapes)]
    out = run(ts, topi.concatenate(ts, axis), arrays)
    np.testing.assert_array_equal(out, np.concatenate(arrays, axis))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack(run, rng, axis):
    arrays = [rng.standard_normal((3, 5)).astype("float32") for _ in range(3)]
    ts = [_ph((3, 5), name=f"A{k}") for k in range(3)]
    np.testing.assert_array_equal(run(ts, topi.stack(ts, axis), arrays),
                                  np.stack(arrays, axis))


@pytest.mark.parametrize("sections, expected", [(3, [(0, 3), (3, 6), (6, 7)]),
                                                ([2, 5], [(0, 2), (2, 5), (5, 7)])])
def test_split(run, rng, sections, expected):
    a = rng.standard_normal((3, 7)).astype("float32")
    A = _ph((3, 7))
    outs = topi.split(A, sections, axis=1)
    results = run([A], outs, [a])
    assert len(results) == len(expected)
    for got, (s, e) in zip(results, expected):
        np.testing.assert_array_equal(got, a[:, s:e])


def test_broadcast_to(run, rng):
    a = rng.standard_normal((3, 1)).astype("float32")
    A = _ph((3, 1))
    np.testing.assert_array_equal(run([A], topi.broadcast_to(A, (5, 3, 4)), [a]),
                                  np.broadcast_to(a, (5, 3, 4)))
    with pytest.raises(ValueError, match="do not broadcast"):
        topi.broadcast_to(A, (3, 2, 5))


@pytest.mark.parametrize("axis", [0, 1, None])
def test_repeat(run, rng, axis):
    a = rng.standard_normal((3, 5)).astype("float32")
    A = _ph((3, 5))
    np.testing.assert_array_equal(run([A], topi.repeat(A, 2, axis), [a]),
                                  np.repeat(a, 2, axis))


@pytest.mark.parametrize("reps", [(2, 1), (1, 3), (2, 1, 2)])
def test_tile(run, rng, reps):
    a = rng.standard_normal((3, 5)).astype("float32")
    A = _ph((3, 5))
    np.testing.assert_array_equal(run([A], topi.tile(A, reps), [a]), np.tile(a, reps))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_flip(run, rng, axis):
    a = rng.standard_normal((3, 5)).astype("float32")
    A = _ph((3, 5))
    np.testing.assert_array_equal(run([A], topi.flip(A, axis), [a]), np.flip(a, axis))


@pytest.mark.parametrize("target", [(5,), (1, 5), (3, 1), (1, 1)])
def test_collapse_sum(run, rng, target):
    a = rng.standard_normal((2, 3, 5)).astype("float32")
    A = _ph((2, 3, 5))
    lead = 3 - len(target)
    axes = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(target) if s == 1)
    expected = a.sum(axis=axes, keepdims=True).reshape(target)
    np.testing.assert_allclose(run([A], topi.collapse_sum(A, target), [a]), expected,
                               rtol=1e-5)


def test_layout_transform(run, rng):
    a = rng.standard_normal((1, 2, 3, 5)).astype("float32")
    A = _ph((1, 2, 3, 5))
    np.testing.assert_array_equal(run([A], topi.layout_transform(A, "NCHW", "NHWC"), [a]),
                                  a.transpose(0, 2, 3, 1))
    with pytest.raises(ValueError, match="split layouts"):
        topi.layout_transform(A, "NCHW", "NCHW4c")


def test_layout_transform_index_map(run, rng):
    a = rng.standard_normal((1, 8, 3, 2)).astype("float32")
    A = _ph((1, 8, 3, 2))
    out = run([A], topi.layout_transform_index_map(
        A, lambda n, c, h, w: (n, c // 4, h, w, c % 4)), [a])
    np.testing.assert_array_equal(out, a.reshape(1, 2, 4, 3, 2).transpose(0, 1, 3, 4, 2))
    out = run([A], topi.layout_transform_index_map(A, lambda n, c, h, w: (n, h, w, c)), [a])
    np.testing.assert_array_equal(out, a.transpose(0, 2, 3, 1))
    # 8 channels split by 3: the last block is padded.
    out = run([A], topi.layout_transform_index_map(
        A, lambda n, c, h, w: (n, c // 3, h, w, c % 3), pad_value=-1.0), [a])
    padded = np.concatenate([a, np.full((1, 1, 3, 2), -1.0, "float32")], axis=1)
    np.testing.assert_array_equal(out, padded.reshape(1, 3, 3, 3, 2).transpose(0, 1, 3, 4, 2))
    with pytest.raises(ValueError, match="not supported"):
        topi.layout_transform_index_map(A, lambda n, c, h, w: (n, c + h, w))
