"""tvm.ir.Call / tvm.ir.Var / is_prim_expr / is_prim_var: IR-wide views over TIR and Relax."""

import pytest

import tvm
from tvm import relax, tirx
from tvm.ir import Call, Var, is_prim_expr, is_prim_var


def test_var_with_primitive_type_is_a_tir_var():
    for ty in ("int64", tvm.ir.PrimType("int64")):
        v = Var("n", ty)
        assert type(v) is tirx.Var
        assert v.name == "n" and v.dtype == "int64"
    assert Var("p", "handle").dtype == "handle"


def test_var_with_tensor_type_is_a_relax_var():
    ty = relax.TensorType(dtype="float32", ndim=1)
    v = Var("data", ty)
    assert type(v) is relax.Var
    assert v.name_hint == "data"
    tvm.ir.assert_structural_equal(v.ty, ty)
    assert Var(name_hint="x").name_hint == "x"


def test_isinstance_covers_both_families():
    n = tirx.Var("n", "int32")
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    assert isinstance(n, Var) and isinstance(x, Var)
    assert isinstance(relax.DataflowVar("d", relax.TensorType((2,), "float32")), Var)
    assert not isinstance(relax.const(1.0), Var)
    assert issubclass(tirx.SizeVar, Var) and not issubclass(int, Var)
    add = relax.op.add(x, x)
    assert isinstance(add, Call) and not isinstance(x, Call)
    assert isinstance(tirx.call_extern("int32", "f", n), Call)


def test_call_builds_the_family_its_type_selects():
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    c = Call("relax.add", [x, x])
    assert type(c) is relax.Call and c.op.same_as(tvm.ir.Op.get("relax.add"))
    n = tirx.Var("n", "int32")
    t = Call(tvm.ir.Op.get("tirx.call_extern"), [tirx.StringImm("f"), n], ret_ty="int32")
    assert type(t) is tirx.Call and t.dtype == "int32"


def test_is_prim_expr_and_is_prim_var():
    n = tirx.Var("n", "int64")
    assert is_prim_expr(n) and is_prim_expr(n + 1)
    assert is_prim_var(n) and not is_prim_var(n + 1)
    assert not is_prim_var(tirx.SizeVar("s", "int64"))
    bb = relax.BlockBuilder()
    p = relax.Var("p", tvm.ir.PrimType("int64"))
    assert is_prim_expr(p) and is_prim_var(p)
    t = relax.Var("t", relax.TensorType((2,), "float32"))
    assert not is_prim_expr(t) and not is_prim_var(t)
    assert not is_prim_expr(3) and bb is not None


def test_bad_arguments():
    with pytest.raises(TypeError, match="name must be a str"):
        Var(3)
    with pytest.raises(TypeError, match="either name or name_hint"):
        Var("a", name_hint="b")
    with pytest.raises(TypeError, match="ty must be a Type"):
        Var("a", 3.5)
