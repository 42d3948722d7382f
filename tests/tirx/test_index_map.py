"""``tvm.tirx.IndexMap``: construction, printing, mapping, shapes, tensors and inversion."""

import itertools

import numpy as np
import pytest

import tvm
from tvm import tirx
from tvm.ir import assert_structural_equal, structural_equal

IndexMap = tirx.IndexMap


def _ints(exprs):
    return [int(e.value) for e in exprs]


def test_from_func_names_and_dtype():
    m = IndexMap.from_func(lambda i, j: (j, i))
    assert [v.name for v in m.initial_indices] == ["i", "j"]
    assert all(v.dtype == "int64" for v in m.initial_indices)
    assert m.final_indices[0] is m.initial_indices[1]
    assert m.inverse_index_map is None
    m32 = IndexMap.from_func(lambda i: i, index_dtype="int32")
    assert m32.initial_indices[0].dtype == "int32"
    assert len(m32.final_indices) == 1  # a single expression becomes a 1-tuple


def test_from_func_varargs_needs_ndim():
    m = IndexMap.from_func(lambda *a: a[::-1], ndim=3)
    assert [v.name for v in m.initial_indices] == ["a_0", "a_1", "a_2"]
    with pytest.raises(ValueError, match="needs ndim"):
        IndexMap.from_func(lambda *a: a)
    with pytest.raises(ValueError, match="ndim=3 does not match"):
        IndexMap.from_func(lambda i, j: (j, i), ndim=3)
    with pytest.raises(TypeError, match="expects a callable"):
        IndexMap.from_func("i -> i")


def test_constructor_checks():
    i = tirx.Var("i", "int64")
    m = IndexMap([i], [i // 2, 0])
    assert isinstance(m.final_indices[1], tirx.IntImm)
    assert m.final_indices[1].dtype == "int64"
    with pytest.raises(TypeError, match="initial_indices must be tirx.Var"):
        IndexMap([1], [i])
    with pytest.raises(TypeError, match="an index must be an int or a PrimExpr"):
        IndexMap([i], ["i"])


def test_print_as_tvm():
    assert str(IndexMap.from_func(lambda i, j: (j, i))) == "T.index_map(lambda i, j: (j, i))"
    split = IndexMap.from_func(lambda i: (i // 4, i % 4))
    assert str(split) == "T.index_map(lambda i: (i // T.int64(4), i % T.int64(4)))"
    assert repr(split) == str(split)
    star = IndexMap.from_func(lambda *a: a, ndim=2)
    assert str(star) == "T.index_map(lambda a_0, a_1: (a_0, a_1))"


def test_structural_equality():
    a = IndexMap.from_func(lambda i, j: (j, i))
    b = IndexMap.from_func(lambda x, y: (y, x))
    assert_structural_equal(a, b)
    assert not structural_equal(a, IndexMap.from_func(lambda i, j: (i, j)))


def test_map_indices():
    m = IndexMap.from_func(lambda i, j: (j, i // 2, i % 2))
    assert _ints(m.map_indices([5, 7])) == [7, 2, 1]
    n = tirx.Var("n", "int64")
    out = m.map_indices([n * 2, 3])
    assert int(out[0].value) == 3
    assert tvm.arith.Analyzer().can_prove_equal(out[1], n)
    with pytest.raises(ValueError, match="indices has 1 element"):
        m.map_indices([1])


@pytest.mark.parametrize("func, shape, expected", [
    (lambda i, j: (j, i), [3, 4], [4, 3]),
    (lambda i: (i // 4, i % 4), [12], [3, 4]),
    (lambda i: (i // 4, i % 4), [10], [3, 4]),  # padded
    (lambda i, j: (i * 4 + j,), [3, 4], [12]),
    (lambda n, c, h, w: (n, c // 4, h, w, c % 4), [2, 8, 3, 3], [2, 2, 3, 3, 4]),
])
def test_map_shape(func, shape, expected):
    assert _ints(IndexMap.from_func(func).map_shape(shape)) == expected


def test_map_shape_symbolic():
    n = tirx.Var("n", "int64")
    out = IndexMap.from_func(lambda i: (i // 4, i % 4)).map_shape([n])
    ana = tvm.arith.Analyzer()
    for size in range(1, 14):
        dim = ana.simplify(tvm.tirx.stmt_functor.substitute(out[0], {n: size}))
        assert int(dim.value) == -(-size // 4)  # ceil(n / 4)
    assert int(out[1].value) == 4
    assert str(out[0]) == "(n + T.int64(3)) // T.int64(4)"
    out = IndexMap.from_func(lambda i, j: (j, i)).map_shape([n, 5])
    assert out[1] is n or ana.can_prove_equal(out[1], n)


def test_map_tensor_numpy_and_runtime():
    split = IndexMap.from_func(lambda i: (i // 4, i % 4))
    x = np.arange(10, dtype="float32")
    out = split.map_tensor(x, pad_value=-1)
    expected = np.concatenate([x, [-1, -1]]).reshape(3, 4)
    np.testing.assert_array_equal(out, expected)
    nchwc = IndexMap.from_func(lambda n, c, h, w: (n, c // 4, h, w, c % 4))
    y = np.arange(2 * 8 * 3 * 3, dtype="int32").reshape(2, 8, 3, 3)
    ref = y.reshape(2, 2, 4, 3, 3).transpose(0, 1, 3, 4, 2)
    np.testing.assert_array_equal(nchwc.map_tensor(y), ref)
    rt = nchwc.map_tensor(tvm.runtime.tensor(y))
    assert isinstance(rt, tvm.runtime.Tensor)
    np.testing.assert_array_equal(rt.numpy(), ref)


def test_is_equivalent_to():
    a = IndexMap.from_func(lambda i: (i // 4, i % 4))
    assert a.is_equivalent_to(IndexMap.from_func(lambda k: (k // 4, k - k // 4 * 4)))
    assert not a.is_equivalent_to(IndexMap.from_func(lambda k: (k // 2, k % 2)))
    assert not a.is_equivalent_to(IndexMap.from_func(lambda k, m: (k, m)))
    assert not a.is_equivalent_to("not a map")


def _roundtrip(fwd, inv, shape):
    """Every input index comes back through ``inv``."""
    for pos in itertools.product(*(range(s) for s in shape)):
        assert _ints(inv.map_indices(fwd.map_indices(list(pos)))) == list(pos)


@pytest.mark.parametrize("func, shape, printed", [
    (lambda i, j: (j, i), [3, 4], "T.index_map(lambda axis0, axis1: (axis1, axis0))"),
    (lambda i: (i // 4, i % 4), [12],
     "T.index_map(lambda axis0, axis1: (axis0 * T.int64(4) + axis1,))"),
    (lambda i, j: (i * 4 + j,), [3, 4],
     "T.index_map(lambda axis0: (axis0 // T.int64(4), axis0 % T.int64(4)))"),
    (lambda n, c, h, w: (n, c // 4, h, w, c % 4), [2, 8, 2, 2], None),
    (lambda i, j: (j // 2, i, j % 2), [3, 6], None),
])
def test_inverse(func, shape, printed):
    fwd = IndexMap.from_func(func)
    inv = fwd.inverse(shape)
    if printed is not None:
        assert str(inv) == printed
    _roundtrip(fwd, inv, shape)


def test_inverse_given():
    given = IndexMap.from_func(lambda a, b: (b, a))
    m = IndexMap.from_func(lambda i, j: (j, i), inverse_index_map=given)
    assert m.inverse([2, 3]) is given
    from_callable = IndexMap.from_func(lambda i, j: (j, i), inverse_index_map=lambda a, b: (b, a))
    assert isinstance(from_callable.inverse_index_map, IndexMap)


def test_inverse_padded_and_non_surjective_inverse():
    split = IndexMap.from_func(lambda i: (i // 4, i % 4))
    with pytest.raises(ValueError, match="not surjective.*non_surjective_inverse"):
        split.inverse([10])
    inv, pred = split.non_surjective_inverse([10])
    _roundtrip(split, inv, [10])
    # The predicate is true exactly at the two padding positions (2, 2) and (2, 3).
    ana = tvm.arith.Analyzer()
    a0, a1 = inv.initial_indices
    for p, q in itertools.product(range(3), range(4)):
        value = ana.simplify(tvm.tirx.stmt_functor.substitute(pred, {a0: p, a1: q}))
        assert bool(value.value) == (p * 4 + q >= 10)
    _, none = IndexMap.from_func(lambda i, j: (j, i)).non_surjective_inverse([2, 3])
    assert none.dtype == "bool" and not none.value


@pytest.mark.parametrize("func, words", [
    (lambda i, j: (i + j,), "not a mixed-radix sum"),
    (lambda i: (i * 2,), "skips values"),
    (lambda i, j: (i,), "j does not appear"),
    (lambda i: (i // 4, i // 2), "overlap or leave gaps"),
    (lambda i, j: (i * j,), "not a sum of splits"),
])
def test_inverse_rejects(func, words):
    with pytest.raises(ValueError, match=words):
        IndexMap.from_func(func).inverse([4, 4][: len(IndexMap.from_func(func).initial_indices)])
