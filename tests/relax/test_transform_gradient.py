"""Gradient pass tests in the TVM style: Before / Expected modules (spec F.1-F.5).

The Expected modules are the modules Apache TVM 0.27 prints for the same Before module; the
IR under test is produced by our pass and compared with ``assert_structural_equal``.
"""

import tvm
from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def test_seed():
    """The source document's example: add then sum (spec F.1)."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                lv1 = R.add(x, y)
                lv2 = R.sum(lv1)
                R.output(lv2)
            return lv2

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
                lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
                lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                lv2_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv2_adjoint, R.shape([3, 3])
                )
                x_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
                y_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
                R.output(lv2, x_adjoint_out, y_adjoint_out)
            return (lv2, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
                lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                R.output(lv2)
            return lv2

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_chain_multiple_uses():
    """A chain where x is used three times: its adjoint accumulates (x_adjoint1, x_adjoint2)."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                lv1 = R.multiply(x, x)
                lv2 = R.add(lv1, y)
                lv3 = R.multiply(lv2, x)
                lv4 = R.sum(lv3)
                R.output(lv4)
            return lv4

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
                lv1: R.Tensor((3, 3), dtype="float32") = R.multiply(x, x)
                lv2: R.Tensor((3, 3), dtype="float32") = R.add(lv1, y)
                lv3: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2, x)
                lv4: R.Tensor((), dtype="float32") = R.sum(lv3, axis=None, keepdims=False)
                lv4_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv3_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv4_adjoint, R.shape([3, 3])
                )
                lv2_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv3_adjoint, x)
                x_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv3_adjoint, lv2)
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = lv2_adjoint
                y_adjoint: R.Tensor((3, 3), dtype="float32") = lv2_adjoint
                lv: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1_adjoint, x)
                x_adjoint1: R.Tensor((3, 3), dtype="float32") = R.add(x_adjoint, lv)
                lv1_1: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1_adjoint, x)
                x_adjoint2: R.Tensor((3, 3), dtype="float32") = R.add(x_adjoint1, lv1_1)
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint2
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
                R.output(lv4, x_adjoint_out, y_adjoint_out)
            return (lv4, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.multiply(x, x)
                lv2: R.Tensor((3, 3), dtype="float32") = R.add(lv1, y)
                lv3: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2, x)
                lv4: R.Tensor((), dtype="float32") = R.sum(lv3, axis=None, keepdims=False)
                R.output(lv4)
            return lv4

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_unused_param_zeros():
    """A parameter that does not reach the target gets R.zeros."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3,), "float32")):
            with R.dataflow():
                lv1 = R.exp(x)
                lv2 = R.sum(lv1)
                R.output(lv2)
            return lv2

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3,), dtype="float32")),
        ):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.exp(x)
                lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                lv2_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv2_adjoint, R.shape([3, 3])
                )
                x_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1_adjoint, lv1)
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                y_adjoint: R.Tensor((3,), dtype="float32") = R.zeros(R.shape([3]), dtype="float32")
                y_adjoint_out: R.Tensor((3,), dtype="float32") = y_adjoint
                R.output(lv2, x_adjoint_out, y_adjoint_out)
            return (lv2, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.exp(x)
                lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                R.output(lv2)
            return lv2

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_tuple_param():
    """A tuple parameter, a tuple literal and TupleGetItem: zero-filled tuple adjoints."""

    @I.ir_module
    class Before:
        @R.function
        def main(
            x: R.Tuple(R.Tensor((3, 3), "float32"), R.Tensor((3, 3), "float32")),
            y: R.Tensor((3, 3), "float32"),
            z: R.Tensor((3, 3), "float32"),
        ):
            with R.dataflow():
                lv1 = x[0]
                lv2 = (lv1, y)
                lv3 = lv2[1]
                lv4 = R.add(lv3, lv1)
                lv5 = R.sum(lv4)
                R.output(lv5)
            return lv5

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
            y: R.Tensor((3, 3), dtype="float32"),
            z: R.Tensor((3, 3), dtype="float32"),
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(
                R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
                R.Tensor((3, 3), dtype="float32"),
                R.Tensor((3, 3), dtype="float32"),
            ),
        ):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = x[0]
                lv2: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv1, y
                lv3: R.Tensor((3, 3), dtype="float32") = lv2[1]
                lv4: R.Tensor((3, 3), dtype="float32") = R.add(lv3, lv1)
                lv5: R.Tensor((), dtype="float32") = R.sum(lv4, axis=None, keepdims=False)
                lv5_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv4_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv5_adjoint, R.shape([3, 3])
                )
                lv3_adjoint: R.Tensor((3, 3), dtype="float32") = lv4_adjoint
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = lv4_adjoint
                lv: R.Tensor((3, 3), dtype="float32") = R.zeros(R.shape([3, 3]), dtype="float32")
                lv2_adjoint: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv, lv3_adjoint
                lv1_1: R.Tensor((3, 3), dtype="float32") = lv2_adjoint[0]
                lv1_adjoint1: R.Tensor((3, 3), dtype="float32") = R.add(lv1_adjoint, lv1_1)
                y_adjoint: R.Tensor((3, 3), dtype="float32") = lv2_adjoint[1]
                lv2_1: R.Tensor((3, 3), dtype="float32") = R.zeros(R.shape([3, 3]), dtype="float32")
                x_adjoint: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv1_adjoint1, lv2_1
                x_adjoint_out: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = x_adjoint
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
                z_adjoint: R.Tensor((3, 3), dtype="float32") = R.zeros(
                    R.shape([3, 3]), dtype="float32"
                )
                z_adjoint_out: R.Tensor((3, 3), dtype="float32") = z_adjoint
                R.output(lv5, x_adjoint_out, y_adjoint_out, z_adjoint_out)
            return (lv5, (x_adjoint_out, y_adjoint_out, z_adjoint_out))

        @R.function
        def main(
            x: R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
            y: R.Tensor((3, 3), dtype="float32"),
            z: R.Tensor((3, 3), dtype="float32"),
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = x[0]
                lv2: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv1, y
                lv3: R.Tensor((3, 3), dtype="float32") = lv2[1]
                lv4: R.Tensor((3, 3), dtype="float32") = R.add(lv3, lv1)
                lv5: R.Tensor((), dtype="float32") = R.sum(lv4, axis=None, keepdims=False)
                R.output(lv5)
            return lv5

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_tuple_concat_split():
    """concat/split and repeated TupleGetItem of a tuple parameter (tuple-aware add)."""

    @I.ir_module
    class Before:
        @R.function
        def main(
            x: R.Tuple(R.Tensor((3, 3), "float32"), R.Tensor((3, 3), "float32")),
            y: R.Tensor((3, 3), "float32"),
        ):
            with R.dataflow():
                lv1 = x[0]
                lv2 = x[1]
                lv3 = x[0]
                lv4 = R.add(lv1, lv2)
                lv5 = R.add(lv4, lv3)
                lv6 = R.concat((lv5, y), axis=0)
                lv7 = R.split(lv6, 2, axis=0)
                lv8 = lv7[0]
                lv9 = R.sum(lv8)
                R.output(lv9)
            return lv9

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
            y: R.Tensor((3, 3), dtype="float32"),
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(
                R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
                R.Tensor((3, 3), dtype="float32"),
            ),
        ):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = x[0]
                lv2: R.Tensor((3, 3), dtype="float32") = x[1]
                lv3: R.Tensor((3, 3), dtype="float32") = x[0]
                lv4: R.Tensor((3, 3), dtype="float32") = R.add(lv1, lv2)
                lv5: R.Tensor((3, 3), dtype="float32") = R.add(lv4, lv3)
                lv6: R.Tensor((6, 3), dtype="float32") = R.concat((lv5, y), axis=0)
                lv7: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = R.split(lv6, indices_or_sections=2, axis=0)
                lv8: R.Tensor((3, 3), dtype="float32") = lv7[0]
                lv9: R.Tensor((), dtype="float32") = R.sum(lv8, axis=None, keepdims=False)
                lv9_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv8_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv9_adjoint, R.shape([3, 3])
                )
                lv: R.Tensor((3, 3), dtype="float32") = R.zeros(R.shape([3, 3]), dtype="float32")
                lv7_adjoint: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv8_adjoint, lv
                lv6_adjoint: R.Tensor((6, 3), dtype="float32") = R.concat(lv7_adjoint, axis=0)
                lv1_1: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = R.split(lv6_adjoint, indices_or_sections=[3], axis=0)
                lv5_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_1[0]
                y_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_1[1]
                lv4_adjoint: R.Tensor((3, 3), dtype="float32") = lv5_adjoint
                lv3_adjoint: R.Tensor((3, 3), dtype="float32") = lv5_adjoint
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = lv4_adjoint
                lv2_adjoint: R.Tensor((3, 3), dtype="float32") = lv4_adjoint
                lv2_1: R.Tensor((3, 3), dtype="float32") = R.zeros(R.shape([3, 3]), dtype="float32")
                x_adjoint: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv3_adjoint, lv2_1
                lv3_1: R.Tensor((3, 3), dtype="float32") = x_adjoint[0]
                lv4_1: R.Tensor((3, 3), dtype="float32") = x_adjoint[1]
                lv5_1: R.Tensor((3, 3), dtype="float32") = R.add(lv4_1, lv2_adjoint)
                x_adjoint1: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv3_1, lv5_1
                lv6_1: R.Tensor((3, 3), dtype="float32") = x_adjoint1[0]
                lv7_1: R.Tensor((3, 3), dtype="float32") = R.add(lv6_1, lv1_adjoint)
                lv8_1: R.Tensor((3, 3), dtype="float32") = x_adjoint1[1]
                x_adjoint2: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv7_1, lv8_1
                x_adjoint_out: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = x_adjoint2
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
                R.output(lv9, x_adjoint_out, y_adjoint_out)
            return (lv9, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
            y: R.Tensor((3, 3), dtype="float32"),
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = x[0]
                lv2: R.Tensor((3, 3), dtype="float32") = x[1]
                lv3: R.Tensor((3, 3), dtype="float32") = x[0]
                lv4: R.Tensor((3, 3), dtype="float32") = R.add(lv1, lv2)
                lv5: R.Tensor((3, 3), dtype="float32") = R.add(lv4, lv3)
                lv6: R.Tensor((6, 3), dtype="float32") = R.concat((lv5, y), axis=0)
                lv7: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = R.split(lv6, indices_or_sections=2, axis=0)
                lv8: R.Tensor((3, 3), dtype="float32") = lv7[0]
                lv9: R.Tensor((), dtype="float32") = R.sum(lv8, axis=None, keepdims=False)
                R.output(lv9)
            return lv9

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_tuple_alias():
    """A tuple bound to a tuple literal, then aliased."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                lv1 = R.add(x, y)
                lv2 = (lv1, x)
                lv3 = lv2
                lv4 = lv3[0]
                lv5 = R.sum(lv4)
                R.output(lv5)
            return lv5

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
                lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
                lv2: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv1, x
                lv3: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv2
                lv4: R.Tensor((3, 3), dtype="float32") = lv3[0]
                lv5: R.Tensor((), dtype="float32") = R.sum(lv4, axis=None, keepdims=False)
                lv5_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv4_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv5_adjoint, R.shape([3, 3])
                )
                lv: R.Tensor((3, 3), dtype="float32") = R.zeros(R.shape([3, 3]), dtype="float32")
                lv3_adjoint: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv4_adjoint, lv
                lv2_adjoint: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv3_adjoint
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = lv2_adjoint[0]
                x_adjoint: R.Tensor((3, 3), dtype="float32") = lv2_adjoint[1]
                x_adjoint1: R.Tensor((3, 3), dtype="float32") = R.add(x_adjoint, lv1_adjoint)
                y_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint1
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
                R.output(lv5, x_adjoint_out, y_adjoint_out)
            return (lv5, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
                lv2: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv1, x
                lv3: R.Tuple(
                    R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")
                ) = lv2
                lv4: R.Tensor((3, 3), dtype="float32") = lv3[0]
                lv5: R.Tensor((), dtype="float32") = R.sum(lv4, axis=None, keepdims=False)
                R.output(lv5)
            return lv5

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_nested_tuple():
    """Nested tuples: fieldwise accumulation reads the nested field once."""

    @I.ir_module
    class Before:
        @R.function
        def main(
            x: R.Tuple(
                R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "float32")),
                R.Tensor((3,), "float32"),
            ),
        ):
            with R.dataflow():
                lv1 = x[0]
                lv2 = lv1[1]
                lv3 = x[1]
                lv4 = R.multiply(lv2, lv3)
                lv5 = ((lv4, lv3), lv2)
                lv6 = lv5[0]
                lv7 = lv6[0]
                lv8 = R.sum(lv7)
                R.output(lv8)
            return lv8

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tuple(
                R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
                R.Tensor((3,), dtype="float32"),
            ),
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(
                R.Tuple(
                    R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
                    R.Tensor((3,), dtype="float32"),
                )
            ),
        ):
            with R.dataflow():
                lv1: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = x[
                    0
                ]
                lv2: R.Tensor((3,), dtype="float32") = lv1[1]
                lv3: R.Tensor((3,), dtype="float32") = x[1]
                lv4: R.Tensor((3,), dtype="float32") = R.multiply(lv2, lv3)
                lv5: R.Tuple(
                    R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
                    R.Tensor((3,), dtype="float32"),
                ) = (lv4, lv3), lv2
                lv6: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = (
                    lv5[0]
                )
                lv7: R.Tensor((3,), dtype="float32") = lv6[0]
                lv8: R.Tensor((), dtype="float32") = R.sum(lv7, axis=None, keepdims=False)
                lv8_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv7_adjoint: R.Tensor((3,), dtype="float32") = R.broadcast_to(
                    lv8_adjoint, R.shape([3])
                )
                lv: R.Tensor((3,), dtype="float32") = R.zeros(R.shape([3]), dtype="float32")
                lv6_adjoint: R.Tuple(
                    R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")
                ) = lv7_adjoint, lv
                lv1_1: R.Tensor((3,), dtype="float32") = R.zeros(R.shape([3]), dtype="float32")
                lv5_adjoint: R.Tuple(
                    R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
                    R.Tensor((3,), dtype="float32"),
                ) = lv6_adjoint, lv1_1
                lv2_1: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = (
                    lv5_adjoint[0]
                )
                lv4_adjoint: R.Tensor((3,), dtype="float32") = lv2_1[0]
                lv3_adjoint: R.Tensor((3,), dtype="float32") = lv2_1[1]
                lv2_adjoint: R.Tensor((3,), dtype="float32") = lv5_adjoint[1]
                lv3_1: R.Tensor((3,), dtype="float32") = R.multiply(lv4_adjoint, lv3)
                lv2_adjoint1: R.Tensor((3,), dtype="float32") = R.add(lv2_adjoint, lv3_1)
                lv4_1: R.Tensor((3,), dtype="float32") = R.multiply(lv4_adjoint, lv2)
                lv3_adjoint1: R.Tensor((3,), dtype="float32") = R.add(lv3_adjoint, lv4_1)
                lv5_1: R.Tensor((3,), dtype="float32") = R.zeros(R.shape([3]), dtype="float32")
                lv6_1: R.Tensor((3,), dtype="float32") = R.zeros(R.shape([3]), dtype="float32")
                x_adjoint: R.Tuple(
                    R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
                    R.Tensor((3,), dtype="float32"),
                ) = (lv5_1, lv6_1), lv3_adjoint1
                lv7_1: R.Tensor((3,), dtype="float32") = R.zeros(R.shape([3]), dtype="float32")
                lv1_adjoint: R.Tuple(
                    R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")
                ) = lv7_1, lv2_adjoint1
                lv8_1: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = (
                    x_adjoint[0]
                )
                lv9: R.Tensor((3,), dtype="float32") = lv8_1[0]
                lv10: R.Tensor((3,), dtype="float32") = lv1_adjoint[0]
                lv11: R.Tensor((3,), dtype="float32") = R.add(lv9, lv10)
                lv12: R.Tensor((3,), dtype="float32") = lv8_1[1]
                lv13: R.Tensor((3,), dtype="float32") = lv1_adjoint[1]
                lv14: R.Tensor((3,), dtype="float32") = R.add(lv12, lv13)
                lv15: R.Tensor((3,), dtype="float32") = x_adjoint[1]
                x_adjoint1: R.Tuple(
                    R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
                    R.Tensor((3,), dtype="float32"),
                ) = (lv11, lv14), lv15
                x_adjoint_out: R.Tuple(
                    R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
                    R.Tensor((3,), dtype="float32"),
                ) = x_adjoint1
                R.output(lv8, x_adjoint_out)
            return (lv8, (x_adjoint_out,))

        @R.function
        def main(
            x: R.Tuple(
                R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
                R.Tensor((3,), dtype="float32"),
            ),
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = x[
                    0
                ]
                lv2: R.Tensor((3,), dtype="float32") = lv1[1]
                lv3: R.Tensor((3,), dtype="float32") = x[1]
                lv4: R.Tensor((3,), dtype="float32") = R.multiply(lv2, lv3)
                lv5: R.Tuple(
                    R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
                    R.Tensor((3,), dtype="float32"),
                ) = (lv4, lv3), lv2
                lv6: R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")) = (
                    lv5[0]
                )
                lv7: R.Tensor((3,), dtype="float32") = lv6[0]
                lv8: R.Tensor((), dtype="float32") = R.sum(lv7, axis=None, keepdims=False)
                R.output(lv8)
            return lv8

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_tuple_return_target_index():
    """A tuple return with target_index=1: only the second field is seeded."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                lv1 = R.sum(x)
                lv2 = R.sum(y)
                R.output(lv1, lv2)
            return (lv1, lv2)

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tuple(
            R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((), dtype="float32")),
            R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
        ):
            with R.dataflow():
                lv1: R.Tensor((), dtype="float32") = R.sum(x, axis=None, keepdims=False)
                lv2: R.Tensor((), dtype="float32") = R.sum(y, axis=None, keepdims=False)
                lv2_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                y_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv2_adjoint, R.shape([3, 3])
                )
                x_adjoint: R.Tensor((3, 3), dtype="float32") = R.zeros(
                    R.shape([3, 3]), dtype="float32"
                )
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
                R.output(lv1, lv2, x_adjoint_out, y_adjoint_out)
            return ((lv1, lv2), (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((), dtype="float32")):
            with R.dataflow():
                lv1: R.Tensor((), dtype="float32") = R.sum(x, axis=None, keepdims=False)
                lv2: R.Tensor((), dtype="float32") = R.sum(y, axis=None, keepdims=False)
                R.output(lv1, lv2)
            return (lv1, lv2)

    After = relax.transform.Gradient("main", target_index=1)(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_tuple_return_default():
    """A tuple return, default target_index 0; the other field does not matter."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                lv1 = R.sum(x)
                lv2 = R.multiply(y, y)
                R.output(lv1, lv2)
            return (lv1, lv2)

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tuple(
            R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
            R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32")),
        ):
            with R.dataflow():
                lv1: R.Tensor((), dtype="float32") = R.sum(x, axis=None, keepdims=False)
                lv2: R.Tensor((3, 3), dtype="float32") = R.multiply(y, y)
                lv1_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                x_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv1_adjoint, R.shape([3, 3])
                )
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                y_adjoint: R.Tensor((3, 3), dtype="float32") = R.zeros(
                    R.shape([3, 3]), dtype="float32"
                )
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
                R.output(lv1, lv2, x_adjoint_out, y_adjoint_out)
            return ((lv1, lv2), (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tensor((3, 3), dtype="float32")):
            with R.dataflow():
                lv1: R.Tensor((), dtype="float32") = R.sum(x, axis=None, keepdims=False)
                lv2: R.Tensor((3, 3), dtype="float32") = R.multiply(y, y)
                R.output(lv1, lv2)
            return (lv1, lv2)

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_require_grads_single():
    """require_grads given as a single Var."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                lv1 = R.multiply(x, y)
                lv2 = R.sum(lv1)
                R.output(lv2)
            return lv2

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tuple(R.Tensor((3, 3), dtype="float32"))):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.multiply(x, y)
                lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                lv2_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv2_adjoint, R.shape([3, 3])
                )
                y_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv1_adjoint, x)
                y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
                R.output(lv2, y_adjoint_out)
            return (lv2, (y_adjoint_out,))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.multiply(x, y)
                lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                R.output(lv2)
            return lv2

    After = relax.transform.Gradient("main", require_grads=Before["main"].params[1])(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_require_grads_intermediate():
    """require_grads naming a parameter, an intermediate var and the target."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
            with R.dataflow():
                lv1 = R.add(x, y)
                lv2 = R.exp(lv1)
                gv0 = R.sum(lv2)
                R.output(gv0)
            return gv0

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(
                R.Tensor((3, 3), dtype="float32"),
                R.Tensor((3, 3), dtype="float32"),
                R.Tensor((), dtype="float32"),
            ),
        ):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
                lv2: R.Tensor((3, 3), dtype="float32") = R.exp(lv1)
                gv0: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
                gv0_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv2_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    gv0_adjoint, R.shape([3, 3])
                )
                lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.multiply(lv2_adjoint, lv2)
                x_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                lv1_adjoint_out: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
                gv0_adjoint_out: R.Tensor((), dtype="float32") = gv0_adjoint
                R.output(gv0, x_adjoint_out, lv1_adjoint_out, gv0_adjoint_out)
            return (gv0, (x_adjoint_out, lv1_adjoint_out, gv0_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
                lv2: R.Tensor((3, 3), dtype="float32") = R.exp(lv1)
                gv0: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
                R.output(gv0)
            return gv0

    After = relax.transform.Gradient(
        "main",
        require_grads=[
            Before["main"].params[0],
            Before["main"].body.blocks[0].bindings[0].var,
            Before["main"].body.blocks[0].bindings[2].var,
        ],
    )(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_int_param_quirk():
    """Without require_grads, an int64 parameter gets an int64 zeros adjoint (as TVM)."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 3), "float32"), k: R.Tensor((3, 3), "int64")):
            with R.dataflow():
                lv1 = R.sum(x)
                R.output(lv1)
            return lv1

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 3), dtype="float32"), k: R.Tensor((3, 3), dtype="int64")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="int64")),
        ):
            with R.dataflow():
                lv1: R.Tensor((), dtype="float32") = R.sum(x, axis=None, keepdims=False)
                lv1_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                x_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(
                    lv1_adjoint, R.shape([3, 3])
                )
                x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
                k_adjoint: R.Tensor((3, 3), dtype="int64") = R.zeros(R.shape([3, 3]), dtype="int64")
                k_adjoint_out: R.Tensor((3, 3), dtype="int64") = k_adjoint
                R.output(lv1, x_adjoint_out, k_adjoint_out)
            return (lv1, (x_adjoint_out, k_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 3), dtype="float32"), k: R.Tensor((3, 3), dtype="int64")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv1: R.Tensor((), dtype="float32") = R.sum(x, axis=None, keepdims=False)
                R.output(lv1)
            return lv1

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


def test_constant_and_no_grad():
    """Constants get no adjoint; comparisons and the condition of where stop gradients."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                c = R.const([1.0, 2.0, 3.0], "float32")
                lv1 = R.multiply(x, c)
                lv2 = R.where(R.greater(x, c), lv1, c)
                lv3 = R.sum(lv2)
                R.output(lv3)
            return lv3

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(
            R.Tensor((), dtype="float32"), R.Tuple(R.Tensor((3,), dtype="float32"))
        ):
            with R.dataflow():
                c: R.Tensor((3,), dtype="float32") = R.const([1.0, 2.0, 3.0], "float32")
                lv1: R.Tensor((3,), dtype="float32") = R.multiply(x, c)
                lv2: R.Tensor((3,), dtype="bool") = R.greater(x, c)
                lv2_1: R.Tensor((3,), dtype="float32") = R.where(lv2, lv1, c)
                lv3: R.Tensor((), dtype="float32") = R.sum(lv2_1, axis=None, keepdims=False)
                lv3_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv2_adjoint: R.Tensor((3,), dtype="float32") = R.broadcast_to(
                    lv3_adjoint, R.shape([3])
                )
                lv1_adjoint: R.Tensor((3,), dtype="float32") = R.where(
                    lv2, lv2_adjoint, R.const(0.0, "float32")
                )
                x_adjoint: R.Tensor((3,), dtype="float32") = R.multiply(lv1_adjoint, c)
                x_adjoint_out: R.Tensor((3,), dtype="float32") = x_adjoint
                R.output(lv3, x_adjoint_out)
            return (lv3, (x_adjoint_out,))

        @R.function
        def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                c: R.Tensor((3,), dtype="float32") = R.const([1.0, 2.0, 3.0], "float32")
                lv1: R.Tensor((3,), dtype="float32") = R.multiply(x, c)
                lv2: R.Tensor((3,), dtype="bool") = R.greater(x, c)
                lv2_1: R.Tensor((3,), dtype="float32") = R.where(lv2, lv1, c)
                lv3: R.Tensor((), dtype="float32") = R.sum(lv2_1, axis=None, keepdims=False)
                R.output(lv3)
            return lv3

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
    assert_structural_equal(After["main"], Before["main"])


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


SEED_EXPECTED_TEXT = """# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main_adjoint(x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tuple(R.Tensor((3, 3), dtype="float32"), R.Tensor((3, 3), dtype="float32"))):
        with R.dataflow():
            lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
            lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
            lv2_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
            lv1_adjoint: R.Tensor((3, 3), dtype="float32") = R.broadcast_to(lv2_adjoint, R.shape([3, 3]))
            x_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
            y_adjoint: R.Tensor((3, 3), dtype="float32") = lv1_adjoint
            x_adjoint_out: R.Tensor((3, 3), dtype="float32") = x_adjoint
            y_adjoint_out: R.Tensor((3, 3), dtype="float32") = y_adjoint
            R.output(lv2, x_adjoint_out, y_adjoint_out)
        return (lv2, (x_adjoint_out, y_adjoint_out))

    @R.function
    def main(x: R.Tensor((3, 3), dtype="float32"), y: R.Tensor((3, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
        with R.dataflow():
            lv1: R.Tensor((3, 3), dtype="float32") = R.add(x, y)
            lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
            R.output(lv2)
        return lv2
"""


def _seed_module():
    x = relax.Var("x", relax.TensorType([3, 3], "float32"))
    y = relax.Var("y", relax.TensorType([3, 3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv1 = bb.emit(relax.op.add(x, y), "lv1")
            lv2 = bb.emit_output(relax.op.sum(lv1), "lv2")
        bb.emit_func_output(lv2)
    return bb.get()


def test_seed_example_text_byte_for_byte():
    """The docstring example prints exactly what Apache TVM 0.27 prints (spec F.1)."""
    after = relax.transform.Gradient("main")(_seed_module())
    assert after.script() + "\n" == SEED_EXPECTED_TEXT


def test_seed_example_structural():
    after = relax.transform.Gradient("main")(_seed_module())
    expected = tvm.script.from_source(SEED_EXPECTED_TEXT)
    assert_structural_equal(after, expected)


def test_adjoint_has_fresh_params_and_global_symbol():
    before = _seed_module()
    after = relax.transform.Gradient("main")(before)
    adjoint = after["main_adjoint"]
    assert adjoint.attrs["global_symbol"] == "main_adjoint"
    for new, old in zip(adjoint.params, before["main"].params):
        assert new is not old
        assert new.name_hint == old.name_hint
    # The input module is not modified and the original function is kept as is.
    assert "main_adjoint" not in before
    assert after["main"] is before["main"]


def test_symbolic_sum():
    """Symbolic shapes: broadcast, collapse_sum_to and R.ones/zeros use the symbolic dims."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor(("n", 3), "float32"), y: R.Tensor((3,), "float32")):
            with R.dataflow():
                lv = R.multiply(x, y)
                lv1 = R.sum(lv)
                R.output(lv1)
            return lv1

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor(("n", 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor(("n", 3), dtype="float32"), R.Tensor((3,), dtype="float32")),
        ):
            n = T.int64()
            with R.dataflow():
                lv: R.Tensor((n, 3), dtype="float32") = R.multiply(x, y)
                lv1: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)
                lv1_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv_adjoint: R.Tensor(("n", 3), dtype="float32") = R.broadcast_to(
                    lv1_adjoint, R.shape([n, 3])
                )
                x_adjoint: R.Tensor(("n", 3), dtype="float32") = R.multiply(lv_adjoint, y)
                lv_1: R.Tensor(("n", 3), dtype="float32") = R.multiply(lv_adjoint, x)
                y_adjoint: R.Tensor((3,), dtype="float32") = R.collapse_sum_to(lv_1, R.shape([3]))
                x_adjoint_out: R.Tensor(("n", 3), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((3,), dtype="float32") = y_adjoint
                R.output(lv1, x_adjoint_out, y_adjoint_out)
            return (lv1, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor(("n", 3), dtype="float32"), y: R.Tensor((3,), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            n = T.int64()
            with R.dataflow():
                lv: R.Tensor((n, 3), dtype="float32") = R.multiply(x, y)
                lv1: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)
                R.output(lv1)
            return lv1

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])


def test_call_function():
    """A call of another Relax function is treated as having no gradient (as TVM 0.27)."""

    @I.ir_module
    class Before:
        @R.function
        def f(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            return x

        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
            cls = Before
            with R.dataflow():
                lv = cls.f(y)
                lv1 = R.multiply(x, lv)
                gv = R.sum(lv1)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def f(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
            return x

        @R.function
        def main_adjoint(
            x: R.Tensor((3,), dtype="float32"), y: R.Tensor((3,), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
        ):
            cls = Expected
            with R.dataflow():
                lv: R.Tensor((3,), dtype="float32") = cls.f(y)
                lv1: R.Tensor((3,), dtype="float32") = R.multiply(x, lv)
                gv: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv1_adjoint: R.Tensor((3,), dtype="float32") = R.broadcast_to(
                    gv_adjoint, R.shape([3])
                )
                x_adjoint: R.Tensor((3,), dtype="float32") = R.multiply(lv1_adjoint, lv)
                x_adjoint_out: R.Tensor((3,), dtype="float32") = x_adjoint
                y_adjoint: R.Tensor((3,), dtype="float32") = R.zeros(R.shape([3]), dtype="float32")
                y_adjoint_out: R.Tensor((3,), dtype="float32") = y_adjoint
                R.output(gv, x_adjoint_out, y_adjoint_out)
            return (gv, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3,), dtype="float32"), y: R.Tensor((3,), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            cls = Expected
            with R.dataflow():
                lv: R.Tensor((3,), dtype="float32") = cls.f(y)
                lv1: R.Tensor((3,), dtype="float32") = R.multiply(x, lv)
                gv: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])


def test_float16():
    """A float16 target is seeded with float16 ones."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float16")):
            with R.dataflow():
                lv = R.exp(x)
                gv = R.sum(lv)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(x: R.Tensor((3,), dtype="float16")) -> R.Tuple(
            R.Tensor((), dtype="float16"), R.Tuple(R.Tensor((3,), dtype="float16"))
        ):
            with R.dataflow():
                lv: R.Tensor((3,), dtype="float16") = R.exp(x)
                gv: R.Tensor((), dtype="float16") = R.sum(lv, axis=None, keepdims=False)
                gv_adjoint: R.Tensor((), dtype="float16") = R.ones(R.shape([]), dtype="float16")
                lv_adjoint: R.Tensor((3,), dtype="float16") = R.broadcast_to(
                    gv_adjoint, R.shape([3])
                )
                x_adjoint: R.Tensor((3,), dtype="float16") = R.multiply(lv_adjoint, lv)
                x_adjoint_out: R.Tensor((3,), dtype="float16") = x_adjoint
                R.output(gv, x_adjoint_out)
            return (gv, (x_adjoint_out,))

        @R.function
        def main(x: R.Tensor((3,), dtype="float16")) -> R.Tensor((), dtype="float16"):
            with R.dataflow():
                lv: R.Tensor((3,), dtype="float16") = R.exp(x)
                gv: R.Tensor((), dtype="float16") = R.sum(lv, axis=None, keepdims=False)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])


def test_out_dtype():
    """The gradient matmuls drop out_dtype (out_dtype=None), as TVM 0.27 emits them."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3, 4), "float32"), y: R.Tensor((4, 2), "float32")):
            with R.dataflow():
                lv = R.matmul(x, y, out_dtype="float32")
                gv = R.sum(lv)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(
            x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((4, 2), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((3, 4), dtype="float32"), R.Tensor((4, 2), dtype="float32")),
        ):
            with R.dataflow():
                lv: R.Tensor((3, 2), dtype="float32") = R.matmul(x, y, out_dtype="float32")
                gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)
                gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv_adjoint: R.Tensor((3, 2), dtype="float32") = R.broadcast_to(
                    gv_adjoint, R.shape([3, 2])
                )
                lv_1: R.Tensor((2, 4), dtype="float32") = R.permute_dims(y, axes=[1, 0])
                lv1: R.Tensor((4, 3), dtype="float32") = R.permute_dims(x, axes=[1, 0])
                x_adjoint: R.Tensor((3, 4), dtype="float32") = R.matmul(
                    lv_adjoint, lv_1, out_dtype=None
                )
                y_adjoint: R.Tensor((4, 2), dtype="float32") = R.matmul(
                    lv1, lv_adjoint, out_dtype=None
                )
                x_adjoint_out: R.Tensor((3, 4), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((4, 2), dtype="float32") = y_adjoint
                R.output(gv, x_adjoint_out, y_adjoint_out)
            return (gv, (x_adjoint_out, y_adjoint_out))

        @R.function
        def main(
            x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((4, 2), dtype="float32")
        ) -> R.Tensor((), dtype="float32"):
            with R.dataflow():
                lv: R.Tensor((3, 2), dtype="float32") = R.matmul(x, y, out_dtype="float32")
                gv: R.Tensor((), dtype="float32") = R.sum(lv, axis=None, keepdims=False)
                R.output(gv)
            return gv

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])


def test_no_grad_in_forward_stops_the_gradient():
    """Beyond TVM 0.27 (which has no rule for it): a forward no_grad stops the gradient."""

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
            with R.dataflow():
                lv = R.grad.no_grad(y)
                lv1 = R.multiply(x, lv)
                gv = R.sum(lv1)
                R.output(gv)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main_adjoint(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tuple(
            R.Tensor((), "float32"), R.Tuple(R.Tensor((3,), "float32"), R.Tensor((3,), "float32"))
        ):
            with R.dataflow():
                lv = R.grad.no_grad(y)
                lv1 = R.multiply(x, lv)
                gv = R.sum(lv1)
                gv_adjoint = R.ones(R.shape([]), "float32")
                lv1_adjoint = R.broadcast_to(gv_adjoint, R.shape([3]))
                x_adjoint = R.multiply(lv1_adjoint, lv)
                x_adjoint_out = x_adjoint
                y_adjoint = R.zeros(R.shape([3]), "float32")
                y_adjoint_out = y_adjoint
                R.output(gv, x_adjoint_out, y_adjoint_out)
            return (gv, (x_adjoint_out, y_adjoint_out))

    After = relax.transform.Gradient("main")(Before)
    assert_structural_equal(After["main_adjoint"], Expected["main_adjoint"])
