"""Gradient pass, tuples in and out (spec F.3): Before / Expected modules as TVM 0.27 prints
them, compared structurally with what our pass produces."""

from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import relax as R


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
