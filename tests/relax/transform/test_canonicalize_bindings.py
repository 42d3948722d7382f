"""CanonicalizeBindings: trivial bindings, match_cast to the same type, known tuples."""

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import relax as R


def test_chain_of_aliases_and_tuple_item():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                lv = R.exp(x)
                lv1 = lv
                t = (lv1, x)
                gv = t[0]
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                gv = R.exp(x)
                R.output(gv)
            return gv

    assert_structural_equal(relax.transform.CanonicalizeBindings()(Before), Expected)


def test_match_cast_to_the_same_type_is_removed():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            y = R.match_cast(x, R.Tensor((2, 3), "float32"))
            z = R.exp(y)
            return z

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            z = R.exp(x)
            return z

    assert_structural_equal(relax.transform.CanonicalizeBindings()(Before), Expected)


def test_refining_match_cast_is_kept():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(ndim=2, dtype="float32")):
            y = R.match_cast(x, R.Tensor((2, 3), "float32"))
            z = R.exp(y)
            return z

    assert_structural_equal(relax.transform.CanonicalizeBindings()(Before), Before)


def test_output_alias_of_a_param_is_kept():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                gv = x
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            return x

    assert_structural_equal(relax.transform.CanonicalizeBindings()(Before), Expected)
