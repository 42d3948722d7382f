"""Gradient pass tests in the TVM style: Before / Expected modules (spec F.1-F.3).

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
    """A call of another Relax function is inlined and differentiated.

    Apache TVM 0.27 treats the call as constant and returns zeros for ``y``; pytvm inlines
    ``f`` (here the identity), so ``y`` gets ``x * lv1_adjoint``. More cases, with finite
    differences, in ``test_transform_gradient_calls.py``.
    """

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
        def main_adjoint(
            x: R.Tensor((3,), dtype="float32"), y: R.Tensor((3,), dtype="float32")
        ) -> R.Tuple(
            R.Tensor((), dtype="float32"),
            R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((3,), dtype="float32")),
        ):
            with R.dataflow():
                lv: R.Tensor((3,), dtype="float32") = y
                lv1: R.Tensor((3,), dtype="float32") = R.multiply(x, lv)
                gv: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
                gv_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
                lv1_adjoint: R.Tensor((3,), dtype="float32") = R.broadcast_to(
                    gv_adjoint, R.shape([3])
                )
                x_adjoint: R.Tensor((3,), dtype="float32") = R.multiply(lv1_adjoint, lv)
                lv_adjoint: R.Tensor((3,), dtype="float32") = R.multiply(lv1_adjoint, x)
                y_adjoint: R.Tensor((3,), dtype="float32") = lv_adjoint
                x_adjoint_out: R.Tensor((3,), dtype="float32") = x_adjoint
                y_adjoint_out: R.Tensor((3,), dtype="float32") = y_adjoint
                R.output(gv, x_adjoint_out, y_adjoint_out)
            return (gv, (x_adjoint_out, y_adjoint_out))

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


def test_adjoint_modules_are_well_formed():
    """The module with the adjoint passes the well-formedness check (it throws otherwise)."""
    after = relax.transform.Gradient("main")(_seed_module())
    relax.analysis.well_formed(after)
    assert relax.analysis.check_well_formed(after)


def test_pass_runs_inside_sequential_and_pass_context():
    seq = tvm.ir.transform.Sequential([relax.transform.Gradient("main")])
    with tvm.transform.PassContext(opt_level=0):
        after = seq(_seed_module())
    assert "main_adjoint" in after
