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
    tvm.ir.assert_structural_equal(_infer(op.broadcast_to(_x([3, 1]), [2, 3, 4])),
                                   T([2, 3, 4], "float32"))
    n = TirVar("n", "int64")
    tvm.ir.assert_structural_equal(_infer(op.broadcast_to(_x([n, 1]), [n, 5])),
                                   T([n, 5], "float32"))
    r = _infer(op.broadcast_to(_x([3]), relax.Var("s", relax.ShapeType(ndim=2))))
    assert r.ndim == 2
    with pytest.raises(ValueError, match="broadcastable to the target shape"):
        _infer(op.broadcast_to(_x([3, 2]), [3, 4]))
    with pytest.raises(ValueError, match="no more dims than the target"):
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
    with pytest.raises(ValueError, match="unique"):
        _infer(op.permute_dims(_x([2, 3]), [0, 0]))


def test_reshape():
    tvm.ir.assert_structural_equal(_infer(op.reshape(_x([2, 6]), [3, 4])), T([3, 4], "float32"))
    tvm.ir.assert_structural_equal(_infer(op.reshape(_x([2, 6]), [-1, 3])),
                                   T([4, 3], "float32"))
    n = TirVar("n", "int64")
    tvm.ir.assert_structural_equal(_infer(op.reshape(_x([n, 4]), [n, 2, 2])),
                                   T([n, 2, 2], "float32"))
    assert _infer(op.reshape(_x([n, 4]), [-1])).ndim == 1
    with pytest.raises(ValueError, match="with product 12, while the new shape is "
                                         r"R.shape\(\[5, 2\]\), with product 10"):
        _infer(op.reshape(_x([2, 6]), [5, 2]))
    with pytest.raises(ValueError, match="at most one -1"):
        _infer(op.reshape(_x([2, 6]), [-1, -1]))
    with pytest.raises(TypeError, match="expects argument 1 to be a shape"):
        _infer(relax.Call(op.reshape(_x([2]), [2]).op, [_x([2]), _x([2])]))
