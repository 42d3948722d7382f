"""Type inference of relax.matmul."""

import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType


def _infer(call):
    return relax.BlockBuilder().normalize(call).ty


def _v(name, shape=None, dtype="float32", ndim=-1):
    return relax.Var(name, T(shape, dtype, ndim=ndim))


@pytest.mark.parametrize(
    "lhs, rhs, expected",
    [
        ([3, 4], [4, 5], [3, 5]),
        ([4], [4, 5], [5]),
        ([3, 4], [4], [3]),
        ([4], [4], []),
        ([2, 3, 4], [4, 5], [2, 3, 5]),
        ([2, 1, 3, 4], [5, 4, 6], [2, 5, 3, 6]),
    ],
)
def test_static(lhs, rhs, expected):
    tvm.ir.assert_structural_equal(
        _infer(op.matmul(_v("a", lhs), _v("b", rhs))), T(expected, "float32")
    )


def test_out_dtype_and_attrs():
    call = op.matmul(_v("a", [2, 3], "float16"), _v("b", [3, 4], "float16"), out_dtype="float32")
    assert type(call.attrs).__name__ == "MatmulAttrs" and call.attrs.out_dtype == "float32"
    assert call.attrs.type_key == "relax.attrs.MatmulAttrs"
    assert _infer(call).dtype == "float32"
    assert op.matmul(_v("a", [2]), _v("b", [2])).attrs.out_dtype is None


def test_symbolic():
    n, k = TirVar("n", "int64"), TirVar("k", "int64")
    tvm.ir.assert_structural_equal(
        _infer(op.matmul(_v("a", [n, k]), _v("b", [k, 5]))), T([n, 5], "float32")
    )
    # k vs 6 is undecided: accepted.
    tvm.ir.assert_structural_equal(
        _infer(op.matmul(_v("a", [n, k]), _v("b", [6, 5]))), T([n, 5], "float32")
    )


def test_unknown_shapes():
    assert _infer(op.matmul(_v("a", ndim=-1), _v("b", [3, 4]))).ndim == -1
    r = _infer(op.matmul(_v("a", ndim=3), _v("b", [3, 4])))
    assert r.ndim == 3 and r.shape is None
    assert _infer(op.matmul(_v("a", ndim=1), _v("b", ndim=1))).ndim == 0


def test_reduction_mismatch_message_is_exact():
    x, y = _v("x", [3, 4]), _v("y", [5, 6])
    with pytest.raises(ValueError) as err:
        _infer(op.matmul(x, y))
    assert str(err.value) == (
        "Matmul requires the reduction length of the operands to be equal.  However, the LHS "
        "x has shape R.shape([3, 4]), while the RHS y has shape R.shape([5, 6]).  The "
        "reduction dimensions of T.int64(4) and T.int64(5) are not equal."
    )


def test_other_errors():
    with pytest.raises(ValueError) as err:
        _infer(op.matmul(_v("a", []), _v("b", [3])))
    assert str(err.value) == (
        "Matmul operands must not be scalar.  However, the expression R.matmul(a, b, "
        'out_dtype=None) has a LHS of a with type R.Tensor((), dtype="float32"), which is '
        "scalar (zero-dimensional) tensor."
    )
    with pytest.raises(TypeError, match="same datatype"):
        _infer(op.matmul(_v("a", [2, 3]), _v("b", [3, 4], "float16")))
    with pytest.raises(ValueError, match="not broadcastable"):
        _infer(op.matmul(_v("a", [2, 3, 4]), _v("b", [5, 4, 6])))
