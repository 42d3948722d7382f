"""Relax expression nodes: construction, types, aliases, structural equality."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.ir import Op
from tvm.relax import op
from tvm.tirx.expr import IntImm
from tvm.tirx.expr import Var as TirVar


def _t(shape, dtype="float32"):
    return relax.TensorType(shape, dtype)


def test_var_and_aliases():
    ty = _t([3, 4])
    x = relax.Var("x", ty)
    assert x.name_hint == "x" and x.name == "x" and x.ty is ty
    assert x.struct_info is ty
    y = relax.Var("y", struct_info=ty)
    assert y.ty is ty
    assert isinstance(relax.DataflowVar("d", ty), relax.Var)
    with pytest.raises(TypeError, match="must be a Type"):
        relax.Var("x", "float32")
    with pytest.raises(TypeError, match="either ty= or struct_info="):
        relax.Var("x", ty, struct_info=ty)
    with pytest.raises(TypeError, match="name must be a str"):
        relax.Var(3)


def test_constant():
    c = relax.const(np.arange(6, dtype="float32").reshape(2, 3))
    np.testing.assert_array_equal(c.data.numpy(), np.arange(6).reshape(2, 3))
    assert tvm.ir.structural_equal(c.ty, _t([2, 3]))
    assert relax.const(1.5).ty.dtype == "float32"
    assert relax.const(1).ty.dtype == "int32"  # TVM's defaults: int64 -> int32
    assert relax.const(np.array([1.0])).ty.dtype == "float32"  # float64 -> float32
    assert relax.const(np.int64(3), "int64").ty.dtype == "int64"
    assert relax.const(True).ty.dtype == "bool"
    assert relax.const([1.0, 2.0]).ty.dtype == "float32"
    assert relax.const(1, "float16").ty.dtype == "float16"
    assert relax.const(1.0).ty.ndim == 0


def test_constant_structural_equality_compares_data():
    a = relax.const(np.ones(3, "float32"))
    b = relax.const(np.ones(3, "float32"))
    c = relax.const(np.zeros(3, "float32"))
    assert tvm.ir.structural_equal(a, b)
    assert not tvm.ir.structural_equal(a, c)
    assert tvm.ir.structural_equal(a, c, skip_tensor_content=True)


def test_shape_expr_prim_value_string_dtype():
    s = relax.ShapeExpr([2, TirVar("n", "int64")])
    assert isinstance(s.values[0], IntImm) and s.values[0].dtype == "int64"
    assert isinstance(s.ty, relax.ShapeType) and s.ty.ndim == 2
    p = relax.prim_value(3)
    assert p.value.dtype == "int64" and p.ty.dtype == "int64"
    assert relax.prim_value(2.0).value.dtype == "float64"
    assert relax.prim_value(2, "int32").value.dtype == "int32"
    assert isinstance(relax.StringImm("hi").ty, tvm.ir.StringType)  # as in TVM 0.27
    assert relax.DataTypeImm("float32").value == "float32"
    with pytest.raises(TypeError, match="expects a str"):
        relax.StringImm(3)
    with pytest.raises(TypeError, match="integer or PrimExpr"):
        relax.ShapeExpr([1.5])


def test_tuple_and_getitem():
    x = relax.Var("x", _t([3]))
    t = relax.Tuple([x, x])
    assert isinstance(t.ty, relax.TupleType) and len(t) == 2 and t[1] is x
    item = relax.Var("t", t.ty)[1]
    assert isinstance(item, relax.TupleGetItem) and item.index == 1
    with pytest.raises(TypeError, match="field 0 must be a Relax Expr"):
        relax.Tuple([3])
    with pytest.raises(TypeError, match="list of expressions"):
        relax.Tuple(x)
    untyped = relax.Tuple([op.add(x, x)])
    assert untyped.ty is None  # filled by normalization


def test_call_ty_args_aliases():
    x = relax.Var("x", _t([3]))
    call = relax.Call(Op.get("relax.add"), [x, x])
    assert call.ty_args == () and call.attrs is None and call.ty is None
    ext = relax.Call(relax.ExternFunc("f"), [x], sinfo_args=[_t([3])])
    assert ext.sinfo_args == ext.ty_args and len(ext.ty_args) == 1
    by_name = relax.Call("relax.add", [x, x])
    assert by_name.op is Op.get("relax.add")
    with pytest.raises(ValueError, match="relax.nope is not registered"):
        relax.Call("relax.nope", [x])
    with pytest.raises(TypeError, match="argument 0 must be a Relax Expr"):
        relax.Call(Op.get("relax.add"), [1, x])


def test_python_operators():
    x = relax.Var("x", _t([3]))
    assert (x + x).op is Op.get("relax.add")
    assert (x * x).op is Op.get("relax.multiply")
    assert (x + relax.const(1.0)).args[1].data.numpy() == 1.0
    with pytest.raises(TypeError, match="Please convert 1.0 with `const` first"):
        x + 1.0
    with pytest.raises(TypeError, match="Please convert 2 with `const` first"):
        2 * x
    with pytest.raises(TypeError, match="integer indexing"):
        x["a"]


def test_function_fields_and_type():
    x = relax.Var("x", _t([3]))
    f = relax.Function([x], relax.SeqExpr([], x), _t([3]), attrs={"global_symbol": "f"})
    assert isinstance(f.ty, relax.FuncType)
    assert f.ty.params[0] is x.ty and f.ty.purity
    assert f.attrs["global_symbol"] == "f"
    assert f.ret_struct_info is f.ret_ty
    g = relax.Function([x], x, ret_struct_info=_t([3]), is_pure=False)
    assert not g.is_pure and not g.ty.purity
    h = f.with_attr("k", 1)
    assert h.attrs["k"] == 1 and "k" not in f.attrs and h.ty is f.ty
    assert h.without_attr("k").attrs.get("k") is None
    assert f.without_attr("absent") is f
    empty = relax.Function.create_empty([x], _t([3]))
    assert empty.body is None and isinstance(empty.ty, relax.FuncType)
    with pytest.raises(TypeError, match="param 0 must be a relax.Var"):
        relax.Function([3], x)


def test_extern_func():
    e = relax.extern("my_func")
    assert e.global_symbol == "my_func"
    assert e.ty.is_opaque and not e.ty.purity


def test_bindings_and_blocks():
    x = relax.Var("x", _t([3]))
    v = relax.Var("v", _t([3]))
    b = relax.VarBinding(v, x)
    mc = relax.MatchCast(relax.Var("m", _t([3])), x, _t([3]))
    block = relax.DataflowBlock([b, mc])
    assert isinstance(block, relax.BindingBlock)
    assert mc.struct_info is mc.ty
    with pytest.raises(TypeError, match="binding 0 must be a Binding"):
        relax.BindingBlock([x])
    with pytest.raises(TypeError, match="var must be a relax.Var"):
        relax.VarBinding(x.ty, x)
    with pytest.raises(TypeError, match="requires the target type"):
        relax.MatchCast(v, x)
    with pytest.raises(TypeError, match="block 0 must be a BindingBlock"):
        relax.SeqExpr([b], x)


def _identity_func(name, shape):
    n = TirVar("n", "int64")
    x = relax.Var(name, _t([n] + shape))
    lv = relax.Var("lv", _t([n] + shape))
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(lv, op.add(x, x))])], lv)
    return relax.Function([x], body, _t([n] + shape))


def test_alpha_renamed_functions_are_equal():
    a = _identity_func("x", [4])
    b = _identity_func("y", [4])
    assert tvm.ir.structural_equal(a, b)
    assert tvm.ir.structural_hash(a) == tvm.ir.structural_hash(b)
    c = _identity_func("x", [5])
    assert not tvm.ir.structural_equal(a, c)
    path = tvm.ir.get_first_structural_mismatch(a, c)
    assert "params[0]" in str(path[0])


def test_inferred_type_is_ignored_but_annotation_is_compared():
    x = relax.Var("x", _t([3]))
    c1 = op.add(x, x)
    c2 = op.add(x, x)
    relax.BlockBuilder().normalize(c1)
    assert c1.ty is not None and c2.ty is None
    assert tvm.ir.structural_equal(c1, c2)
    v1, v2 = relax.Var("v", _t([3])), relax.Var("v", _t([4]))
    assert not tvm.ir.structural_equal(relax.VarBinding(v1, x), relax.VarBinding(v2, x))


def test_nodes_are_immutable_and_replace_resets_type():
    x = relax.Var("x", _t([3]))
    c = relax.BlockBuilder().normalize(op.add(x, x))
    with pytest.raises(AttributeError, match="immutable"):
        c.args = ()
    assert c.replace(args=c.args) is c
    y = relax.Var("y", _t([3]))
    c2 = c.replace(args=(y, y))
    assert c2.ty is None and c2.args[0] is y


def test_call_attrs_dict_becomes_dict_attrs():
    x = relax.Var("x", _t([3]))
    call = relax.Call(relax.ExternFunc("f"), [x], attrs={"k": 1})
    assert isinstance(call.attrs, tvm.ir.DictAttrs) and call.attrs["k"] == 1


def test_var_name_keywords():
    ty = _t([3])
    assert relax.Var(name="a", ty=ty).name_hint == "a"
    assert relax.Var(name_hint="b", ty=ty).name == "b"
    assert relax.DataflowVar(name="c", ty=ty).name_hint == "c"


def test_vdevice_and_global_infos():
    vdev = relax.VDevice("llvm", 0, "global")
    assert vdev.vdevice_id == 0 and vdev.memory_scope == "global"
    assert vdev.target.kind.name == "llvm"
    assert isinstance(vdev, tvm.ir.GlobalInfo)
    ty = relax.TensorType([3], "float32", vdev)
    assert ty.vdevice is vdev
    mod = tvm.IRModule(global_infos={"vdevice": [vdev]})
    assert mod.global_infos["vdevice"][0] is vdev
    assert tvm.ir.structural_equal(relax.DummyGlobalInfo(), relax.DummyGlobalInfo())


def test_operators_of_the_op_library():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    cases = {
        "relax.subtract": x - x,
        "relax.negative": -x,
        "relax.divide": x / x,
        "relax.less": x < x,  # noqa: PLR0124 - builds a Relax call, not a comparison
        "relax.astype": x.astype("float16"),
    }
    for name, expr in cases.items():
        assert expr.op.name == name
        assert bb.normalize(expr).ty.ndim == 1
    assert bb.normalize(x.astype("float16")).ty.dtype == "float16"


def test_function_refines_a_declared_return_type_to_the_body_type():
    # As TVM's Function: a declared return type that is a base of the body's type is
    # replaced by the body's; symbolic dims survive only when the parameters define them.
    n = tvm.tirx.Var("n", "int64")
    x = relax.Var("x", relax.TensorType([2, 3], "float32"))
    f = relax.Function([x], relax.SeqExpr([], x), relax.TensorType(None, "float32", ndim=2))
    assert str(f.ret_ty) == 'R.Tensor((2, 3), dtype="float32")'
    y = relax.Var("y", relax.TensorType([n], "float32"))
    g = relax.Function([y], relax.SeqExpr([], y), relax.ObjectType())
    assert str(g.ret_ty) == 'R.Tensor((n,), dtype="float32")'
    # A declared type that is not a base of the body's (or equal to it) is kept.
    h = relax.Function([x], relax.SeqExpr([], x), relax.TensorType([2, 3], "float32"))
    assert h.ret_ty is not None and str(h.ret_ty) == 'R.Tensor((2, 3), dtype="float32")'


def test_parsed_function_return_type_is_refined():
    mod = tvm.script.from_source('''
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32")) -> R.Tensor(None, "float32", ndim=2):
        gv = R.exp(x)
        return gv
''')
    assert str(mod["main"].ret_ty) == 'R.Tensor((2, 4), dtype="float32")'
