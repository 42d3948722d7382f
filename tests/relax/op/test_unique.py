"""R.unique: TVM's types and printed form, and results (built and by the reference rule)
against NumPy, sorted and in first-occurrence order."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.script import relax as R


def _ty(call):
    return str(relax.BlockBuilder().normalize(call).ty)


def test_types():
    x = relax.Var("x", relax.TensorType((2, 3, 4), "float32"))
    assert _ty(op.unique(x)) == 'R.Tensor(dtype="float32", ndim=1)'
    assert _ty(op.unique(x, return_counts=True, axis=1)) == (
        'R.Tuple(R.Tensor(dtype="float32", ndim=3), R.Tensor(dtype="int64", ndim=1))')
    s = relax.Var("s", relax.TensorType((), "int32"))
    assert _ty(op.unique(s, return_index=True)) == (
        'R.Tuple(R.Tensor((1,), dtype="int32"), R.Tensor((1,), dtype="int64"))')
    with pytest.raises(ValueError, match="axis"):
        relax.BlockBuilder().normalize(op.unique(x, axis=3))


@R.function
def uniq(x: R.Tensor((8,), "int32")):
    a = R.unique(x, sorted=True, return_index=True, return_inverse=True, return_counts=True)
    b = R.unique(x, sorted=False, return_inverse=True)
    return (a, b)


def test_printed_form_round_trips():
    text = uniq.script()
    assert ("R.unique(x, sorted=False, return_index=False, return_inverse=True, "
            "return_counts=False)") in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), uniq)


def test_results_match_numpy():
    data = np.array([4, 1, 4, 2, 9, 1, 4, 0], "int32")
    vm = relax.VirtualMachine(relax.build(tvm.IRModule.from_expr(uniq), "llvm"), tvm.cpu())
    (values, first, inverse, counts), (ordered, inverse2) = vm["uniq"](tvm.runtime.tensor(data))
    np_values, np_first, np_inverse, np_counts = np.unique(
        data, return_index=True, return_inverse=True, return_counts=True)
    for got, want in ((values, np_values), (first, np_first), (inverse, np_inverse),
                      (counts, np_counts)):
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(ordered.numpy(), [4, 1, 2, 9, 0])  # first-occurrence order
    np.testing.assert_array_equal(ordered.numpy()[inverse2.numpy()], data)


def test_unique_slices_along_an_axis():
    data = np.array([[1, 2], [1, 2], [0, 5]], "float32")
    rule = tvm.ir.Op.get("relax.unique").get_attr("FReference")
    values, counts = rule(None, data, True, False, False, True, 0)
    np.testing.assert_array_equal(values, [[0, 5], [1, 2]])
    np.testing.assert_array_equal(counts, [1, 2])
