"""GradientSimplifier (spec F.5): each rewrite on its own, Before / Expected."""

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import relax as R


def _simplify(mod):
    return relax.transform.GradientSimplifier()(mod)


def test_double_transpose_is_the_variable():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 4), "float32")):
            with R.dataflow():
                lv = R.permute_dims(x)
                lv1 = R.permute_dims(lv, axes=[1, 0])
                gv = R.add(lv1, x)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((3, 4), "float32")):
            with R.dataflow():
                gv = R.add(x, x)
                R.output(gv)
            return gv

    assert_structural_equal(_simplify(Before), Expected)


def test_batched_double_transpose():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3, 4), "float32")):
            with R.dataflow():
                lv = R.permute_dims(x, axes=[0, 2, 1])
                lv1 = R.permute_dims(lv, axes=[0, 2, 1])
                gv = R.exp(lv1)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3, 4), "float32")):
            with R.dataflow():
                gv = R.exp(x)
                R.output(gv)
            return gv

    assert_structural_equal(_simplify(Before), Expected)


def test_transpose_of_matmul_swaps_operands():
    @I.ir_module
    class Before:
        @R.function
        def main(a: R.Tensor((3, 4), "float32"), b: R.Tensor((4, 5), "float32")):
            with R.dataflow():
                lv = R.matmul(a, b, out_dtype="float32")
                gv = R.permute_dims(lv, axes=[1, 0])
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(a: R.Tensor((3, 4), "float32"), b: R.Tensor((4, 5), "float32")):
            with R.dataflow():
                lv = R.permute_dims(b, axes=[1, 0])
                lv1 = R.permute_dims(a, axes=[1, 0])
                gv = R.matmul(lv, lv1, out_dtype="float32")
                R.output(gv)
            return gv

    assert_structural_equal(_simplify(Before), Expected)


def test_transpose_of_matmul_reuses_transposed_operand():
    @I.ir_module
    class Before:
        @R.function
        def main(u: R.Tensor((4, 3), "float32"), b: R.Tensor((4, 5), "float32")):
            with R.dataflow():
                a = R.permute_dims(u)
                lv = R.matmul(a, b)
                gv = R.permute_dims(lv)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(u: R.Tensor((4, 3), "float32"), b: R.Tensor((4, 5), "float32")):
            with R.dataflow():
                lv = R.permute_dims(b, axes=[1, 0])
                gv = R.matmul(lv, u)
                R.output(gv)
            return gv

    assert_structural_equal(_simplify(Before), Expected)


def test_non_transposes_are_left_alone():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3, 4), "float32"), v: R.Tensor((4,), "float32")):
            with R.dataflow():
                # axes=None on a 3-D tensor reverses all axes: not a transpose.
                lv = R.permute_dims(x)
                lv1 = R.permute_dims(lv)
                # A matmul with a 1-D operand is not rewritten.
                lv2 = R.matmul(x, v)
                lv3 = R.permute_dims(lv2, axes=[1, 0])
                gv = (lv1, lv3)
                R.output(gv)
            return gv

    assert_structural_equal(_simplify(Before), Before)


def _double_transposes(func):
    values = {b.var: b.value for b in func.body.blocks[0].bindings}
    found = []
    for var, value in values.items():
        if getattr(getattr(value, "op", None), "name", "") != "relax.permute_dims":
            continue
        inner = values.get(value.args[0])
        if getattr(getattr(inner, "op", None), "name", "") == "relax.permute_dims":
            found.append(var.name_hint)
    return found


def test_mlp_adjoint_has_no_double_transpose():
    @I.ir_module
    class MLP:
        @R.function
        def main(
            x: R.Tensor((4, 6), "float32"),
            w0: R.Tensor((8, 6), "float32"),
            w1: R.Tensor((3, 8), "float32"),
            label: R.Tensor((4,), "int64"),
        ):
            with R.dataflow():
                lv0 = R.permute_dims(w0)
                lv1 = R.matmul(x, lv0)
                lv2 = R.nn.relu(lv1)
                lv3 = R.permute_dims(w1)
                lv4 = R.matmul(lv2, lv3)
                lv5 = R.nn.log_softmax(lv4)
                gv = R.nn.nll_loss(lv5, label)
                R.output(gv)
            return gv

    params = MLP["main"].params
    after = relax.transform.Gradient("main", require_grads=[params[1], params[2]])(MLP)
    adjoint = after["main_adjoint"]
    assert _double_transposes(adjoint) == []
    # Rule 2 turned the transposed weight gradients into plain matmuls.
    values = {b.var.name_hint: b.value for b in adjoint.body.blocks[0].bindings}
    assert values["w1_adjoint"].op.name == "relax.matmul"
    assert values["w0_adjoint"].op.name == "relax.matmul"
