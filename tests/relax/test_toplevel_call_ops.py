"""tvm.relax exports the packed-call constructors at the top level, as TVM 0.27."""

from tvm import relax


def test_call_dps_packed_and_call_pure_packed():
    x = relax.Var("x", relax.TensorType((2,), "float32"))
    call = relax.call_dps_packed("my_func", [x], relax.TensorType((2,), "float32"))
    assert call.op.name == "relax.call_dps_packed" and relax.call_dps_packed is relax.op.call_dps_packed
    ty = relax.BlockBuilder().normalize(call).ty
    assert ty.script() == 'R.Tensor((2,), dtype="float32")'
    pure = relax.call_pure_packed("f", x, sinfo_args=relax.TensorType((2,), "float32"))
    assert pure.op.name == "relax.call_pure_packed"
