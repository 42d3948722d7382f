"""relax.expr._update_type: set an expression's type on hand-built IR."""

import pytest

from tvm import relax
from tvm.script import relax as R


def test_update_type_and_well_formed_rejects_a_wrong_one():
    param = relax.Var("A", R.Tensor((4,), "float32"))
    var = relax.Var("B", R.Tensor((4,), "int32"))
    body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(var, param)])], var)
    assert body.ty is None
    relax.expr._update_type(body, var.ty)
    assert body.ty.script() == 'R.Tensor((4,), dtype="int32")'
    assert not relax.analysis.check_well_formed(relax.Function([param], body))
    good = relax.Var("C", R.Tensor((4,), "float32"))
    body2 = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(good, param)])], good)
    relax.expr._update_type(body2, good.ty)
    assert relax.analysis.check_well_formed(relax.Function([param], body2))


def test_update_type_rejects_non_types():
    with pytest.raises(TypeError, match="expects a Type"):
        relax.expr._update_type(relax.Var("x"), "float32")
    with pytest.raises(TypeError, match="Relax expression"):
        relax.expr._update_type(3, None)


def test_checkpoint_argument_is_bound_to_a_var_first():
    x = relax.Var("x", R.Tensor((3, 4), "float32"))
    y = relax.Var("y", R.Tensor((3, 4), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        gv = bb.emit(relax.op.grad.start_checkpoint(x + y))
        bb.emit_func_output(gv)
    call = bb.get()["main"].body.blocks[0].bindings[-1].value
    assert call.op.name == "relax.grad.start_checkpoint" and isinstance(call.args[0], relax.Var)
    with pytest.raises(TypeError, match="end_checkpoint should be a Var"):
        relax.BlockBuilder().normalize(relax.op.grad.end_checkpoint(relax.Tuple([x, y])))
