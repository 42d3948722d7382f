"""Gradient pass over checkpointed segments (spec F.4): Before / Expected modules as TVM 0.27
prints them (markers stripped, ``*_cp`` recomputation), compared structurally."""

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import relax as R


def test_checkpoint_simple():
    """The spec F.4 example: a segment recomputed as lv1_cp in the backward pass."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                lv = R.exp(x)
                lv_scp = R.grad.start_checkpoint(lv)
                lv1 = R.multiply(lv_scp, lv_scp)
                lv2 = R.multiply(lv1, lv_scp)
                lv2_ecp = R.grad.end_checkpoint(lv2)
                gv = R.sum(lv2_ecp)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(x: R.Tensor((3, 3), dtype="float32")) -> R.Tuple(
            R.Tensor((), dtype="float32"), R.Tuple(R.Tensor((3, 3), dtype="float32"))
        ):
            with R.dataflow():
                lv: R.Tensor((3, 3), dtype="float32") = R.exp(x)
                lv1: R.Tensor((3, 3), dtype="float32") = R.multiply(lv, lv)
                lv2: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1, lv)
                gv: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
                gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv1_cp: R.Tensor((3, 3), dtype="float32") = R.multiply(lv, lv)
                lv2_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    gv_adjoint, R.shape([3, 3])
                )
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2_adjoint, lv)
                lv_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2_adjoint, lv1_cp)
                lv_1: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1_adjoint, lv)
                lv_adjoint1: R.Tensor((3, 3), dtype="float32") = R.add(lv_adjoint, lv_1)
                lv1_1: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1_adjoint, lv)
                lv_adjoint2: R.Tensor((3, 3), dtype="float32") = R.add(lv_adjoint1, lv1_1)
                x_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv_adjoint2, lv)
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                R.output(gv, x_adjoint_out)
            return (gv, (x_adjoint_out,))

        @R.function
        def main(x: R.Tensor((3, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv: R.Tensor((3, 3), dtype="float32") = R.exp(x)
                lv_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(lv)
                lv1: R.Tensor((3, 3), dtype="float32") = R.multiply(lv_scp, lv_scp)
                lv2: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1, lv_scp)
                lv2_ecp: R.Tensor((3, 3), dtype="float32") = R.grad.end_checkpoint(lv2)
                gv: R.Tensor((), dtype="float32") = R.sum(lv2_ecp, axis=None, keepdims=False)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_checkpoint_sequential():
    """Two back-to-back segments: each is recomputed from its kept input."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                x_scp = R.grad.start_checkpoint(x)
                lv1 = R.power(x_scp, R.const(3, "float32"))
                lv2 = R.sin(lv1)
                lv2_ecp = R.grad.end_checkpoint(lv2)
                lv2_scp = R.grad.start_checkpoint(lv2_ecp)
                lv3 = R.exp(lv2_scp)
                lv4 = R.tanh(lv3)
                lv4_ecp = R.grad.end_checkpoint(lv4)
                lv5 = R.multiply(lv4_ecp, lv4_ecp)
                gv = R.sum(lv5)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(x: R.Tensor((3, 3), dtype="float32")) -> R.Tuple(
            R.Tensor((), dtype="float32"), R.Tuple(R.Tensor((3, 3), dtype="float32"))
        ):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.power(x, R.const(3.0, "float32"))
                lv2: R.Tensor((3, 3), dtype="float32") = R.sin(lv1)
                lv3: R.Tensor((3, 3), dtype="float32") = R.exp(lv2)
                lv4: R.Tensor((3, 3), dtype="float32") = R.tanh(lv3)
                lv5: R.Tensor((3, 3), dtype="float32") = R.multiply(lv4, lv4)
                gv: R.Tensor((), dtype="float32") = R.sum(lv5, axis=None, keepdims=False)
                gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv5_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    gv_adjoint, R.shape([3, 3])
                )
                lv3_cp: R.Tensor((3, 3), dtype="float32") = R.exp(lv2)
                lv4_cp: R.Tensor((3, 3), dtype="float32") = R.tanh(lv3_cp)
                lv4_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv5_adjoint, lv4_cp)
                lv: R.Tensor((3, 3), dtype="float32") = R.multiply(lv5_adjoint, lv4_cp)
                lv4_adjoint1: R.Tensor((3, 3), dtype="float32") = R.add(lv4_adjoint, lv)
                lv1_1: R.Tensor((3, 3), dtype="float32") = R.multiply(lv4_cp, lv4_cp)
                lv2_1: R.Tensor((3, 3), dtype="float32") = R.subtract(
                    R.const(1.0, "float32"), lv1_1
                )
                lv3_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv4_adjoint1, lv2_1)
                lv2_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv3_adjoint, lv3_cp)
                lv1_cp: R.Tensor((3, 3), dtype="float32") = R.power(x, R.const(3.0, "float32"))
                lv3_1: R.Tensor((3, 3), dtype="float32") = R.cos(lv1_cp)
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2_adjoint, lv3_1)
                lv4_1: R.Tensor((3, 3), dtype="float32") = R.multiply(
                    lv1_adjoint, R.const(3.0, "float32")
                )
                lv5_1: R.Tensor((), dtype="float32") = R.subtract(
                    R.const(3.0, "float32"), R.const(1.0, "float32")
                )
                lv6: R.Tensor((3, 3), dtype="float32") = R.power(x, lv5_1)
                x_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv4_1, lv6)
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                R.output(gv, x_adjoint_out)
            return (gv, (x_adjoint_out,))

        @R.function
        def main(x: R.Tensor((3, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                x_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(x)
                lv1: R.Tensor((3, 3), dtype="float32") = R.power(x_scp, R.const(3.0, "float32"))
                lv2: R.Tensor((3, 3), dtype="float32") = R.sin(lv1)
                lv2_ecp: R.Tensor((3, 3), dtype="float32") = R.grad.end_checkpoint(lv2)
                lv2_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(lv2_ecp)
                lv3: R.Tensor((3, 3), dtype="float32") = R.exp(lv2_scp)
                lv4: R.Tensor((3, 3), dtype="float32") = R.tanh(lv3)
                lv4_ecp: R.Tensor((3, 3), dtype="float32") = R.grad.end_checkpoint(lv4)
                lv5: R.Tensor((3, 3), dtype="float32") = R.multiply(lv4_ecp, lv4_ecp)
                gv: R.Tensor((), dtype="float32") = R.sum(lv5, axis=None, keepdims=False)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_checkpoint_nested():
    """A segment nested in another one."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                x_scp = R.grad.start_checkpoint(x)
                lv1 = R.multiply(x_scp, y)
                lv1_scp = R.grad.start_checkpoint(lv1)
                lv2 = R.exp(lv1_scp)
                lv3 = R.multiply(lv2, lv1_scp)
                lv3_ecp = R.grad.end_checkpoint(lv3)
                lv4 = R.add(lv3_ecp, x_scp)
                lv4_ecp = R.grad.end_checkpoint(lv4)
                gv = R.sum(lv4_ecp)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
        ):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.multiply(x, y)
                lv2: R.Tensor((3, 3), dtype="float32") = R.exp(lv1)
                lv3: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2, lv1)
                lv4: R.Tensor((3, 3), dtype="float32") = R.add(lv3, x)
                gv: R.Tensor((), dtype="float32") = R.sum(lv4, axis=None, keepdims=False)
                gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv2_cp: R.Tensor((3, 3), dtype="float32") = R.exp(lv1)
                lv4_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    gv_adjoint, R.shape([3, 3])
                )
                lv3_adjoint: R.Tensor((3, 3), dtype="float32") = lv4_adjoint
                x_adjoint: R.Tensor((3, 3), dtype="float32") = lv4_adjoint
                lv2_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv3_adjoint, lv1)
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv3_adjoint, lv2_cp)
                lv: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2_adjoint, lv2_cp)
                lv1_adjoint1: R.Tensor((3, 3), dtype="float32") = R.add(lv1_adjoint, lv)
                lv1_1: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1_adjoint1, y)
                x_adjoint1: R.Tensor((3, 3), dtype="float32") = R.add(x_adjoint, lv1_1)
                y_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1_adjoint1, x)
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint1
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
                R.output(gv, x_adjoint_out, y_adjoint_out)
            return (gv, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                x_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(x)
                lv1: R.Tensor((3, 3), dtype="float32") = R.multiply(x_scp, y)
                lv1_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(lv1)
                lv2: R.Tensor((3, 3), dtype="float32") = R.exp(lv1_scp)
                lv3: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2, lv1_scp)
                lv3_ecp: R.Tensor((3, 3), dtype="float32") = R.grad.end_checkpoint(lv3)
                lv4: R.Tensor((3, 3), dtype="float32") = R.add(lv3_ecp, x_scp)
                lv4_ecp: R.Tensor((3, 3), dtype="float32") = R.grad.end_checkpoint(lv4)
                gv: R.Tensor((), dtype="float32") = R.sum(lv4_ecp, axis=None, keepdims=False)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_checkpoint_tuple():
    """A tuple built inside a checkpointed segment."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                x_scp = R.grad.start_checkpoint(x)
                y_scp = R.grad.start_checkpoint(y)
                lv1 = (x_scp, y_scp)
                lv2 = lv1[0]
                lv3 = R.multiply(lv2, y_scp)
                lv4 = R.exp(lv3)
                lv4_ecp = R.grad.end_checkpoint(lv4)
                gv = R.sum(lv4_ecp)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
        ):
            with R.dataflow():
                lv1: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = x, y
                lv2: R.Tensor((3, 3), dtype="float32") = lv1[0]
                lv3: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2, y)
                lv4: R.Tensor((3, 3), dtype="float32") = R.exp(lv3)
                gv: R.Tensor((), dtype="float32") = R.sum(lv4, axis=None, keepdims=False)
                gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv1_cp: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = x, y
                lv2_cp: R.Tensor((3, 3), dtype="float32") = lv1_cp[0]
                lv3_cp: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2_cp, y)
                lv4_cp: R.Tensor((3, 3), dtype="float32") = R.exp(lv3_cp)
                lv4_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    gv_adjoint, R.shape([3, 3])
                )
                lv3_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv4_adjoint, lv4_cp)
                lv2_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv3_adjoint, y)
                y_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv3_adjoint, lv2_cp)
                lv: R.Tensor((3, 3), dtype="float32") = R.zeros(R.shape([3, 3]), dtype="float32")
                lv1_adjoint: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv2_adjoint, lv
                x_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint[0]
                lv1_1: R.Tensor((3, 3), dtype="float32") = lv1_adjoint[1]
                y_adjoint1: R.Tensor((3, 3), dtype="float32") = R.add(y_adjoint, lv1_1)
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint1
                R.output(gv, x_adjoint_out, y_adjoint_out)
            return (gv, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                x_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(x)
                y_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(y)
                lv1: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = x_scp, y_scp
                lv2: R.Tensor((3, 3), dtype="float32") = lv1[0]
                lv3: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2, y_scp)
                lv4: R.Tensor((3, 3), dtype="float32") = R.exp(lv3)
                lv4_ecp: R.Tensor((3, 3), dtype="float32") = R.grad.end_checkpoint(lv4)
                gv: R.Tensor((), dtype="float32") = R.sum(lv4_ecp, axis=None, keepdims=False)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_checkpoint_output_marker():
    """end_checkpoint bound to the function output: an output alias stands in for it."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                x_scp = R.grad.start_checkpoint(x)
                lv1 = R.exp(x_scp)
                lv2 = R.sum(lv1)
                gv = R.grad.end_checkpoint(lv2)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(x: R.Tensor((3, 3), dtype="float32")) -> R.Tuple(
            R.Tensor((), dtype="float32"), R.Tuple(R.Tensor((3, 3), dtype="float32"))
        ):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.exp(x)
                lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                lv2_1: R.Tensor((), dtype="float32") = lv2
                lv2_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv2_adjoint1: R.Tensor((), dtype="float32") = lv2_adjoint
                lv1_cp: R.Tensor((3, 3), dtype="float32") = R.exp(x)
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv2_adjoint1, R.shape([3, 3])
                )
                x_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1_adjoint, lv1_cp)
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                R.output(lv2_1, x_adjoint_out)
            return (lv2_1, (x_adjoint_out,))

        @R.function
        def main(x: R.Tensor((3, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                x_scp: R.Tensor((3, 3), dtype="float32") = R.grad.start_checkpoint(x)
                lv1: R.Tensor((3, 3), dtype="float32") = R.exp(x_scp)
                lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                gv: R.Tensor((), dtype="float32") = R.grad.end_checkpoint(lv2)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])
