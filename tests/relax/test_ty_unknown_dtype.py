"""relax.TensorType: every spelling of an unknown dtype ("" / None / "void") is the same type."""

import tvm
from tvm import relax
from tvm.script import relax as R


def test_empty_dtype_means_unknown():
    for dtype in ("", None, "void"):
        ty = relax.TensorType((2, 3), dtype=dtype)
        assert ty.dtype == "void"
        tvm.ir.assert_structural_equal(ty, R.Tensor((2, 3)))
    assert relax.TensorType((2, 3)).dtype == "float32"


def test_inference_keeps_unknown_dtype():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((2, 3)))
    out = bb.normalize(relax.op.exp(x))
    tvm.ir.assert_structural_equal(out.ty, relax.TensorType((2, 3), dtype=""))
    assert out.ty.script() == "R.Tensor((2, 3))"
