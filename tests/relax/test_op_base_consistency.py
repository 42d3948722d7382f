"""Regression tests: ``tensor_to_shape`` / ``shape_to_tensor`` types as in Apache TVM 0.27."""

import pytest

from tvm import relax


def _ty(call):
    return relax.BlockBuilder().normalize(call).ty


@pytest.mark.parametrize(
    "arg_ty, shown",
    [
        (relax.TensorType((3,), "int64"), "R.Shape(ndim=3)"),
        (relax.TensorType((3,), "int32"), "R.Shape(ndim=3)"),
        (relax.TensorType(ndim=1, dtype="int64"), "R.Shape(ndim=-1)"),
    ],
)
def test_tensor_to_shape_type(arg_ty, shown):
    t = relax.Var("t", arg_ty)
    assert str(_ty(relax.op.tensor_to_shape(t))) == shown


def test_tensor_to_shape_rejects_non_1d():
    t = relax.Var("t3", relax.TensorType((2, 2), "int64"))
    with pytest.raises(TypeError) as info:
        _ty(relax.op.tensor_to_shape(t))
    # TVM 0.27's message (it raises an InternalError; a bad argument is a TypeError here).
    assert str(info.value) == (
        "relax.tensor_to_shape expected argument to be 1-d, but R.tensor_to_shape(t3) has "
        'argument t3 with type R.Tensor((2, 2), dtype="int64")'
    )
    s = relax.Var("s", relax.ShapeType(ndim=2))
    with pytest.raises(TypeError, match="tensor_to_shape expects a 1-d tensor.*R.Shape"):
        _ty(relax.op.tensor_to_shape(s))


@pytest.mark.parametrize(
    "arg, shown",
    [
        (relax.Var("s", relax.ShapeType(ndim=2)), 'R.Tensor((2,), dtype="int64")'),
        (relax.ShapeExpr([2, 3]), 'R.Tensor((2,), dtype="int64")'),
        # TVM 0.27 says R.Tensor((-1,)); the length is unknown, so ndim=1 is given instead.
        (relax.Var("s2", relax.ShapeType(ndim=-1)), 'R.Tensor(dtype="int64", ndim=1)'),
    ],
)
def test_shape_to_tensor_type(arg, shown):
    assert str(_ty(relax.op.shape_to_tensor(arg))) == shown


def test_shape_to_tensor_rejects_tensor():
    x = relax.Var("x", relax.TensorType((3,), "float32"))
    with pytest.raises(TypeError, match="shape_to_tensor expects a shape.*x of type R.Tensor"):
        _ty(relax.op.shape_to_tensor(x))


def test_ops_are_pure():
    assert relax.op.tensor_to_shape(relax.Var("t", relax.TensorType((1,), "int64"))).op.get_attr(
        "FPurity"
    )
    assert relax.op.shape_to_tensor(relax.ShapeExpr([1])).op.get_attr("FPurity")
