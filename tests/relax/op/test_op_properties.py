"""Property tests: inferred shapes agree with NumPy's, and the evaluator with NumPy's values."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tvm import relax
from tvm.relax import op
from tvm.relax.testing import evaluate

SETTINGS = settings(max_examples=25, deadline=None)
dims = st.lists(st.integers(1, 3), min_size=0, max_size=3)


def _run(build, arrays):
    params = [
        relax.Var(f"p{i}", relax.TensorType(list(a.shape), str(a.dtype)))
        for i, a in enumerate(arrays)
    ]
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        out = bb.emit(build(*params))
        bb.emit_func_output(out)
    return out.ty, evaluate(bb.get(), *arrays)


def _shape(ty):
    return tuple(int(v.value) for v in ty.shape.values)


@SETTINGS
@given(dims, dims, st.sampled_from(["add", "subtract", "multiply", "maximum", "less"]))
def test_binary_broadcasting(lhs, rhs, name):
    lhs = [d if i % 2 else 1 for i, d in enumerate(lhs)]  # plenty of size-1 dims
    rng = np.random.default_rng(len(lhs) * 7 + len(rhs))
    a = rng.uniform(-1, 1, lhs).astype("float32")
    b = rng.uniform(-1, 1, rhs).astype("float32")
    try:
        expected = getattr(np, name)(a, b)
    except ValueError:
        return  # not broadcastable: covered by the error rows of the case tables
    ty, out = _run(getattr(op, name), [a, b])
    assert _shape(ty) == expected.shape
    np.testing.assert_allclose(out, expected)


@SETTINGS
@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=4),
    st.data(),
    st.sampled_from(["sum", "mean", "max", "min", "prod"]),
    st.booleans(),
)
def test_reductions(shape, data, name, keepdims):
    ndim = len(shape)
    axes = data.draw(
        st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda a: a % ndim, max_size=ndim)
    )
    x = np.random.default_rng(ndim).uniform(0.5, 1.5, shape).astype("float32")
    ty, out = _run(lambda p: getattr(op, name)(p, axes or None, keepdims), [x])
    expected = getattr(np, name)(x, axis=tuple(axes) or None, keepdims=keepdims)
    assert _shape(ty) == np.shape(expected)
    np.testing.assert_allclose(out, expected, rtol=1e-5)


@SETTINGS
@given(st.lists(st.integers(1, 3), min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_permute_dims_and_flatten(shape, rnd):
    axes = list(range(len(shape)))
    rnd.shuffle(axes)
    x = np.arange(int(np.prod(shape)), dtype="float32").reshape(shape)
    ty, out = _run(lambda p: op.flatten(op.permute_dims(p, axes)), [x])
    np.testing.assert_array_equal(out, np.transpose(x, axes).ravel())
    assert _shape(ty) == (x.size,)


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 4))
def test_split_matches_tvm_sections(n, sections):
    x = np.arange(2 * n, dtype="float32").reshape(2, n)
    ty, out = _run(lambda p: op.split(p, sections, 1), [x])
    size = -(-n // sections)
    expected = np.split(x, [min(size * i, n) for i in range(1, sections)], axis=1)
    assert [_shape(f) for f in ty.fields] == [e.shape for e in expected]
    for got, want in zip(out, expected):
        np.testing.assert_array_equal(got, want)
