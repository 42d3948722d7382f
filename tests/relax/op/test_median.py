"""relax.median: types (TVM 0.27's rules), NumPy reference and the legalized kernel."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax import op

T = relax.TensorType


def _infer(call):
    return relax.BlockBuilder().normalize(call).ty


def _x(shape=None, ndim=-1, dtype="float32"):
    return relax.Var("x", T(shape, dtype, ndim=ndim))


def test_types():
    x = _x((2, 3, 4))
    assert str(_infer(op.median(x))) == 'R.Tensor((), dtype="float32")'
    assert str(_infer(op.median(x, keepdims=True))) == 'R.Tensor((1, 1, 1), dtype="float32")'
    assert str(_infer(op.median(x, axis=[1]))) == (
        'R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 4), dtype="int64"))')
    assert str(_infer(op.median(x, axis=-1, keepdims=True))) == (
        'R.Tuple(R.Tensor((2, 3, 1), dtype="float32"), R.Tensor((2, 3, 1), dtype="int64"))')
    # unknown rank: only axis=None without keepdims is known to be 0-d
    assert str(_infer(op.median(_x()))) == 'R.Tensor((), dtype="float32")'
    assert isinstance(_infer(op.median(_x(), keepdims=True)), relax.TupleType)


def test_errors():
    with pytest.raises(ValueError, match="only one axis"):
        op.median(_x((2, 3)), axis=[0, 1])
    with pytest.raises(TypeError):
        relax.BlockBuilder().normalize(op.median(relax.Var("s", relax.ShapeType([2, 3]))))


@pytest.mark.parametrize("axis, keepdims", [(None, False), (None, True), ([1], False),
                                            ([-1], True), ([0], False)])
def test_legalized_kernel_matches_numpy(axis, keepdims):
    rng = np.random.default_rng(0)
    data = rng.integers(0, 4, (4, 6, 3)).astype("float32")  # ties: stable order counts
    x = relax.Var("x", T((4, 6, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(op.median(x, axis=axis, keepdims=keepdims)))
    mod = bb.finalize()
    assert "R.median" not in relax.transform.LegalizeOps()(mod).script()
    got = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())["main"](
        tvm.runtime.tensor(data))
    if axis is None:
        expected = np.sort(data.reshape(-1))[(data.size - 1) // 2]
        np.testing.assert_array_equal(got.numpy().reshape(()), expected)
        assert got.numpy().shape == ((1, 1, 1) if keepdims else ())
        return
    ax = axis[0] % 3
    order = np.argsort(data, axis=ax, kind="stable")
    index = np.take(order, [(data.shape[ax] - 1) // 2], axis=ax)
    value = np.take_along_axis(data, index, axis=ax)
    if not keepdims:
        index, value = index.squeeze(ax), value.squeeze(ax)
    np.testing.assert_array_equal(got[0].numpy(), value)
    np.testing.assert_array_equal(got[1].numpy(), index)
