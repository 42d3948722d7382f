"""Type inference of relax.add / relax.multiply (broadcasting, dtypes, symbolic shapes)."""

import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType


def _infer(call):
    return relax.BlockBuilder().normalize(call).ty


def _var(shape=None, dtype="float32", ndim=-1):
    return relax.Var("x", T(shape, dtype, ndim=ndim))


@pytest.mark.parametrize("fn", [op.add, op.multiply])
@pytest.mark.parametrize(
    "lhs, rhs, expected",
    [
        ([3, 4], [3, 4], [3, 4]),
        ([3, 4], [4], [3, 4]),
        ([1, 4], [3, 1], [3, 4]),
        ([2, 1, 4], [3, 4], [2, 3, 4]),
        ([], [5], [5]),
    ],
)
def test_static_broadcast(fn, lhs, rhs, expected):
    tvm.ir.assert_structural_equal(_infer(fn(_var(lhs), _var(rhs))), T(expected, "float32"))


def test_symbolic_shapes():
    n, m = TirVar("n", "int64"), TirVar("m", "int64")
    x = _var([n, 4])
    tvm.ir.assert_structural_equal(_infer(op.add(x, x)), T([n, 4], "float32"))
    tvm.ir.assert_structural_equal(_infer(op.add(x, _var([1, 4]))), T([n, 4], "float32"))
    # n vs m (or n vs 3) cannot be decided: only the rank is known, as in TVM.
    undecided = _infer(op.add(x, _var([m, 4])))
    assert undecided.shape is None and undecided.ndim == 2
    assert _infer(op.add(x, _var([3, 4]))).ndim == 2


def test_unknown_rank_and_dtype():
    assert _infer(op.add(_var([3]), _var(ndim=-1))).ndim == -1
    r = _infer(op.add(_var([3, 4]), _var(ndim=2)))
    assert r.ndim == 2 and r.shape is None
    assert _infer(op.add(_var([3], "void"), _var([3], dtype="void"))).dtype == "void"
    # As in TVM 0.27, an unknown dtype does not match a known one.
    with pytest.raises(TypeError, match="uses datatype T.float32 on the LHS"):
        _infer(op.add(_var([3]), _var([3], dtype="void")))


def test_errors_name_op_and_argument():
    with pytest.raises(
        ValueError,
        match="In relax.add, the first input shape at dim 1 is "
        r"T.int64\(3\) and the second input shape at dim 1 "
        r"is T.int64\(4\), which are not broadcastable",
    ):
        _infer(op.add(_var([2, 3]), _var([2, 4])))
    with pytest.raises(TypeError, match="Binary operators must have the same datatype"):
        _infer(op.multiply(_var([2]), _var([2], "int32")))
    shape = relax.ShapeExpr([2])
    with pytest.raises(
        TypeError,
        match=r"must be either R.Tensor or R.Prim types, but "
        r"expression R.add\(x, R.shape\(\[2\]\)\) has RHS",
    ):
        _infer(op.add(_var([2]), shape))


def test_prim_operands():
    p = relax.prim_value(3)
    r = _infer(op.add(p, p))
    assert isinstance(r, relax.PrimType) and r.dtype == "int64"
    t = _infer(op.multiply(_var([2, 3], "int64"), p))
    tvm.ir.assert_structural_equal(t, T([2, 3], "int64"))


def test_vdevice_propagates():
    x = relax.Var("x", T([2], "float32", vdevice="cuda"))
    assert _infer(op.add(x, _var([2]))).vdevice == "cuda"
