"""Type inference of relax.sum."""

import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType


def _infer(call):
    return relax.BlockBuilder().normalize(call).ty


def _x(shape=None, ndim=-1):
    return relax.Var("x", T(shape, "float32", ndim=ndim))


@pytest.mark.parametrize(
    "axis, keepdims, expected",
    [
        (None, False, []),
        (None, True, [1, 1, 1]),
        ([1], False, [2, 4]),
        ([1], True, [2, 1, 4]),
        ([0, -1], False, [3]),
        (2, False, [2, 3]),
    ],
)
def test_static(axis, keepdims, expected):
    tvm.ir.assert_structural_equal(
        _infer(op.sum(_x([2, 3, 4]), axis, keepdims)), T(expected, "float32")
    )


def test_attrs():
    call = op.sum(_x([2]), axis=[0], keepdims=True)
    assert call.attrs.type_key == "relax.attrs.StatisticalAttrs"
    assert call.attrs.axis == (0,) and call.attrs.keepdims is True


def test_symbolic_and_unknown():
    n = TirVar("n", "int64")
    tvm.ir.assert_structural_equal(_infer(op.sum(_x([n, 4]), axis=[1])), T([n], "float32"))
    assert _infer(op.sum(_x(ndim=-1))).ndim == 0
    assert _infer(op.sum(_x(ndim=-1), axis=[0])).ndim == -1
    r = _infer(op.sum(_x(ndim=3), axis=[0]))
    assert r.ndim == 2 and r.shape is None


def test_errors():
    with pytest.raises(ValueError) as err:
        _infer(op.sum(_x([2, 3]), axis=[2]))
    assert str(err.value) == (
        "In relax.sum, the input axis 2 is out of range. The input tensor has 2 dimensions, "
        "so axis should be in range [-2, 2)."
    )
    with pytest.raises(ValueError, match="referring to axis 0"):
        _infer(op.sum(_x([2, 3]), axis=[0, -2]))
    with pytest.raises(TypeError, match="expects the argument 0 to be a Tensor"):
        _infer(op.sum(relax.Var("s", relax.ShapeType([2]))))
