"""Type lattice helpers: base checks, LCA, erasure, static types."""

import pytest

import tvm
from tvm import relax
from tvm.relax.analysis import (
    BaseCheckResult,
    erase_to_well_defined,
    get_static_type,
    is_base_of,
    struct_info_base_check,
    struct_info_lca,
    type_lca,
)
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType
n = TirVar("n", "int64")
m = TirVar("m", "int64")


@pytest.mark.parametrize(
    "base, derived, expected",
    [
        (relax.ObjectType(), T([3], "float32"), BaseCheckResult.PASS),
        (T([3], "float32"), relax.ObjectType(), BaseCheckResult.FAIL_L1),
        (T([3], "float32"), relax.ShapeType([3]), BaseCheckResult.FAIL_L0),
        (T(ndim=1, dtype="float32"), T([3], "float32"), BaseCheckResult.PASS),
        (T([3], "float32"), T(ndim=1, dtype="float32"), BaseCheckResult.FAIL_L2),
        (T([3], "float32"), T(ndim=-1, dtype="float32"), BaseCheckResult.FAIL_L1),
        (T([3], "float32"), T([4], "float32"), BaseCheckResult.FAIL_L0),
        (T([3], "float32"), T([3], "int32"), BaseCheckResult.FAIL_L0),
        (T([3], "void"), T([3], "int32"), BaseCheckResult.PASS),
        (T([3], "float32"), T([3], "void"), BaseCheckResult.FAIL_L1),
        (T([n], "float32"), T([n], "float32"), BaseCheckResult.PASS),
        (T([n], "float32"), T([m], "float32"), BaseCheckResult.FAIL_L2),
        (T([n, 2], "float32"), T([m, 3], "float32"), BaseCheckResult.FAIL_L0),
        (relax.ShapeType(ndim=2), relax.ShapeType([1, 2]), BaseCheckResult.PASS),
        (relax.ShapeType([1, 2]), relax.ShapeType(ndim=2), BaseCheckResult.FAIL_L2),
        (relax.ShapeType(ndim=2), relax.ShapeType(ndim=3), BaseCheckResult.FAIL_L0),
        (relax.PrimType("int64"), relax.PrimType("int64"), BaseCheckResult.PASS),
        (relax.PrimType("int64"), relax.PrimType("int32"), BaseCheckResult.FAIL_L0),
        (
            relax.TupleType([T([3], "float32"), relax.ObjectType()]),
            relax.TupleType([T([3], "float32"), relax.ShapeType([1])]),
            BaseCheckResult.PASS,
        ),
        (
            relax.TupleType([T([3], "float32")]),
            relax.TupleType([T([3], "float32"), T([3], "float32")]),
            BaseCheckResult.FAIL_L0,
        ),
    ],
)
def test_base_check(base, derived, expected):
    assert struct_info_base_check(base, derived) == expected
    assert is_base_of(base, derived) == (expected == BaseCheckResult.PASS)


def test_func_base_check():
    f = relax.FuncType([T([3], "float32")], T([3], "float32"))
    looser_ret = relax.FuncType([T([3], "float32")], T(ndim=1, dtype="float32"))
    assert is_base_of(looser_ret, f)
    assert not is_base_of(f, looser_ret)
    opaque = relax.FuncType.opaque_func(ret=relax.ObjectType(), purity=False)
    assert is_base_of(opaque, f)
    impure = relax.FuncType([T([3], "float32")], T([3], "float32"), purity=False)
    assert struct_info_base_check(f, impure) == BaseCheckResult.FAIL_L0
    # As in TVM 0.27, parameters are compared covariantly.
    wider_param = relax.FuncType([T(ndim=1, dtype="float32")], T([3], "float32"))
    assert is_base_of(wider_param, f)
    assert struct_info_base_check(f, wider_param) == BaseCheckResult.FAIL_L2
    tvm.ir.assert_structural_equal(struct_info_lca(f, wider_param), wider_param)


def test_lca():
    assert type_lca is struct_info_lca
    a, b = T([3], "float32"), T([4], "float32")
    r = struct_info_lca(a, b)
    assert r.shape is None and r.ndim == 1 and r.dtype == "float32"
    r = struct_info_lca(T([3], "float32"), T([3, 4], "int32"))
    assert r.ndim == -1 and r.dtype == "void"
    tvm.ir.assert_structural_equal(struct_info_lca(a, T([3], "float32")), a)
    assert isinstance(struct_info_lca(a, relax.ShapeType([3])), relax.ObjectType)
    t = struct_info_lca(relax.TupleType([a, a]), relax.TupleType([a, b]))
    tvm.ir.assert_structural_equal(t, relax.TupleType([a, T(ndim=1, dtype="float32")]))
    assert isinstance(
        struct_info_lca(relax.TupleType([a]), relax.TupleType([a, a])), relax.ObjectType
    )
    s = struct_info_lca(relax.ShapeType([1, 2]), relax.ShapeType([1, 3]))
    assert s.values is None and s.ndim == 2
    assert struct_info_lca(relax.ShapeType([1]), relax.ShapeType([1, 3])).ndim == -1
    p = struct_info_lca(relax.PrimType("int64"), relax.PrimType("int64"))
    assert p.dtype == "int64"
    f1 = relax.FuncType([a], a)
    f2 = relax.FuncType([b], a)
    assert struct_info_lca(f1, f2).is_opaque


def test_erase_to_well_defined():
    ty = T([n, 4], "float32")
    erased = erase_to_well_defined(ty)
    assert erased.shape is None and erased.ndim == 2
    kept = erase_to_well_defined(ty, shape_var_map={n: n})
    tvm.ir.assert_structural_equal(kept, ty)
    replaced = erase_to_well_defined(ty, shape_var_map={n: tvm.tirx.expr.IntImm("int64", 7)})
    tvm.ir.assert_structural_equal(replaced, T([7, 4], "float32"))
    static = T([2, 4], "float32")
    assert erase_to_well_defined(static) is static
    s = relax.Var("s", relax.ShapeType(ndim=2))
    by_var = T(s, "float32")
    assert erase_to_well_defined(by_var).shape is None
    assert erase_to_well_defined(by_var, var_map={s: s}) is by_var
    tup = erase_to_well_defined(relax.TupleType([ty, static]))
    assert tup.fields[0].shape is None and tup.fields[1] is static


def test_get_static_type():
    r = get_static_type(T([n, 4], "float32"))
    assert r.shape is None and r.ndim == 2 and r.dtype == "float32"
    assert get_static_type(relax.ShapeType([1, 2])).values is None
    f = get_static_type(relax.FuncType([T([3], "float32")], relax.PrimType("int64")))
    assert f.params[0].shape is None
