"""Type inference of relax.ones / relax.zeros."""

import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType


def _infer(call):
    return relax.BlockBuilder().normalize(call).ty


@pytest.mark.parametrize("fn", [op.ones, op.zeros])
def test_static_and_symbolic(fn):
    call = fn([2, 3], "float16")
    assert call.attrs.type_key == "relax.attrs.InitAttrs" and call.attrs.dtype == "float16"
    tvm.ir.assert_structural_equal(_infer(call), T([2, 3], "float16"))
    n = TirVar("n", "int64")
    tvm.ir.assert_structural_equal(_infer(fn([n], "int32")), T([n], "int32"))
    tvm.ir.assert_structural_equal(_infer(fn([], "float32")), T([], "float32"))


def test_shape_var_argument():
    s = relax.Var("s", relax.ShapeType(ndim=2))
    r = _infer(op.zeros(s, "float32"))
    assert r.shape is s and r.ndim == 2


def test_non_shape_argument():
    with pytest.raises(
        TypeError,
        match="Ones/Zeros requires the input shape to be a Shape. "
        "However, the given one is relax.TensorType",
    ):
        _infer(op.ones(relax.Var("t", T([2], "int64")), "float32"))
