"""Core call ops: call_tir, call_dps_packed, packed calls, print, shape_of, closures."""

import pytest

import tvm
from tvm import relax
from tvm.ir import GlobalVar, Op
from tvm.relax import op
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType


def _infer(call):
    return relax.BlockBuilder().normalize(call).ty


def test_call_tir():
    x = relax.Var("x", T([3], "float32"))
    call = op.call_tir(GlobalVar("kernel"), [x], T([3], "float32"))
    assert call.op is Op.get("relax.call_tir")
    assert isinstance(call.args[1], relax.Tuple)
    tvm.ir.assert_structural_equal(_infer(call), T([3], "float32"))
    multi = op.call_tir(GlobalVar("k"), x, [T([3], "float32"), T([4], "int32")])
    assert isinstance(_infer(multi), relax.TupleType)
    n = TirVar("n", "int64")
    with_vars = op.call_tir(GlobalVar("k"), [x], out_sinfo=T([3], "float32"), tir_vars=[n])
    assert isinstance(with_vars.args[2], relax.ShapeExpr)
    with pytest.raises(TypeError, match="requires out_ty"):
        op.call_tir(GlobalVar("k"), [x])


def test_call_dps_packed_and_pure_packed():
    x = relax.Var("x", T([3], "float32"))
    call = op.call_dps_packed("my_func", [x], T([3], "float32"))
    assert isinstance(call.args[0], relax.ExternFunc)
    tvm.ir.assert_structural_equal(_infer(call), T([3], "float32"))
    pure = op.call_pure_packed("f", x, ty_args=T([3], "float32"))
    tvm.ir.assert_structural_equal(_infer(pure), T([3], "float32"))
    with pytest.raises(TypeError, match="requires ty_args"):
        op.call_pure_packed("f", x)


def test_purity_table():
    assert Op.get("relax.print").get_attr("FPurity") is False
    assert Op.get("relax.invoke_closure").get_attr("FPurity") is False
    for name in ["relax.add", "relax.call_tir", "relax.call_pure_packed", "relax.shape_of"]:
        assert Op.get(name).get_attr("FPurity") is True


def test_print_shape_of_null():
    x = relax.Var("x", T([3, 4], "float32"))
    p = op.print(x, format="{}")
    assert isinstance(p.args[0], relax.StringImm) and p.args[0].value == "{}"
    assert isinstance(_infer(p), relax.TupleType)
    s = _infer(op.shape_of(x))
    assert isinstance(s, relax.ShapeType) and s.ndim == 2 and s.values[1].value == 4
    assert _infer(op.shape_of(relax.Var("y", T(ndim=3)))).ndim == 3
    assert isinstance(_infer(op.null_value()), relax.ObjectType)
    with pytest.raises(TypeError, match="shape_of expects a Tensor"):
        _infer(op.shape_of(relax.Var("o", relax.ObjectType())))


def test_closures():
    f = relax.Var("f", relax.FuncType([T([3], "float32")], T([3], "float32")))
    x = relax.Var("x", T([3], "float32"))
    clo = relax.BlockBuilder().normalize(op.make_closure(f, [x]))
    assert isinstance(clo.ty, relax.ObjectType)
    c = relax.Var("c", relax.ObjectType())
    tvm.ir.assert_structural_equal(
        _infer(op.invoke_closure(c, [x], T([3], "float32"))), T([3], "float32")
    )
    tvm.ir.assert_structural_equal(
        _infer(op.invoke_pure_closure(c, [x], [T([3], "float32")])), T([3], "float32")
    )


def test_call_function_typed_var():
    f = relax.Var("f", relax.FuncType([T([3], "float32")], T([3], "float32")))
    x = relax.Var("x", T([3], "float32"))
    tvm.ir.assert_structural_equal(_infer(f(x)), T([3], "float32"))
    with pytest.raises(ValueError, match=r"accepts 1 parameters, but was called with 2 arguments"):
        _infer(relax.Call(f, [x, x]))
    with pytest.raises(TypeError, match="is not a function type"):
        _infer(relax.Call(x, [x]))


def test_register_gradient_fills_the_fprimal_gradient_table():
    from tvm.ir.op import register_op
    from tvm.relax.op.base import register_gradient

    register_op("relax.test_grad_op", 1, family="test")

    @register_gradient("relax.test_grad_op")
    def grad(orig_var, orig_call, output_grad, ctx):
        return [output_grad]

    assert Op.get("relax.test_grad_op").get_attr("FPrimalGradient") is grad
    register_gradient("relax.test_grad_op", lambda *a: [], level=5)  # lower level: ignored
    assert Op.get("relax.test_grad_op").get_attr("FPrimalGradient") is grad
