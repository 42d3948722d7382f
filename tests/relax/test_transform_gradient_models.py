"""Gradient pass with the simplifier (spec F.5) and whole models (MLPs with cross-entropy and
nll_loss): Before / Expected modules as TVM 0.27 prints them, compared structurally."""

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import relax as R


def test_simplify_matmul_tb():
    """GradientSimplifier: matmul(a, T(b)) gives matmul(g, b) and matmul(T(g), a)."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((5, 4), "float32")):
            with R.dataflow():
                lv1 = R.permute_dims(y)
                lv2 = R.matmul(x, lv1)
                lv3 = R.sum(lv2)
                R.output(lv3)
            return lv3

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((5, 4), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((5, 4), dtype="float32")),
        ):
            with R.dataflow():
                lv1: R.Tensor((4, 5), dtype="float32") = R.permute_dims(y, axes=None)
                lv2: R.Tensor((3, 5), dtype="float32") = R.matmul(x, lv1, out_dtype=None)
                lv3: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
                lv3_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv2_adjoint: R.Tensor((3, 5), dtype="float32") = R.broadcast_to(
                    lv3_adjoint, R.shape([3, 5])
                )
                x_adjoint: R.Tensor((3, 4), dtype="float32") = R.matmul(
                    lv2_adjoint, y, out_dtype=None
                )
                lv: R.Tensor((5, 3), dtype="float32") = R.permute_dims(lv2_adjoint, axes=[1, 0])
                y_adjoint: R.Tensor((5, 4), dtype="float32") = R.matmul(lv, x, out_dtype=None)
                x_adjoint_out: R.Tensor((3, 4), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((5, 4), dtype="float32") = y_adjoint
                R.output(lv3, x_adjoint_out, y_adjoint_out)
            return (lv3, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((5, 4), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((4, 5), dtype="float32") = R.permute_dims(y, axes=None)
                lv2: R.Tensor((3, 5), dtype="float32") = R.matmul(x, lv1, out_dtype=None)
                lv3: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
                R.output(lv3)
            return lv3

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_simplify_matmul_ta():
    """GradientSimplifier: matmul(T(a), b) gives matmul(b, T(g)) and matmul(a, g)."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4, 3), "float32"), y: R.Tensor((4, 5), "float32")):
            with R.dataflow():
                lv1 = R.permute_dims(x, axes=[1, 0])
                lv2 = R.matmul(lv1, y)
                lv3 = R.sum(lv2)
                R.output(lv3)
            return lv3

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((4, 3), dtype="float32"), y: R.Tensor((4, 5), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((4, 3), dtype="float32"), R.Tensor((4, 5), dtype="float32")),
        ):
            with R.dataflow():
                lv1: R.Tensor((3, 4), dtype="float32") = R.permute_dims(x, axes=[1, 0])
                lv2: R.Tensor((3, 5), dtype="float32") = R.matmul(lv1, y, out_dtype=None)
                lv3: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
                lv3_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv2_adjoint: R.Tensor((3, 5), dtype="float32") = R.broadcast_to(
                    lv3_adjoint, R.shape([3, 5])
                )
                y_adjoint: R.Tensor((4, 5), dtype="float32") = R.matmul(
                    x, lv2_adjoint, out_dtype=None
                )
                lv: R.Tensor((5, 3), dtype="float32") = R.permute_dims(lv2_adjoint, axes=[1, 0])
                x_adjoint: R.Tensor((4, 3), dtype="float32") = R.matmul(y, lv, out_dtype=None)
                x_adjoint_out: R.Tensor((4, 3), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((4, 5), dtype="float32") = y_adjoint
                R.output(lv3, x_adjoint_out, y_adjoint_out)
            return (lv3, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((4, 3), dtype="float32"), y: R.Tensor((4, 5), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 4), dtype="float32") = R.permute_dims(x, axes=[1, 0])
                lv2: R.Tensor((3, 5), dtype="float32") = R.matmul(lv1, y, out_dtype=None)
                lv3: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
                R.output(lv3)
            return lv3

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_simplify_matmul_ta_tb():
    """GradientSimplifier: matmul(T(a), T(b)) gives matmul(T(b), T(g)) and matmul(T(g), T(a))."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((4, 3), "float32"), y: R.Tensor((5, 4), "float32")):
            with R.dataflow():
                lv1 = R.permute_dims(x)
                lv2 = R.permute_dims(y)
                lv3 = R.matmul(lv1, lv2)
                lv4 = R.sum(lv3)
                R.output(lv4)
            return lv4

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((4, 3), dtype="float32"), y: R.Tensor((5, 4), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((4, 3), dtype="float32"), R.Tensor((5, 4), dtype="float32")),
        ):
            with R.dataflow():
                lv1: R.Tensor((3, 4), dtype="float32") = R.permute_dims(x, axes=None)
                lv2: R.Tensor((4, 5), dtype="float32") = R.permute_dims(y, axes=None)
                lv3: R.Tensor((3, 5), dtype="float32") = R.matmul(lv1, lv2, out_dtype=None)
                lv4: R.Tensor((), dtype="float32") = R.sum(lv3, axis=None, keepdims=False)
                lv4_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv3_adjoint: R.Tensor((3, 5), dtype="float32") = R.broadcast_to(
                    lv4_adjoint, R.shape([3, 5])
                )
                lv: R.Tensor((5, 3), dtype="float32") = R.permute_dims(lv3_adjoint, axes=[1, 0])
                lv1_1: R.Tensor((3, 4), dtype="float32") = R.permute_dims(x, axes=[1, 0])
                y_adjoint: R.Tensor((5, 4), dtype="float32") = R.matmul(lv, lv1_1, out_dtype=None)
                lv2_1: R.Tensor((4, 5), dtype="float32") = R.permute_dims(y, axes=[1, 0])
                lv3_1: R.Tensor((5, 3), dtype="float32") = R.permute_dims(lv3_adjoint, axes=[1, 0])
                x_adjoint: R.Tensor((4, 3), dtype="float32") = R.matmul(
                    lv2_1, lv3_1, out_dtype=None
                )
                x_adjoint_out: R.Tensor((4, 3), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((5, 4), dtype="float32") = y_adjoint
                R.output(lv4, x_adjoint_out, y_adjoint_out)
            return (lv4, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((4, 3), dtype="float32"), y: R.Tensor((5, 4), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 4), dtype="float32") = R.permute_dims(x, axes=None)
                lv2: R.Tensor((4, 5), dtype="float32") = R.permute_dims(y, axes=None)
                lv3: R.Tensor((3, 5), dtype="float32") = R.matmul(lv1, lv2, out_dtype=None)
                lv4: R.Tensor((), dtype="float32") = R.sum(lv3, axis=None, keepdims=False)
                R.output(lv4)
            return lv4

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_simplify_matmul_batched():
    """GradientSimplifier on batched (3-D) transposes of the last two axes."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3, 4), "float32"), y: R.Tensor((2, 5, 4), "float32")):
            with R.dataflow():
                lv1 = R.permute_dims(y, axes=[0, 2, 1])
                lv2 = R.matmul(x, lv1)
                lv3 = R.sum(lv2)
                R.output(lv3)
            return lv3

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((2, 3, 4), dtype="float32"), y: R.Tensor((2, 5, 4), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((2, 3, 4), dtype="float32"), R.Tensor((2, 5, 4), dtype="float32")),
        ):
            with R.dataflow():
                lv1: R.Tensor((2, 4, 5), dtype="float32") = R.permute_dims(y, axes=[0, 2, 1])
                lv2: R.Tensor((2, 3, 5), dtype="float32") = R.matmul(x, lv1, out_dtype=None)
                lv3: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
                lv3_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv2_adjoint: R.Tensor((2, 3, 5), dtype="float32") = R.broadcast_to(
                    lv3_adjoint, R.shape([2, 3, 5])
                )
                x_adjoint: R.Tensor((2, 3, 4), dtype="float32") = R.matmul(
                    lv2_adjoint, y, out_dtype=None
                )
                lv: R.Tensor((2, 5, 3), dtype="float32") = R.permute_dims(
                    lv2_adjoint, axes=[0, 2, 1]
                )
                y_adjoint: R.Tensor((2, 5, 4), dtype="float32") = R.matmul(lv, x, out_dtype=None)
                x_adjoint_out: R.Tensor((2, 3, 4), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((2, 5, 4), dtype="float32") = y_adjoint
                R.output(lv3, x_adjoint_out, y_adjoint_out)
            return (lv3, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((2, 3, 4), dtype="float32"), y: R.Tensor((2, 5, 4), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((2, 4, 5), dtype="float32") = R.permute_dims(y, axes=[0, 2, 1])
                lv2: R.Tensor((2, 3, 5), dtype="float32") = R.matmul(x, lv1, out_dtype=None)
                lv3: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
                R.output(lv3)
            return lv3

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_mlp_cross_entropy():
    """A two-layer MLP with log_softmax and cross_entropy_with_logits."""

    @I.ir_module
    class Before:
        @R.function
        def main(
            x: R.Tensor((4, 6), "float32"),
            w0: R.Tensor((6, 8), "float32"),
            b0: R.Tensor((8,), "float32"),
            w1: R.Tensor((8, 3), "float32"),
            b1: R.Tensor((3,), "float32"),
            label: R.Tensor((4, 3), "float32"),
        ):
            with R.dataflow():
                lv0 = R.matmul(x, w0)
                lv1 = R.add(lv0, b0)
                lv2 = R.nn.relu(lv1)
                lv3 = R.matmul(lv2, w1)
                lv4 = R.add(lv3, b1)
                lv5 = R.nn.log_softmax(lv4)
                gv = R.nn.cross_entropy_with_logits(lv5, label)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((4, 6), dtype="float32"),
            w0: R.Tensor((6, 8), dtype="float32"),
            b0: R.Tensor((8,), dtype="float32"),
            w1: R.Tensor((8, 3), dtype="float32"),
            b1: R.Tensor((3,), dtype="float32"),
            label: R.Tensor((4, 3), dtype="float32"),
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(
                R.Tensor((6, 8), dtype="float32"),
                R.Tensor((8,), dtype="float32"),
                R.Tensor((8, 3), dtype="float32"),
                R.Tensor((3,), dtype="float32"),
            ),
        ):
            with R.dataflow():
                lv0: R.Tensor((4, 8), dtype="float32") = R.matmul(x, w0, out_dtype=None)
                lv1: R.Tensor((4, 8), dtype="float32") = R.add(lv0, b0)
                lv2: R.Tensor((4, 8), dtype="float32") = R.nn.relu(lv1)
                lv3: R.Tensor((4, 3), dtype="float32") = R.matmul(lv2, w1, out_dtype=None)
                lv4: R.Tensor((4, 3), dtype="float32") = R.add(lv3, b1)
                lv5: R.Tensor((4, 3), dtype="float32") = R.nn.log_softmax(lv4, axis=-1)
                gv: R.Tensor((), dtype="float32") = R.nn.cross_entropy_with_logits(lv5, label)
                gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv: R.Tensor((), dtype="float32") = R.divide(gv_adjoint, R.const(4.0, "float32"))
                lv1_1: R.Tensor((), dtype="float32") = R.negative(lv)
                lv5_adjoint: R.Tensor((4, 3), dtype="float32") = R.multiply(lv1_1, label)
                lv3_1: R.Tensor((4, 1), dtype="float32") = R.sum(
                    lv5_adjoint, axis=[-1], keepdims=True
                )
                lv4_1: R.Tensor((4, 3), dtype="float32") = R.exp(lv5)
                lv5_1: R.Tensor((4, 3), dtype="float32") = R.multiply(lv3_1, lv4_1)
                lv4_adjoint: R.Tensor((4, 3), dtype="float32") = R.subtract(lv5_adjoint, lv5_1)
                lv3_adjoint: R.Tensor((4, 3), dtype="float32") = lv4_adjoint
                b1_adjoint: R.Tensor((3,), dtype="float32") = R.collapse_sum_to(
                    lv4_adjoint, R.shape([3])
                )
                lv6: R.Tensor((3, 8), dtype="float32") = R.permute_dims(w1, axes=[1, 0])
                lv7: R.Tensor((8, 4), dtype="float32") = R.permute_dims(lv2, axes=[1, 0])
                lv2_adjoint: R.Tensor((4, 8), dtype="float32") = R.matmul(
                    lv3_adjoint, lv6, out_dtype=None
                )
                w1_adjoint: R.Tensor((8, 3), dtype="float32") = R.matmul(
                    lv7, lv3_adjoint, out_dtype=None
                )
                lv8: R.Tensor((4, 8), dtype="bool") = R.less(lv1, R.const(0.0, "float32"))
                lv1_adjoint: R.Tensor((4, 8), dtype="float32") = R.where(
                    lv8, R.const(0.0, "float32"), lv2_adjoint
                )
                lv0_adjoint: R.Tensor((4, 8), dtype="float32") = lv1_adjoint
                b0_adjoint: R.Tensor((8,), dtype="float32") = R.collapse_sum_to(
                    lv1_adjoint, R.shape([8])
                )
                lv10: R.Tensor((6, 4), dtype="float32") = R.permute_dims(x, axes=[1, 0])
                w0_adjoint: R.Tensor((6, 8), dtype="float32") = R.matmul(
                    lv10, lv0_adjoint, out_dtype=None
                )
                w0_adjoint_out: R.Tensor((6, 8), dtype="float32") = w0_adjoint
                b0_adjoint_out: R.Tensor((8,), dtype="float32") = b0_adjoint
                w1_adjoint_out: R.Tensor((8, 3), dtype="float32") = w1_adjoint
                b1_adjoint_out: R.Tensor((3,), dtype="float32") = b1_adjoint
                R.output(gv, w0_adjoint_out, b0_adjoint_out, w1_adjoint_out, b1_adjoint_out)
            return (gv, (w0_adjoint_out, b0_adjoint_out, w1_adjoint_out, b1_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((4, 6), dtype="float32"),
            w0: R.Tensor((6, 8), dtype="float32"),
            b0: R.Tensor((8,), dtype="float32"),
            w1: R.Tensor((8, 3), dtype="float32"),
            b1: R.Tensor((3,), dtype="float32"),
            label: R.Tensor((4, 3), dtype="float32"),
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv0: R.Tensor((4, 8), dtype="float32") = R.matmul(x, w0, out_dtype=None)
                lv1: R.Tensor((4, 8), dtype="float32") = R.add(lv0, b0)
                lv2: R.Tensor((4, 8), dtype="float32") = R.nn.relu(lv1)
                lv3: R.Tensor((4, 3), dtype="float32") = R.matmul(lv2, w1, out_dtype=None)
                lv4: R.Tensor((4, 3), dtype="float32") = R.add(lv3, b1)
                lv5: R.Tensor((4, 3), dtype="float32") = R.nn.log_softmax(lv4, axis=-1)
                gv: R.Tensor((), dtype="float32") = R.nn.cross_entropy_with_logits(lv5, label)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main", require_grads=Before["main"].params[1:5])(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_mlp_nll_loss():
    """An MLP in the Linear layout (x @ W^T) with nll_loss: no double transposes remain."""

    @I.ir_module
    class Before:
        @R.function
        def main(
            x: R.Tensor((4, 6), "float32"),
            w0: R.Tensor((8, 6), "float32"),
            b0: R.Tensor((8,), "float32"),
            w1: R.Tensor((3, 8), "float32"),
            label: R.Tensor((4,), "int64"),
        ):
            with R.dataflow():
                lv0 = R.permute_dims(w0)
                lv1 = R.matmul(x, lv0)
                lv2 = R.add(lv1, b0)
                lv3 = R.sigmoid(lv2)
                lv4 = R.permute_dims(w1)
                lv5 = R.matmul(lv3, lv4)
                lv6 = R.nn.log_softmax(lv5)
                gv = R.nn.nll_loss(lv6, label)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((4, 6), dtype="float32"),
            w0: R.Tensor((8, 6), dtype="float32"),
            b0: R.Tensor((8,), dtype="float32"),
            w1: R.Tensor((3, 8), dtype="float32"),
            label: R.Tensor((4,), dtype="int64"),
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(
                R.Tensor((8, 6), dtype="float32"),
                R.Tensor((8,), dtype="float32"),
                R.Tensor((3, 8), dtype="float32"),
            ),
        ):
            with R.dataflow():
                lv0: R.Tensor((6, 8), dtype="float32") = R.permute_dims(w0, axes=None)
                lv1: R.Tensor((4, 8), dtype="float32") = R.matmul(x, lv0, out_dtype=None)
                lv2: R.Tensor((4, 8), dtype="float32") = R.add(lv1, b0)
                lv3: R.Tensor((4, 8), dtype="float32") = R.sigmoid(lv2)
                lv4: R.Tensor((8, 3), dtype="float32") = R.permute_dims(w1, axes=None)
                lv5: R.Tensor((4, 3), dtype="float32") = R.matmul(lv3, lv4, out_dtype=None)
                lv6: R.Tensor((4, 3), dtype="float32") = R.nn.log_softmax(lv5, axis=-1)
                gv: R.Tensor((), dtype="float32") = R.nn.nll_loss(
                    lv6, label, reduction="mean", ignore_index=-100
                )
                gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv6_adjoint: R.Tensor((4, 3), dtype="float32") = R.grad.nll_loss_backward(
                    gv_adjoint, lv6, label, reduction="mean", ignore_index=-100
                )
                lv: R.Tensor((4, 1), dtype="float32") = R.sum(lv6_adjoint, axis=[-1], keepdims=True)
                lv1_1: R.Tensor((4, 3), dtype="float32") = R.exp(lv6)
                lv2_1: R.Tensor((4, 3), dtype="float32") = R.multiply(lv, lv1_1)
                lv5_adjoint: R.Tensor((4, 3), dtype="float32") = R.subtract(lv6_adjoint, lv2_1)
                lv3_adjoint: R.Tensor((4, 8), dtype="float32") = R.matmul(
                    lv5_adjoint, w1, out_dtype=None
                )
                lv_1: R.Tensor((3, 4), dtype="float32") = R.permute_dims(lv5_adjoint, axes=[1, 0])
                w1_adjoint: R.Tensor((3, 8), dtype="float32") = R.matmul(lv_1, lv3, out_dtype=None)
                lv5_1: R.Tensor((4, 8), dtype="float32") = R.multiply(lv3_adjoint, lv3)
                lv6_1: R.Tensor((4, 8), dtype="float32") = R.subtract(R.const(1.0, "float32"), lv3)
                lv2_adjoint: R.Tensor((4, 8), dtype="float32") = R.multiply(lv5_1, lv6_1)
                lv1_adjoint: R.Tensor((4, 8), dtype="float32") = lv2_adjoint
                b0_adjoint: R.Tensor((8,), dtype="float32") = R.collapse_sum_to(
                    lv2_adjoint, R.shape([8])
                )
                lv1_2: R.Tensor((8, 4), dtype="float32") = R.permute_dims(lv1_adjoint, axes=[1, 0])
                w0_adjoint: R.Tensor((8, 6), dtype="float32") = R.matmul(lv1_2, x, out_dtype=None)
                w0_adjoint_out: R.Tensor((8, 6), dtype="float32") = w0_adjoint
                b0_adjoint_out: R.Tensor((8,), dtype="float32") = b0_adjoint
                w1_adjoint_out: R.Tensor((3, 8), dtype="float32") = w1_adjoint
                R.output(gv, w0_adjoint_out, b0_adjoint_out, w1_adjoint_out)
            return (gv, (w0_adjoint_out, b0_adjoint_out, w1_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((4, 6), dtype="float32"),
            w0: R.Tensor((8, 6), dtype="float32"),
            b0: R.Tensor((8,), dtype="float32"),
            w1: R.Tensor((3, 8), dtype="float32"),
            label: R.Tensor((4,), dtype="int64"),
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv0: R.Tensor((6, 8), dtype="float32") = R.permute_dims(w0, axes=None)
                lv1: R.Tensor((4, 8), dtype="float32") = R.matmul(x, lv0, out_dtype=None)
                lv2: R.Tensor((4, 8), dtype="float32") = R.add(lv1, b0)
                lv3: R.Tensor((4, 8), dtype="float32") = R.sigmoid(lv2)
                lv4: R.Tensor((8, 3), dtype="float32") = R.permute_dims(w1, axes=None)
                lv5: R.Tensor((4, 3), dtype="float32") = R.matmul(lv3, lv4, out_dtype=None)
                lv6: R.Tensor((4, 3), dtype="float32") = R.nn.log_softmax(lv5, axis=-1)
                gv: R.Tensor((), dtype="float32") = R.nn.nll_loss(
                    lv6, label, reduction="mean", ignore_index=-100
                )
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main", require_grads=Before["main"].params[1:4])(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])
