"""DeadCodeElimination: unused bindings and unreachable functions."""

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import relax as R


def test_unused_binding_and_unreachable_function():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                unused = R.exp(x)  # noqa: F841
                gv = R.nn.relu(x)
                R.output(gv)
            return gv

        @R.function(private=True)
        def helper(x: R.Tensor((2,), "float32")):
            y = R.exp(x)
            return y

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            with R.dataflow():
                gv = R.nn.relu(x)
                R.output(gv)
            return gv

    assert_structural_equal(relax.transform.DeadCodeElimination()(Before), Expected)


def test_called_private_function_is_kept_and_entry_functions_are_roots():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            cls = Before
            y = cls.helper(x)
            return y

        @R.function(private=True)
        def helper(x: R.Tensor((2,), "float32")):
            y = R.exp(x)
            return y

        @R.function(private=True)
        def other(x: R.Tensor((2,), "float32")):
            return x

    after = relax.transform.DeadCodeElimination()(Before)
    assert sorted(gv.name_hint for gv in after.get_global_vars()) == ["helper", "main"]
    kept = relax.transform.DeadCodeElimination(entry_functions=["other"])(Before)
    assert sorted(gv.name_hint for gv in kept.get_global_vars()) == ["helper", "main", "other"]


def test_impure_call_outside_dataflow_is_kept():
    @I.ir_module
    class Before:
        @R.function(pure=False)
        def main(x: R.Tensor((2,), "float32")):
            _ = R.print(x, format="{}")
            unused = R.exp(x)  # noqa: F841
            return x

    @I.ir_module
    class Expected:
        @R.function(pure=False)
        def main(x: R.Tensor((2,), "float32")):
            _ = R.print(x, format="{}")
            return x

    assert_structural_equal(relax.transform.DeadCodeElimination()(Before), Expected)
