"""FoldConstant: library ops and call_tir with constant inputs are evaluated."""

import numpy as np

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.relax.expr import Constant
from tvm.relax.testing import evaluate
from tvm.script import ir as I
from tvm.script import relax as R

A = np.array([1.0, 2.0], "float32")
B = np.array([3.0, 4.0], "float32")


def _main_calls(mod):
    return [b.value for block in mod["main"].body.blocks for b in block.bindings]


def test_library_ops_fold_through_bindings():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                c = R.add(R.const(A), R.const(B))
                d = R.exp(c)
                gv = R.add(x, d)
                R.output(gv)
            return gv

    expected_const = np.exp(A + B)

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                gv = R.add(x, R.const(expected_const))
                R.output(gv)
            return gv

    assert_structural_equal(relax.transform.FoldConstant()(Before), Expected)


def test_call_tir_with_constant_inputs_runs_in_the_interpreter():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                c = R.multiply(R.const(A), R.const(B))
                gv = R.add(x, c)
                R.output(gv)
            return gv

    legal = relax.transform.LegalizeOps()(Before)
    after = relax.transform.FoldConstant()(legal)
    values = _main_calls(after)
    assert len(values) == 1
    folded = values[0].args[1].fields[1]
    assert isinstance(folded, Constant)
    np.testing.assert_allclose(folded.data.numpy(), A * B)
    x = np.array([0.5, -1.0], "float32")
    np.testing.assert_allclose(evaluate(after, x), x + A * B)


def test_non_constant_and_large_results_are_left():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                gv = R.add(x, R.const(A))
                big = R.add(R.const(A), R.const(B))
                out = R.add(gv, big)
                R.output(out)
            return out

    after = relax.transform.FoldConstant(max_elements=1)(Before)
    assert_structural_equal(after, Before)
