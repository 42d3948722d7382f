"""Object model properties on random trees (hypothesis) and on very deep trees."""

import copy
import pickle

import numpy as np
import pytest
import tvm_ffi
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tvm_ffi.access_path import AccessPath

from tvm.ffi import (
    DEF,
    IGNORE,
    Node,
    field,
    get_first_structural_mismatch,
    structural_equal,
    structural_hash,
    walk,
)


class Expr(Node, type_key="test_object_model.Expr"):
    """Base of the little test language."""


class Var(Expr, type_key="test_object_model.Var"):
    _sequal_kind = "var"
    name: str = field(default="v", role=IGNORE)


class Const(Expr, type_key="test_object_model.Const"):
    value: int


class Add(Expr, type_key="test_object_model.Add"):
    a: Expr
    b: Expr


class Let(Expr, type_key="test_object_model.Let"):
    var: Var = field(role=DEF)
    value: Expr
    body: Expr


class Func(Expr, type_key="test_object_model.Func"):
    params: tuple = field(role=DEF)
    body: Expr
    span: object = field(default=None, role=IGNORE, kw_only=True)


# --- random trees -----------------------------------------------------------------------------


def gen_expr(data, scope, depth):
    """Draw a random expression using only variables of ``scope`` (a list of Vars)."""
    kinds = ["const"] + (["var"] if scope else [])
    if depth > 0:
        kinds += ["add", "add", "let", "func"]
    kind = data.draw(st.sampled_from(kinds))
    if kind == "const":
        return Const(data.draw(st.integers(-5, 5)))
    if kind == "var":
        return data.draw(st.sampled_from(scope))
    if kind == "add":
        return Add(gen_expr(data, scope, depth - 1), gen_expr(data, scope, depth - 1))
    if kind == "let":
        var = Var(f"x{depth}")
        value = gen_expr(data, scope, depth - 1)
        return Let(var, value, gen_expr(data, scope + [var], depth - 1))
    params = tuple(Var(f"p{i}") for i in range(data.draw(st.integers(0, 2))))
    return Func(params, gen_expr(data, scope + list(params), depth - 1))


def gen_program(data):
    params = tuple(Var(f"arg{i}") for i in range(data.draw(st.integers(1, 3))))
    return Func(params, gen_expr(data, list(params), data.draw(st.integers(0, 5))))


def rebuild(expr, var_map, change=None, path=()):
    """Copy ``expr``; bound vars are renamed to fresh objects via ``var_map`` (alpha-renaming).

    ``change`` is an optional ``(path, new_value)`` replacing the Const at that path.
    """
    if isinstance(expr, Const):
        if change is not None and change[0] == path:
            return Const(change[1])
        return Const(expr.value)
    if isinstance(expr, Var):
        if change is not None and change[0] == path:
            return var_map.get(change[1], change[1])  # use another variable here
        return var_map.get(expr, expr)
    if isinstance(expr, Add):
        return Add(
            rebuild(expr.a, var_map, change, path + ("a",)),
            rebuild(expr.b, var_map, change, path + ("b",)),
        )
    if isinstance(expr, Let):
        new_var = Var(expr.var.name + "_renamed")
        value = rebuild(expr.value, var_map, change, path + ("value",))
        body = rebuild(expr.body, {**var_map, expr.var: new_var}, change, path + ("body",))
        return Let(new_var, value, body)
    new_params = tuple(Var(p.name + "_renamed") for p in expr.params)
    inner = {**var_map, **dict(zip(expr.params, new_params))}
    return Func(new_params, rebuild(expr.body, inner, change, path + ("body",)), span="elsewhere")


def const_paths(expr, path=()):
    """Paths (tuples of field names) of every Const leaf."""
    if isinstance(expr, Const):
        yield path
    elif isinstance(expr, Add):
        yield from const_paths(expr.a, path + ("a",))
        yield from const_paths(expr.b, path + ("b",))
    elif isinstance(expr, Let):
        yield from const_paths(expr.value, path + ("value",))
        yield from const_paths(expr.body, path + ("body",))
    elif isinstance(expr, Func):
        yield from const_paths(expr.body, path + ("body",))


def var_uses(expr, scope=(), path=()):
    """``(path, scope)`` of every variable use, with the variables in scope there."""
    if isinstance(expr, Var):
        yield path, scope
    elif isinstance(expr, Add):
        yield from var_uses(expr.a, scope, path + ("a",))
        yield from var_uses(expr.b, scope, path + ("b",))
    elif isinstance(expr, Let):
        yield from var_uses(expr.value, scope, path + ("value",))
        yield from var_uses(expr.body, scope + (expr.var,), path + ("body",))
    elif isinstance(expr, Func):
        yield from var_uses(expr.body, scope + tuple(expr.params), path + ("body",))


def access_path(steps):
    result = AccessPath.root()
    for step in steps:
        result = result.attr(step)
    return result


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.data())
def test_equal_trees_hash_equal(data):
    prog = gen_program(data)
    same = rebuild(prog, {})
    assert structural_equal(prog, prog)
    assert structural_equal(prog, same)
    assert structural_hash(prog) == structural_hash(same)
    assert get_first_structural_mismatch(prog, same) is None


@SETTINGS
@given(st.data())
def test_alpha_renaming_preserves_equality(data):
    prog = gen_program(data)
    renamed = rebuild(prog, {})  # every binding gets a fresh Var with another name
    assert structural_equal(prog, renamed)
    assert structural_equal(renamed, prog)
    assert structural_hash(prog) == structural_hash(renamed)


@SETTINGS
@given(st.data())
def test_changed_leaf_breaks_equality_at_its_path(data):
    prog = gen_program(data)
    paths = list(const_paths(prog))
    if not paths:
        prog = Func(prog.params, Add(prog.body, Const(0)))
        paths = list(const_paths(prog))
    target = data.draw(st.sampled_from(paths))
    leaf = prog
    for step in target:
        leaf = getattr(leaf, step)
    changed = rebuild(prog, {}, change=(target, leaf.value + 100))
    assert not structural_equal(prog, changed)
    lhs_path, rhs_path = get_first_structural_mismatch(prog, changed)
    expected = access_path(target + ("value",))
    assert lhs_path == expected, (str(lhs_path), str(expected))
    assert rhs_path == expected


@SETTINGS
@given(st.data())
def test_changed_variable_use_breaks_equality_at_its_path(data):
    prog = gen_program(data)
    candidates = []
    for path, scope in var_uses(prog):
        used = prog
        for step in path:
            used = getattr(used, step)
        others = [v for v in scope if v is not used]
        if others:
            candidates.append((path, others))
    if not candidates:
        return
    path, others = data.draw(st.sampled_from(candidates))
    replacement = data.draw(st.sampled_from(others))
    changed = rebuild(prog, {}, change=(path, replacement))
    assert not structural_equal(prog, changed)
    lhs_path, rhs_path = get_first_structural_mismatch(prog, changed)
    assert lhs_path == access_path(path), (str(lhs_path), path)
    assert rhs_path == access_path(path)


@SETTINGS
@given(st.data())
def test_pickle_and_deepcopy_preserve_random_trees(data):
    prog = gen_program(data)
    loaded = pickle.loads(pickle.dumps(prog))
    assert structural_equal(prog, loaded)
    assert structural_hash(prog) == structural_hash(loaded)
    assert structural_equal(prog, copy.deepcopy(prog))
    # Every use of a parameter is the very parameter object after loading.
    for path, _ in var_uses(loaded):
        used = loaded
        for step in path:
            used = getattr(used, step)
        assert any(used is v for v in walk(loaded) if isinstance(v, Var))


@SETTINGS
@given(st.data())
def test_swapping_bound_vars_is_detected(data):
    # Func(x, y: x + y) differs from Func(x, y: y + x); the mismatch is the first use.
    x, y = Var("x"), Var("y")
    lhs = Func((x, y), Add(x, y))
    a, b = Var("a"), Var("b")
    rhs = Func((a, b), Add(b, a))
    assert not structural_equal(lhs, rhs)
    assert get_first_structural_mismatch(lhs, rhs)[0] == access_path(("body", "a"))
    del data


def test_free_vars_need_identity_unless_mapped():
    x, y = Var("x"), Var("y")
    assert not structural_equal(Add(x, x), Add(y, y))
    assert structural_equal(Add(x, x), Add(y, y), map_free_vars=True)
    assert not structural_equal(Add(x, y), Add(x, x), map_free_vars=True)
    assert structural_hash(Add(x, x), map_free_vars=True) == structural_hash(
        Add(y, y), map_free_vars=True
    )


# --- replace, immutability, copying ----------------------------------------------------------


def test_replace_identity_semantics():
    a, b = Const(1), Const(2)
    node = Add(a, b)
    assert node.replace() is node
    assert node.replace(a=a) is node  # same object: nothing changed
    changed = node.replace(b=Const(3))
    assert changed is not node and changed.a is a and changed.b.value == 3
    assert node.b is b  # the original is untouched
    with pytest.raises(TypeError, match="no field 'c'"):
        node.replace(c=1)


def test_immutability():
    node = Add(Const(1), Const(2))
    with pytest.raises(AttributeError, match="immutable"):
        node.a = Const(5)
    with pytest.raises(AttributeError, match="immutable"):
        del node.a
    with pytest.raises(AttributeError):
        node.extra = 1


def test_pickle_keeps_variable_identity_and_sharing():
    x = Var("x")
    shared = Const(7)
    prog = Func((x,), Let(Var("t"), Add(x, shared), Add(shared, x)))
    loaded, loaded_x = pickle.loads(pickle.dumps((prog, x)))
    assert structural_equal(prog, loaded, map_free_vars=True)
    assert loaded.params[0] is loaded_x
    assert loaded.body.value.a is loaded_x
    assert loaded.body.value.b is loaded.body.body.a  # shared subtree stays shared
    copied = copy.deepcopy(prog)
    assert copied.params[0] is not x
    assert copied.body.value.a is copied.params[0]  # one copy per variable
    assert copied.body.value.b is copied.body.body.a
    assert structural_equal(copy.deepcopy(prog), prog)


# --- deep trees -------------------------------------------------------------------------------

DEPTH = 20_000


def deep_chain(depth, last=0):
    expr = Const(last)
    for i in range(depth):
        expr = Add(expr, Const(i))
    return expr


def deep_lets(depth):
    """``let v0 = 0 in let v1 = v0 + 1 in ...``: deep nesting through DEF fields."""
    vars_ = [Var(f"v{i}") for i in range(depth)]
    body = vars_[-1]
    for i in range(depth - 1, -1, -1):
        value = Const(0) if i == 0 else Add(vars_[i - 1], Const(1))
        body = Let(vars_[i], value, body)
    return body


@pytest.fixture(scope="module")
def deep_pair():
    return deep_chain(DEPTH), deep_chain(DEPTH)


def test_deep_equal_hash_mismatch(deep_pair):
    lhs, rhs = deep_pair
    assert structural_equal(lhs, rhs)
    assert structural_hash(lhs) == structural_hash(rhs)
    other = deep_chain(DEPTH, last=1)
    assert not structural_equal(lhs, other)
    lpath, _ = get_first_structural_mismatch(lhs, other)
    assert lpath.depth == DEPTH + 1  # DEPTH times ".a", then ".value"
    assert str(lpath).endswith(".a.a.value")


def test_deep_alpha_equivalence():
    assert structural_equal(deep_lets(DEPTH), deep_lets(DEPTH))
    assert structural_hash(deep_lets(DEPTH)) == structural_hash(deep_lets(DEPTH))


def test_deep_walk_and_pickle(deep_pair):
    lhs, _ = deep_pair
    assert sum(1 for _ in walk(lhs)) == 2 * DEPTH + 1
    loaded = pickle.loads(pickle.dumps(lhs))
    assert structural_equal(lhs, loaded)
    assert structural_equal(copy.deepcopy(lhs), lhs)
    lets = deep_lets(DEPTH)
    assert structural_equal(pickle.loads(pickle.dumps(lets)), lets)


def test_deep_replace_and_repr_do_not_crash(deep_pair):
    lhs, _ = deep_pair
    assert lhs.replace(b=Const(-1)).a is lhs.a
    assert repr(lhs).startswith("Add(")


# --- leaves compared across Python types -----------------------------------------------------


@pytest.mark.parametrize(
    "lhs, rhs",
    [
        (1, np.int64(1)),
        (1, 1.0),
        (np.float32(2.5), 2.5),
        ("float32", tvm_ffi.dtype("float32")),
        (float("nan"), np.float64("nan")),
    ],
)
def test_cross_type_leaves_equal_and_hash_alike(lhs, rhs):
    assert structural_equal(Const(lhs), Const(rhs))
    assert structural_hash(Const(lhs)) == structural_hash(Const(rhs))


@pytest.mark.parametrize("lhs, rhs", [(True, 1), (False, 0), ("1", 1), (1, 2)])
def test_cross_type_leaves_unequal(lhs, rhs):
    assert not structural_equal(Const(lhs), Const(rhs))


# --- traversal and shallow copies -------------------------------------------------------------


def test_iter_fields_roles_and_children():
    from tvm.ffi import USE, iter_children, iter_fields, node_types

    x = Var("x")
    func = Func((x,), Add(x, Const(1)), span="somewhere")
    names = [f.name for f, _ in iter_fields(func)]
    assert names == ["params", "body"]  # IGNORE fields (span) are skipped by default
    assert [f.name for f, _ in iter_fields(func, roles=(USE,))] == ["body"]
    roles = {f.name: f.role for f in Func._fields}
    assert roles == {"params": DEF, "body": "use", "span": IGNORE}
    assert list(iter_children(func)) == [x, func.body]
    assert list(iter_children({"k": (x, [func.body])})) == [x, func.body]
    assert node_types()["test_object_model.Func"] is Func


def test_walk_is_preorder_through_containers():
    x = Var("x")
    c = Const(3)
    tree = Func((x,), Add(x, c))
    assert list(walk(tree)) == [tree, x, tree.body, x, c]
    assert list(walk([Const(1), {"a": c}]))[1] is c


def test_walk_unique_and_children_hook():
    x = Var("x")
    c = Const(3)
    tree = Func((x,), Add(x, c))
    assert list(walk(tree, unique=True)) == [tree, x, tree.body, c]
    # children: () stops below a node, a list replaces its fields, None keeps them.
    assert list(walk(tree, children=lambda n: () if isinstance(n, Add) else None)) == [
        tree, x, tree.body]
    assert list(walk(tree, children=lambda n: [n.b] if isinstance(n, Add) else None)) == [
        tree, x, tree.body, c]


def test_shallow_copy_shares_children():
    tree = Add(Const(1), Const(2))
    dup = copy.copy(tree)
    assert dup is not tree and dup.a is tree.a and dup.b is tree.b
    assert structural_equal(dup, tree)


def test_required_fields_and_mutable_defaults_rejected():
    with pytest.raises(TypeError):
        Add(Const(1))
    with pytest.raises(TypeError, match="immutable"):
        field(default=[])
