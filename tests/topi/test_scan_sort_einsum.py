"""cumsum/cumprod, sort/argsort/topk and einsum against NumPy."""

import numpy as np
import pytest

from tvm import te, topi


@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("exclusive", [False, True])
def test_cumsum_cumprod(run, rng, axis, exclusive):
    a = rng.uniform(0.5, 1.5, (3, 5)).astype("float32")
    A = te.placeholder((3, 5), name="A")
    for topi_fn, np_fn, identity in ((topi.cumsum, np.cumsum, 0), (topi.cumprod, np.cumprod, 1)):
        out = run([A], topi_fn(A, axis=axis, exclusive=exclusive), [a])
        data = a.reshape(-1) if axis is None else a
        ax = 0 if axis is None else axis
        expected = np_fn(data, axis=ax)
        if exclusive:
            first = np.full_like(np.take(expected, [0], axis=ax), identity)
            expected = np.concatenate([first, np.take(expected, range(data.shape[ax] - 1),
                                                      axis=ax)], axis=ax)
        np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_cumsum_dtype(run):
    a = np.array([[1, 2, 3]], "int32")
    A = te.placeholder((1, 3), "int32", name="A")
    out = run([A], topi.cumsum(A, axis=1, dtype="int64"), [a])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [[1, 3, 6]])


def _with_ties(rng, shape):
    return rng.integers(0, 3, shape).astype("float32")


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("ascend", [True, False])
def test_sort_argsort(run, rng, axis, ascend):
    a = _with_ties(rng, (3, 5))
    A = te.placeholder((3, 5), name="A")
    order = np.argsort(a if ascend else -a, axis=axis, kind="stable")
    idx = run([A], topi.argsort(A, axis=axis, is_ascend=ascend, dtype="int32"), [a])
    np.testing.assert_array_equal(idx, order)
    vals = run([A], topi.sort(A, axis=axis, is_ascend=ascend), [a])
    np.testing.assert_array_equal(vals, np.take_along_axis(a, order, axis))


@pytest.mark.parametrize("k, ascend, ret_type", [(2, False, "both"), (1, True, "both"),
                                                 (0, False, "values"), (3, False, "indices")])
def test_topk(run, rng, k, ascend, ret_type):
    a = _with_ties(rng, (3, 5))
    A = te.placeholder((3, 5), name="A")
    order = np.argsort(a if ascend else -a, axis=1, kind="stable")
    if k >= 1:
        order = order[:, :k]
    outs = run([A], topi.topk(A, k, axis=1, ret_type=ret_type, is_ascend=ascend), [a])
    if ret_type == "both":
        np.testing.assert_array_equal(outs[0], np.take_along_axis(a, order, 1))
        np.testing.assert_array_equal(outs[1], order)
        assert outs[1].dtype == np.int64
    elif ret_type == "values":
        np.testing.assert_array_equal(outs, np.take_along_axis(a, order, 1))
    else:
        np.testing.assert_array_equal(outs, order)


def test_topk_bad_ret_type():
    with pytest.raises(ValueError, match="ret_type"):
        topi.topk(te.placeholder((3,), name="A"), 1, ret_type="bogus")


@pytest.mark.parametrize("spec, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("bij,bjk->bik", [(2, 1, 3), (2, 3, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3), (3, 2)]),
    ("i,j->ij", [(3,), (2,)]),
    ("ij,ij->i", [(1, 3), (2, 3)]),
])
def test_einsum(run, rng, spec, shapes):
    arrays = [rng.standard_normal(s).astype("float32") for s in shapes]
    ts = [te.placeholder(s, name=f"A{k}") for k, s in enumerate(shapes)]
    out = run(ts, topi.einsum(spec, *ts), arrays)
    np.testing.assert_allclose(out, np.einsum(spec, *arrays), rtol=1e-5, atol=1e-6)


def test_einsum_errors():
    A = te.placeholder((2, 3), name="A")
    with pytest.raises(ValueError, match="names 2 operands"):
        topi.einsum("ij,jk->ik", A)
    with pytest.raises(ValueError, match="labels"):
        topi.einsum("ijk->i", A)
    with pytest.raises(ValueError, match="not in any input"):
        topi.einsum("ij->z", A)
