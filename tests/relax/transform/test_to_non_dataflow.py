"""ToNonDataflow: dataflow blocks become binding blocks."""

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.relax.expr import DataflowBlock, DataflowVar
from tvm.script import ir as I
from tvm.script import relax as R


def test_dataflow_block_becomes_binding_block():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                lv = R.add(x, y)
                gv = R.multiply(lv, y)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
            lv = R.add(x, y)
            gv = R.multiply(lv, y)
            return gv

    after = relax.transform.ToNonDataflow()(Before)
    assert_structural_equal(after, Expected)
    block = after["main"].body.blocks[0]
    assert not isinstance(block, DataflowBlock)
    assert not any(isinstance(b.var, DataflowVar) for b in block.bindings)


def test_blocks_around_dataflow_and_branches():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32"), c: R.Prim("bool")):
            y = R.exp(x)
            with R.dataflow():
                lv = R.add(y, x)
                gv = R.nn.relu(lv)
                R.output(gv)
            if c:
                z = R.negative(gv)
            else:
                z = gv
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2,), "float32"), c: R.Prim("bool")):
            y = R.exp(x)
            lv = R.add(y, x)
            gv = R.nn.relu(lv)
            if c:
                z = R.negative(gv)
            else:
                z = gv
            return z

    assert_structural_equal(relax.transform.ToNonDataflow()(Before), Expected)


def test_module_without_dataflow_is_unchanged():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            y = R.exp(x)
            return y

    assert_structural_equal(relax.transform.ToNonDataflow()(Before), Before)


def test_block_of_output_vars_only_is_converted():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                gv = R.exp(x)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            gv = R.exp(x)
            return gv

    assert_structural_equal(relax.transform.ToNonDataflow()(Before), Expected)
