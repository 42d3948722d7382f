"""FuseOps merges injective chains that meet in one injective call (a diamond)."""

import numpy as np

import tvm
from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.relax.ir.instrument import WellFormedInstrument
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Diamond:
    @R.function
    def main(x: R.Tensor((4, 8), "float32"), dy: R.Tensor((4, 8), "float32")):
        with R.dataflow():
            a = R.exp(x)
            b = R.negative(a)
            c = R.multiply(x, x)
            d = R.sqrt(c)
            e = R.add(b, d)
            f = R.multiply(dy, e)
            R.output(f)
        return f


def _annotated(mod):
    return relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(mod))


def _fuse(mod):
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        return relax.transform.FuseOps()(mod)


def test_two_chains_from_one_input_meet_in_one_kernel():
    base = _annotated(Diamond)
    fused = _fuse(base)
    # Expected, built by hand: the two chains, their add and the final multiply in one
    # function, in binding order.
    gv = {g.name_hint: g for g in base.get_global_vars()}
    base.remove(gv["main"])
    bb = relax.BlockBuilder(base)
    ty = relax.TensorType((4, 8), "float32")
    fx, fdy = relax.Var("x", ty), relax.Var("dy", ty)
    name = "fused_tir_exp_tir_negative_multiply_tir_sqrt_add_multiply1"
    with bb.function(name, [fx, fdy], attrs={"Primitive": True}, private=True):
        with bb.dataflow():
            a = bb.emit(relax.op.call_tir(gv["tir_exp"], [fx], ty))
            b = bb.emit(relax.op.call_tir(gv["tir_negative"], [a], ty))
            c = bb.emit(relax.op.call_tir(gv["multiply"], [fx], ty))
            d = bb.emit(relax.op.call_tir(gv["tir_sqrt"], [c], ty))
            e = bb.emit(relax.op.call_tir(gv["add"], [b, d], ty))
            f = bb.emit_output(relax.op.call_tir(gv["multiply1"], [fdy, e], ty))
        bb.emit_func_output(f)
    fused_gv = bb.get().get_global_var(name)
    x, dy = relax.Var("x", ty), relax.Var("dy", ty)
    with bb.function("main", [x, dy]):
        with bb.dataflow():
            out = bb.emit_output(relax.Call(fused_gv, [x, dy]))
        bb.emit_func_output(out)
    assert_structural_equal(fused, bb.get())


def test_diamond_compiles_to_one_kernel_with_the_same_values():
    ex = relax.build(Diamond, target="llvm")
    assert len(ex._codes["main"][0].kernels) == 1
    vm = relax.VirtualMachine(ex, tvm.cpu())
    rng = np.random.default_rng(0)
    x, dy = (rng.standard_normal((4, 8)).astype("float32") for _ in range(2))
    expected = dy * (-np.exp(x) + np.sqrt(x * x))
    np.testing.assert_allclose(vm["main"](x, dy).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_a_chain_is_not_merged_into_a_matmul_group():
    """The matmul's group keeps only its epilogue (the default schedule runs it on tiles);
    the other chain stays a kernel of its own."""

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((8, 8), "float32"), w: R.Tensor((8, 8), "float32")):
            with R.dataflow():
                m = R.matmul(x, w)
                a = R.exp(x)
                b = R.negative(a)
                c = R.add(m, b)
                R.output(c)
            return c

    fused = _fuse(_annotated(Mod))
    names = sorted(g.name_hint for g in fused.get_global_vars() if g.name_hint.startswith("f"))
    assert names == ["fused_matmul_add", "fused_tir_exp_tir_negative"]


def test_a_chain_whose_value_is_used_twice_is_not_merged():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4, 8), "float32")):
            with R.dataflow():
                a = R.exp(x)
                b = R.negative(a)
                c = R.sqrt(x)
                d = R.add(b, c)
                e = R.multiply(b, d)
                R.output(e)
            return e

    fused = _fuse(_annotated(Mod))
    names = sorted(g.name_hint for g in fused.get_global_vars() if g.name_hint.startswith("f"))
    # b feeds d and e: its chain stays a kernel; sqrt -> add -> multiply is one.
    assert names == ["fused_tir_exp_tir_negative", "fused_tir_sqrt_add_multiply"]
