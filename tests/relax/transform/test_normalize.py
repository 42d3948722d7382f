"""relax.transform.Normalize: ANF, type filling, identity on normal IR, op errors."""

import pytest

import tvm
from tvm import relax
from tvm.relax import op

T = relax.TensorType


def test_normalizes_hand_built_function():
    x = relax.Var("x", T([3], "float32"))
    lv = relax.Var("lv", T([3], "float32"))
    nested = op.add(op.add(x, x), x)
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(lv, nested)])], lv)
    mod = tvm.IRModule({"main": relax.Function([x], body, T([3], "float32"))})
    out = relax.transform.Normalize()(mod)
    bindings = out["main"].body.blocks[0].bindings
    assert len(bindings) == 2
    assert bindings[1].value.args[0] is bindings[0].var
    assert all(b.value.ty is not None for b in bindings)
    # Normalizing again changes nothing.
    assert relax.transform.Normalize()(out)["main"] is out["main"]


def test_untyped_binding_var_gets_type():
    x = relax.Var("x", T([3], "float32"))
    lv = relax.Var("lv")
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(lv, op.add(x, x))])], lv)
    mod = tvm.IRModule({"main": relax.Function([x], body)})
    out = relax.transform.Normalize()(mod)
    tvm.ir.assert_structural_equal(out["main"].ret_ty, T([3], "float32"))


def test_non_seq_body_is_wrapped():
    x = relax.Var("x", T([3], "float32"))
    mod = tvm.IRModule({"main": relax.Function([x], op.add(x, x))})
    out = relax.transform.Normalize()(mod)
    body = out["main"].body
    assert isinstance(body, relax.SeqExpr) and isinstance(body.body, relax.Var)


def test_matmul_error_surfaces():
    # The example of spec C.3 (enrichment itself is added by the errors work).
    x = relax.Var("x", T([3, 4], "float32"))
    y = relax.Var("y", T([5, 6], "float32"))
    lv = relax.Var("lv", T([3, 6], "float32"))
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(lv, op.matmul(x, y))])], lv)
    mod = tvm.IRModule({"main": relax.Function([x, y], body, T([3, 6], "float32"))})
    with pytest.raises(
        ValueError, match="Matmul requires the reduction length of the operands to be equal"
    ):
        relax.transform.Normalize()(mod)


def test_info():
    info = relax.transform.Normalize().info
    assert info.name == "Normalize" and info.opt_level == 1
