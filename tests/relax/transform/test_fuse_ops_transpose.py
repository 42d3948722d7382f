"""FuseOps: a lone transpose (permute_dims) joins the matmul that reads it; others do not."""

import numpy as np

import tvm
from tvm import relax
from tvm.ir import assert_structural_equal
from tvm.relax.ir.instrument import WellFormedInstrument
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Grad:
    @R.function
    def main(x: R.Tensor((8, 5), "float32"), dy: R.Tensor((8, 4), "float32"),
             w: R.Tensor((5, 4), "float32")):
        with R.dataflow():
            xt = R.permute_dims(x)
            g = R.matmul(xt, dy)
            step = R.multiply(g, R.const(0.5, "float32"))
            w_new = R.subtract(w, step)
            R.output(w_new)
        return w_new


def _annotated(mod):
    return relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(mod))


def _fuse(mod):
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        return relax.transform.FuseOps()(mod)


def test_transpose_joins_the_matmul_and_its_epilogue():
    base = _annotated(Grad)
    fused = _fuse(base)
    # Expected: the same module built by hand with the BlockBuilder.
    base.remove(base.get_global_var("main"))
    gv = {g.name_hint: g for g in base.get_global_vars()}
    bb = relax.BlockBuilder(base)
    f32 = "float32"
    fx = relax.Var("x", relax.TensorType((8, 5), f32))
    fdy = relax.Var("dy", relax.TensorType((8, 4), f32))
    fw = relax.Var("w", relax.TensorType((5, 4), f32))
    out_ty = relax.TensorType((5, 4), f32)
    name = "fused_transpose_matmul_multiply_subtract"
    with bb.function(name, [fx, fdy, fw], attrs={"Primitive": True}, private=True):
        with bb.dataflow():
            xt = bb.emit(relax.op.call_tir(gv["transpose"], [fx], relax.TensorType((5, 8), f32)))
            g = bb.emit(relax.op.call_tir(gv["matmul"], [xt, fdy], out_ty))
            step = bb.emit(relax.op.call_tir(gv["multiply"], [g], out_ty))
            w_new = bb.emit_output(relax.op.call_tir(gv["subtract"], [fw, step], out_ty))
        bb.emit_func_output(w_new)
    fused_gv = bb.get().get_global_var(name)
    x = relax.Var("x", relax.TensorType((8, 5), f32))
    dy = relax.Var("dy", relax.TensorType((8, 4), f32))
    w = relax.Var("w", relax.TensorType((5, 4), f32))
    with bb.function("main", [x, dy, w]):
        with bb.dataflow():
            out = bb.emit_output(relax.Call(fused_gv, [x, dy, w]))
        bb.emit_func_output(out)
    assert_structural_equal(fused, bb.get())


def test_transpose_of_the_second_operand_joins_too():
    @I.ir_module
    class Before:
        @R.function
        def main(dy: R.Tensor((8, 4), "float32"), w: R.Tensor((6, 4), "float32")):
            with R.dataflow():
                wt = R.permute_dims(w)
                dx = R.matmul(dy, wt)
                R.output(dx)
            return dx

    names = sorted(g.name_hint for g in _fuse(_annotated(Before)).get_global_vars())
    assert "fused_transpose_matmul" in names


def test_transpose_used_twice_or_other_injective_producers_stay_apart():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((8, 5), "float32"), dy: R.Tensor((8, 4), "float32")):
            with R.dataflow():
                xt = R.permute_dims(x)
                g = R.matmul(xt, dy)          # xt also feeds the add below: not fused
                e = R.add(xt, R.const(1.0, "float32"))
                xr = R.reshape(x, (5, 8))     # injective but not a transpose
                h = R.matmul(xr, dy)
                R.output(g, e, h)
            return (g, e, h)

    fused = _fuse(_annotated(Before))
    names = sorted(g.name_hint for g in fused.get_global_vars())
    assert not [n for n in names if n.startswith("fused_transpose") or "reshape_matmul" in n]


def test_fused_gradient_builds_and_matches_numpy():
    ex = relax.build(Grad, target="llvm")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 5)).astype("float32")
    dy = rng.standard_normal((8, 4)).astype("float32")
    w = rng.standard_normal((5, 4)).astype("float32")
    got = relax.VirtualMachine(ex, tvm.cpu())["main"](x, dy, w).numpy()
    np.testing.assert_allclose(got, w - 0.5 * (x.T @ dy), rtol=1e-5, atol=1e-5)
