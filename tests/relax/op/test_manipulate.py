"""Type inference of relax.broadcast_to, relax.permute_dims, relax.reshape."""

import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType


def _infer(call):
    return relax.BlockBuilder().normalize(call).ty


def _x(shape=None, ndim=-1, dtype="float32"):
    return relax.Var("x", T(shape, dtype, ndim=ndim))


def test_broadcast_to():
    tvm.ir.assert_structural_equal(
        _infer(op.broadcast_to(_x([3, 1]), [2, 3, 4])), T([2, 3, 4], "float32")
    )
    n = TirVar("n", "int64")
    tvm.ir.assert_structural_equal(
        _infer(op.broadcast_to(_x([n, 1]), [n, 5])), T([n, 5], "float32")
    )
    r = _infer(op.broadcast_to(_x([3]), relax.Var("s", relax.ShapeType(ndim=2))))
    assert r.ndim == 2
    with pytest.raises(ValueError) as err:
        _infer(op.broadcast_to(_x([3, 2]), [3, 4]))
    assert str(err.value) == (
        "broadcast_to expects the input tensor shape is broadcastable to the target shape. "
        "The target shape at dim 1 is T.int64(4) while the input tensor shape at dim 1 is "
        "T.int64(2), which are not equal."
    )
    with pytest.raises(
        ValueError, match="However, the given tensor has ndim 2 while the target shape has ndim 1"
    ):
        _infer(op.broadcast_to(_x([3, 2]), [2]))


def test_permute_dims():
    call = op.permute_dims(_x([2, 3, 4]), [2, 0, 1])
    assert call.attrs.type_key == "relax.attrs.PermuteDimsAttrs"
    assert call.attrs.axes == (2, 0, 1)
    tvm.ir.assert_structural_equal(_infer(call), T([4, 2, 3], "float32"))
    tvm.ir.assert_structural_equal(_infer(op.permute_dims(_x([2, 3]))), T([3, 2], "float32"))
    assert _infer(op.permute_dims(_x(ndim=-1), [1, 0])).ndim == 2
    assert _infer(op.permute_dims(_x(ndim=3))).ndim == 3
    with pytest.raises(ValueError, match="number of input axes to equal the ndim"):
        _infer(op.permute_dims(_x([2, 3]), [0]))
    with pytest.raises(
        ValueError, match="In relax.permute_dims, the input axes is required to be non-repetitive"
    ):
        _infer(op.permute_dims(_x([2, 3]), [0, 0]))


def test_reshape():
    tvm.ir.assert_structural_equal(_infer(op.reshape(_x([2, 6]), [3, 4])), T([3, 4], "float32"))
    tvm.ir.assert_structural_equal(_infer(op.reshape(_x([2, 6]), [-1, 3])), T([4, 3], "float32"))
    n = TirVar("n", "int64")
    tvm.ir.assert_structural_equal(
        _infer(op.reshape(_x([n, 4]), [n, 2, 2])), T([n, 2, 2], "float32")
    )
    flat = _infer(op.reshape(_x([n, 4]), [-1]))
    assert flat.ndim == 1 and tvm.ir.structural_equal(flat.shape.values[0], n * 4)
    with pytest.raises(ValueError) as err:
        _infer(op.reshape(_x([2, 6]), [5, 2]))
    assert str(err.value) == (
        "Reshape expects the new shape to be convertible from the old shape. However, the old "
        "shape is R.shape([2, 6]), with product T.int64(12), while the new shape is "
        "R.shape([5, 2]), with product T.int64(10)"
    )
    with pytest.raises(ValueError, match='Reshape accepts at most one "-1" in the new shape'):
        _infer(op.reshape(_x([2, 6]), [-1, -1]))
    with pytest.raises(TypeError, match="expects argument 1 to be a shape"):
        _infer(relax.Call(op.reshape(_x([2]), [2]).op, [_x([2]), _x([2])]))


def test_reshape_normal_form_resolves_minus_one():
    # As Apache TVM 0.27 prints it: R.reshape(x, R.shape([4, 3])).
    x = _x([2, 6])
    call = relax.BlockBuilder().normalize(op.reshape(x, [-1, 3]))
    assert [v.value for v in call.args[1].values] == [4, 3]
    n = TirVar("n", "int64")
    flat = relax.BlockBuilder().normalize(op.reshape(_x([n, 4]), [-1]))
    assert tvm.ir.structural_equal(flat.args[1].values[0], n * 4)
    unknown = relax.BlockBuilder().normalize(op.reshape(_x(ndim=2), [-1, 3]))
    assert unknown.args[1].values[0].value == -1  # nothing to solve with: left as written


def test_broadcast_to_a_shape_variable_keeps_the_variable():
    # As in TVM 0.27: R.Tensor(s, dtype="float32").
    s = relax.Var("s", relax.ShapeType([3, 4]))
    r = _infer(op.broadcast_to(_x([3, 4]), s))
    assert r.shape is s and r.ndim == 2
