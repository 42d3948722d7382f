"""The fast structural walks agree with the path-carrying reference walk.

``structural_equal`` and ``structural_hash`` first try a recursive walk that only answers
True/False (``_eq``, ``_hash_rec``); trees deeper than ``_MAX_DEPTH`` go to the iterative walks
(``_Equal``, ``_hash_iter``), which also locate mismatches. These tests draw random pairs of
values (nodes with DEF/IGNORE fields and variables, tuples and lists, dicts, leaves of mixed
Python types) and check that every route gives the same answer.
"""

import contextlib
import sys

import numpy as np
import pytest
import tvm_ffi
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tvm.ffi import DEF, IGNORE, Node, field, structural
from tvm.ffi.structural import (
    get_first_structural_mismatch,
    structural_equal,
    structural_hash,
)


class Var(Node, type_key="test_structural_fast.Var"):
    _sequal_kind = "var"
    name: str = field(default="v", role=IGNORE)
    ty: object = None  # may hold other variables: they are defined with this one


class Leaf(Node, type_key="test_structural_fast.Leaf"):
    value: object


class Pair(Node, type_key="test_structural_fast.Pair"):
    a: object
    b: object


class Bind(Node, type_key="test_structural_fast.Bind"):
    var: object = field(role=DEF)
    value: object
    body: object


class Fn(Node, type_key="test_structural_fast.Fn"):
    params: tuple = field(role=DEF)
    body: object
    span: object = field(default=None, role=IGNORE, kw_only=True)


# Leaves and, for each, values of other Python types that compare equal to it.
LEAVES = [
    (0, [0.0, np.int64(0)]),
    (1, [1.0, np.int32(1)]),
    (2.5, [np.float32(2.5), np.float64(2.5)]),
    (float("nan"), [np.float64("nan"), np.float32("nan")]),
    (True, []),
    (None, []),
    ("float32", [tvm_ffi.dtype("float32")]),
    ("x", []),
    (np.arange(3), []),
]


def gen_value(data, scope, depth):
    """A random value using the variables of ``scope``; may define new ones."""
    kinds = ["leaf"] + (["var"] * 2 if scope else [])
    if depth > 0:
        kinds += ["pair", "pair", "bind", "fn", "tuple", "list", "dict", "leafnode"]
    kind = data.draw(st.sampled_from(kinds))
    if kind == "leaf":
        return LEAVES[data.draw(st.integers(0, len(LEAVES) - 1))][0]
    if kind == "var":
        return data.draw(st.sampled_from(scope))
    if kind == "leafnode":
        return Leaf(gen_value(data, scope, 0))
    if kind == "pair":
        return Pair(gen_value(data, scope, depth - 1), gen_value(data, scope, depth - 1))
    if kind == "bind":
        ty = gen_value(data, scope, 0) if data.draw(st.booleans()) else None
        var = Var("b", ty)
        value = gen_value(data, scope, depth - 1)
        return Bind(var, value, gen_value(data, scope + [var], depth - 1))
    if kind == "fn":
        params = tuple(Var(f"p{i}") for i in range(data.draw(st.integers(0, 2))))
        return Fn(params, gen_value(data, scope + list(params), depth - 1))
    if kind == "dict":
        keys = data.draw(st.lists(st.sampled_from(["k1", "k2", "k3"]), max_size=3, unique=True))
        return {key: gen_value(data, scope, depth - 1) for key in keys}
    items = [gen_value(data, scope, depth - 1) for _ in range(data.draw(st.integers(0, 3)))]
    return tuple(items) if kind == "tuple" else items


def mutate(data, value, var_map, rate):
    """A copy of ``value``: bound variables renamed, and with probability ``rate`` per place
    something changed (a leaf swapped for an equal one of another type or for a different
    one, a tuple turned into a list or shortened, a dict key dropped or renamed, a variable
    use replaced, a variable defined again, fields swapped)."""
    change = data.draw(st.floats(0, 1)) < rate
    if isinstance(value, Var):
        if change and var_map:
            return data.draw(st.sampled_from(sorted(var_map.values(), key=id)))
        return var_map.get(value, value)
    if isinstance(value, Leaf):
        return Leaf(mutate(data, value.value, var_map, rate))
    if isinstance(value, Pair):
        if change:
            return Pair(mutate(data, value.b, var_map, rate), mutate(data, value.a, var_map, rate))
        return Pair(mutate(data, value.a, var_map, rate), mutate(data, value.b, var_map, rate))
    if isinstance(value, Bind):
        ty = mutate(data, value.var.ty, var_map, rate)
        new_var = value.var if change else Var("renamed", ty)
        val = mutate(data, value.value, var_map, rate)
        body = mutate(data, value.body, {**var_map, value.var: new_var}, rate)
        return Bind(new_var, val, body)
    if isinstance(value, Fn):
        params = tuple(Var("q") for _ in value.params)
        inner = {**var_map, **dict(zip(value.params, params))}
        return Fn(params, mutate(data, value.body, inner, rate), span="elsewhere")
    if isinstance(value, dict):
        out = {k: mutate(data, v, var_map, rate) for k, v in value.items()}
        if change and out:
            key = next(iter(out))
            moved = out.pop(key)
            if data.draw(st.booleans()):  # renamed rather than dropped
                out[key + "_renamed"] = moved
        return dict(reversed(out.items()))  # order does not matter
    if isinstance(value, (tuple, list)):
        items = [mutate(data, v, var_map, rate) for v in value]
        if change:
            if items and data.draw(st.booleans()):
                return type(value)(items[:-1])  # one item shorter
            return tuple(items) if isinstance(value, list) else items
        return type(value)(items)
    for leaf, equal_ones in LEAVES:
        if structural._leaf_equal(leaf, value, False) and type(leaf) is type(value):
            if change:
                unequal = [different(leaf)] * max(2, len(equal_ones)) + ["other"]
                return data.draw(st.sampled_from(equal_ones + unequal))
            return leaf
    return value


def different(leaf):
    """A leaf unequal to ``leaf``, of the same Python type where it has other values."""
    if isinstance(leaf, bool):
        return not leaf
    if leaf is None:
        return 0
    if isinstance(leaf, np.ndarray):
        return np.arange(4)
    if isinstance(leaf, str):
        return leaf + "_"
    return leaf + 1  # NaN + 1 is NaN again, still equal: harmless


def random_pair(data, rate=None, rename_free=None):
    params = [Var(f"arg{i}") for i in range(data.draw(st.integers(0, 2)))]
    lhs = gen_value(data, params, data.draw(st.integers(0, 4)))
    if rate is None:
        rate = data.draw(st.sampled_from([0.0, 0.02, 0.05, 0.3]))
    # Renamed free variables: equal only with map_free_vars=True.
    if rename_free is None:
        rename_free = data.draw(st.booleans())
    free_map = {p: Var("free") for p in params} if rename_free else {}
    return lhs, mutate(data, lhs, free_map, rate)


def reference_equal(lhs, rhs, **kwargs):
    return structural._Equal(**kwargs).run(lhs, rhs)


def reference_paths(lhs, rhs, **kwargs):
    """The first mismatch as the iterative reference walk reports it (None when equal)."""
    walk = structural._Equal(**kwargs)
    if walk.run(lhs, rhs):
        return None
    return tuple(structural.format_path(path) for path in walk.mismatch)


def reported_paths(lhs, rhs, **kwargs):
    paths = structural.first_mismatch_paths(lhs, rhs, **kwargs)
    return None if paths is None else tuple(structural.format_path(path) for path in paths)


def iterative_hash(value, **kwargs):
    """``structural_hash`` through the iterative walk only."""
    tokens = []
    state = structural._hash_state(
        kwargs.get("map_free_vars", False), kwargs.get("skip_tensor_content", False), tokens.append
    )
    structural._hash_iter(value, state)
    return hash(tuple(tokens)) & structural._MASK64


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FLAGS = [{}, {"map_free_vars": True}, {"skip_tensor_content": True}]


@SETTINGS
@given(st.data())
def test_fast_equal_agrees_with_reference_walk(data):
    lhs, rhs = random_pair(data)
    for flags in FLAGS:
        expected = reference_equal(lhs, rhs, **flags)
        assert structural_equal(lhs, rhs, **flags) == expected
        assert structural_equal(rhs, lhs, **flags) == reference_equal(rhs, lhs, **flags)
        mismatch = get_first_structural_mismatch(lhs, rhs, **flags)
        assert (mismatch is None) == expected
        assert reported_paths(lhs, rhs, **flags) == reference_paths(lhs, rhs, **flags)


@SETTINGS
@given(st.data())
def test_equal_values_hash_alike_on_both_walks(data):
    lhs, rhs = random_pair(data)
    for flags in FLAGS:
        fast = structural_hash(lhs, **flags)
        assert fast == iterative_hash(lhs, **flags)  # same tokens whichever walk runs
        if structural_equal(lhs, rhs, **flags):
            assert fast == structural_hash(rhs, **flags)


@SETTINGS
@given(st.data())
def test_alpha_renamed_copies_are_equal(data):
    lhs, rhs = random_pair(data, rate=0.0, rename_free=False)
    assert structural_equal(lhs, rhs)
    assert structural_hash(lhs) == structural_hash(rhs)
    assert get_first_structural_mismatch(lhs, rhs) is None


@contextlib.contextmanager
def max_depth(value):
    saved, structural._MAX_DEPTH = structural._MAX_DEPTH, value
    try:
        yield
    finally:
        structural._MAX_DEPTH = saved


@SETTINGS
@given(st.data())
def test_iterative_fallback_gives_same_answers(data):
    lhs, rhs = random_pair(data)
    fast_eq = structural_equal(lhs, rhs)
    fast_hash = structural_hash(lhs)
    fast_paths = reported_paths(lhs, rhs)
    with max_depth(0):  # every walk that nests at all falls back
        assert structural_equal(lhs, rhs) == fast_eq
        assert structural_hash(lhs) == fast_hash
        assert reported_paths(lhs, rhs) == fast_paths


# --- fixed cases ------------------------------------------------------------------------------


def chain(depth, last=0):
    value = Leaf(last)
    for i in range(depth):
        value = Pair(value, Leaf(i))
    return value


@pytest.mark.parametrize("depth", [0, 1, structural._MAX_DEPTH - 1, structural._MAX_DEPTH + 1, 3000])
def test_depth_around_the_fallback_limit(depth):
    assert structural_equal(chain(depth), chain(depth))
    assert structural_hash(chain(depth)) == structural_hash(chain(depth))
    assert structural_hash(chain(depth)) != structural_hash(chain(depth, last=1))
    lpath, rpath = get_first_structural_mismatch(chain(depth), chain(depth, last=1))
    assert str(lpath) == "<root>" + ".a" * depth + ".value" == str(rpath)


def test_equal_when_caller_is_deep_in_recursion():
    # Little stack left for the recursive walk: it falls back instead of failing.
    lhs, rhs, other = chain(150), chain(150), chain(150, last=1)
    results = []

    def recurse(n):
        if n == 0:
            results.append(
                (
                    structural_equal(lhs, rhs),
                    structural_equal(lhs, other),
                    structural_hash(lhs) == structural_hash(rhs),
                )
            )
            return
        recurse(n - 1)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(400)
    try:
        recurse(320)
    finally:
        sys.setrecursionlimit(limit)
    assert results == [(True, False, True)]


def test_same_object_is_equal_even_with_nan_leaves():
    value = Pair(Leaf(np.float32("nan")), (float("nan"), np.array([np.nan])))
    assert structural_equal(value, value)
    twin = Pair(Leaf(np.float32("nan")), [float("nan"), np.array([np.nan])])
    assert structural_equal(value, twin)
    assert structural_hash(value) == structural_hash(twin)


def test_variable_defined_twice_must_map_to_the_same_counterpart():
    # lhs binds v twice; rhs binds v, then w: v is already mapped to v, so w is a mismatch.
    v, w = Var("v"), Var("w")
    lhs = (Bind(v, 1, v), Bind(v, 2, v))
    rhs = (Bind(v, 1, v), Bind(w, 2, w))
    assert not structural_equal(lhs, rhs)
    assert not reference_equal(lhs, rhs)
    lpath, _ = get_first_structural_mismatch(lhs, rhs)
    assert str(lpath) == "<root>[1].var"


def test_variable_fields_are_definitions():
    # A variable's own fields (its type) define the variables in them, alpha-renamed too.
    n, m = Var("n"), Var("m")
    lhs = Fn((Var("x", ty=Pair(n, 1)),), n)
    rhs = Fn((Var("y", ty=Pair(m, 1)),), m)
    assert structural_equal(lhs, rhs)
    assert structural_hash(lhs) == structural_hash(rhs)
    assert not structural_equal(lhs, Fn((Var("y", ty=Pair(m, 1)),), n))


def test_ignored_fields_and_free_variables():
    x, y = Var("x"), Var("y")
    assert structural_equal(Fn((), x, span="a"), Fn((), x, span="b"))
    assert not structural_equal(Fn((), x), Fn((), y))
    assert structural_equal(Fn((), x), Fn((), y), map_free_vars=True)
    assert structural_hash(Fn((), x)) != structural_hash(Fn((), y))
    assert structural_hash(Fn((), x), map_free_vars=True) == structural_hash(
        Fn((), y), map_free_vars=True
    )


def test_containers_across_types():
    assert structural_equal((1, 2), [1, 2])
    assert structural_hash((1, 2)) == structural_hash([1, 2])
    assert structural_equal({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert structural_hash({"a": 1, "b": 2}) == structural_hash({"b": 2, "a": 1})
    assert not structural_equal((1, 2), (1, 2, 3))
    assert not structural_equal((1,), {"a": 1})
    assert not structural_equal(Leaf(1), 1)
    assert not structural_equal(1, Leaf(1))
    assert not structural_equal((Leaf(1),), (Pair(1, 2),))


def test_tensor_content_can_be_skipped():
    lhs, rhs = Leaf(np.zeros(3)), Leaf(np.ones(3))
    assert not structural_equal(lhs, rhs)
    assert structural_equal(lhs, rhs, skip_tensor_content=True)
    assert structural_hash(lhs, skip_tensor_content=True) == structural_hash(
        rhs, skip_tensor_content=True
    )
    assert not structural_equal(lhs, Leaf(np.zeros(4)), skip_tensor_content=True)


def test_unset_field_reads_as_none():
    # _from_fields with fewer values leaves a slot unset; every walk reads it as None.
    partial = Pair._from_fields(1)
    assert structural_equal(Fn((), partial), Fn((), Pair(1, None)))
    assert not structural_equal(Fn((), partial), Fn((), Pair(1, 2)))
    assert reference_equal(Fn((), partial), Fn((), Pair(1, None)))
    assert structural_hash(partial) == structural_hash(Pair(1, None))
    assert reported_paths(Pair(2, partial), Pair(2, Pair(1, 2))) == ("<root>.b.b", "<root>.b.b")


@pytest.mark.parametrize(
    "lhs, rhs", [(1, 2), ("a", "b"), (None, 0), (True, False), (1.5, 2.5), (300, 301)]
)
def test_atom_fields_are_compared(lhs, rhs):
    assert structural_equal(Pair(lhs, 0), Pair(lhs, 0))
    assert not structural_equal(Pair(lhs, 0), Pair(rhs, 0))
    assert not structural_equal(Pair(0, Leaf(lhs)), Pair(0, Leaf(rhs)))
    assert structural_hash(Pair(lhs, 0)) != structural_hash(Pair(rhs, 0))
