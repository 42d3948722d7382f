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


def test_second_round_visits_only_changed_functions_with_the_same_result():
    # The second round skips functions the first left alone; two full rounds (the plain way)
    # give the same module.
    from tvm.relax.analysis import remove_all_unused
    from tvm.relax.transform import canonicalize_bindings as cb
    from tvm.relax.transform._utils import map_functions

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                lv = R.exp(x)
                t = (lv, x)
                lv1 = t[0]
                lv2 = lv1
                gv = R.add(lv2, x)
                R.output(gv)
            return gv

        @R.function
        def clean(y: R.Tensor((2,), "float32")):
            with R.dataflow():
                gv = R.exp(y)
                R.output(gv)
            return gv

    visited = []

    class Counting(cb._Canonicalizer):
        def visit_function_(self, op):
            visited.append(op)
            return super().visit_function_(op)

    original = cb._Canonicalizer
    cb._Canonicalizer = Counting
    try:
        after = relax.transform.CanonicalizeBindings()(Before)
    finally:
        cb._Canonicalizer = original
    assert visited.count(Before["clean"]) == 1 and len(visited) == 3
    assert after["clean"] is Before["clean"]
    plain = Before
    for _ in range(2):
        plain = remove_all_unused(map_functions(plain, cb._Canonicalizer))
    assert_structural_equal(after, plain)
    assert "lv2" not in after.script() and "t = " not in after.script()


def test_tuple_of_dataflow_vars_not_read_through_after_its_block():
    """``t = (lv, x)`` is a block output; a later block's ``t[0]`` cannot become ``lv``."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
            with R.dataflow():
                lv = R.exp(x)
                t = (lv, x)
                R.output(t)
            if c:
                r = R.sin(x)
            else:
                r = R.cos(x)
            with R.dataflow():
                a = t[0]
                b = R.add(a, r)
                R.output(b)
            return b

    after = relax.transform.CanonicalizeBindings()(Before)
    relax.analysis.well_formed(after)
    last = after["main"].body.blocks[-1].bindings
    assert isinstance(last[0].value, relax.TupleGetItem)
