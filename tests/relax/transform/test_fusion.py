"""AnnotateTIROpPattern, FuseOps and FuseTIR: elementwise chains after a matmul fuse."""

import numpy as np
import pytest

import tvm
from tvm import relax, topi
from tvm.ir import assert_structural_equal
from tvm.relax.ir.instrument import WellFormedInstrument
from tvm.relax.testing import evaluate
from tvm.relax.transform.annotate_tir_op_pattern import OpPatternKind as K
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class MLP:
    @R.function
    def main(
        x: R.Tensor(("n", 3), "float32"),
        w: R.Tensor((3, 4), "float32"),
        b: R.Tensor((4,), "float32"),
    ):
        with R.dataflow():
            a = R.matmul(x, w)
            c = R.add(a, b)
            d = R.nn.relu(c)
            s = R.sum(d, axis=[1])
            R.output(s)
        return s


def _annotated():
    return relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(MLP))


def _patterns(mod):
    return {
        gv.name_hint: int(f.attrs["op_pattern"])
        for gv, f in mod.functions.items()
        if isinstance(f, tvm.tirx.PrimFunc)
    }


def test_annotate_op_patterns():
    assert _patterns(_annotated()) == {
        "matmul": K.kOutEWiseFusable,
        "add": K.kElemWise,  # x is read at the output index: elementwise, as TVM 0.27
        "relu": K.kElemWise,
        "sum": K.kCommReduce,
    }


def test_annotate_broadcasts_as_tvm():
    @I.ir_module
    class Before:
        @R.function
        def main(
            x: R.Tensor((2, 3), "float32"),
            z: R.Tensor((2, 1), "float32"),
            v: R.Tensor((3,), "float32"),
        ):
            with R.dataflow():
                a = R.add(x, z)
                c = R.broadcast_to(v, R.shape([2, 3]))
                d = R.expand_dims(v, 0)
                e = R.multiply(z, v)
                R.output(a, c, d, e)
            return (a, c, d, e)

    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(Before))
    # The kinds Apache TVM 0.27 gives these kernels.
    assert _patterns(mod) == {
        "add": K.kElemWise,
        "broadcast_to": K.kBroadcast,
        "expand_dims": K.kBroadcast,
        "multiply": K.kBroadcast,
    }


def test_annotate_keeps_existing_pattern_and_classifies_mean_and_transpose():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                m = R.mean(x, axis=[1])
                t = R.permute_dims(x)
                R.output(m, t)
            return (m, t)

    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(Before))
    # mean = a sum then a division: out-elementwise-fusable, as TVM 0.27 says.
    assert _patterns(mod) == {"mean": K.kOutEWiseFusable, "transpose": K.kInjective}
    again = relax.transform.AnnotateTIROpPattern()(mod)
    assert_structural_equal(again, mod)


def _fused():
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        return relax.transform.FuseOps()(_annotated())


def test_fuse_ops_groups_matmul_with_the_elementwise_chain():
    mod = _fused()
    # Expected: the same module built by hand with the BlockBuilder.
    base = _annotated()
    # The PrimFuncs share the symbolic n of the parsed signature: reuse it.
    n = base["main"].params[0].ty.shape.values[0]
    base.remove(base.get_global_var("main"))
    bb = relax.BlockBuilder(base)
    x = relax.Var("x", relax.TensorType((n, 3), "float32"))
    w = relax.Var("w", relax.TensorType((3, 4), "float32"))
    b = relax.Var("b", relax.TensorType((4,), "float32"))
    m = tvm.tirx.Var("n", "int64")  # the fused function has its own symbolic var
    fx = relax.Var("x", relax.TensorType((m, 3), "float32"))
    fw, fb = (relax.Var(v.name_hint, v.ty) for v in (w, b))
    gv = {g.name_hint: g for g in base.get_global_vars()}
    out_ty = relax.TensorType((m, 4), "float32")
    with bb.function(
        "fused_matmul_add_relu", [fx, fw, fb], attrs={"Primitive": True}, private=True
    ):
        with bb.dataflow():
            a = bb.emit(relax.op.call_tir(gv["matmul"], [fx, fw], out_ty))
            c = bb.emit(relax.op.call_tir(gv["add"], [a, fb], out_ty))
            d = bb.emit_output(relax.op.call_tir(gv["relu"], [c], out_ty))
        bb.emit_func_output(d)
    fused_gv = bb.get().get_global_var("fused_matmul_add_relu")
    with bb.function("main", [x, w, b]):
        with bb.dataflow():
            d = bb.emit(relax.Call(fused_gv, [x, w, b]))
            assert str(d.ty) == 'R.Tensor((n, 4), dtype="float32")'
            s = bb.emit_output(relax.op.call_tir(gv["sum"], [d], relax.TensorType((n,), "float32")))
        bb.emit_func_output(s)
    assert_structural_equal(mod, bb.get())


def test_fuse_ops_level_zero_does_nothing():
    mod = _annotated()
    assert_structural_equal(relax.transform.FuseOps(fuse_opt_level=0)(mod), mod)


def test_fuse_ops_does_not_fuse_a_value_used_twice():
    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            with R.dataflow():
                a = R.exp(x)
                b = R.negative(a)
                c = R.add(a, b)
                R.output(c)
            return c

    mod = relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(Before))
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        fused = relax.transform.FuseOps()(mod)
    names = sorted(g.name_hint for g in fused.get_global_vars())
    assert names == ["add", "fused_tir_negative_add", "main", "tir_exp", "tir_negative"]


@pytest.mark.parametrize("n", [1, 5])
def test_fuse_tir_makes_one_kernel_with_the_same_values(n):
    mod = relax.transform.FuseTIR()(_fused())
    names = sorted(g.name_hint for g in mod.get_global_vars())
    assert names == ["fused_matmul_add_relu", "main", "sum"]
    kernel = mod["fused_matmul_add_relu"]
    assert len(kernel.params) == 4
    text = kernel.script()
    assert "matmul_intermediate = T.sblock_alloc_buffer" in text
    assert "T_add_intermediate = T.sblock_alloc_buffer" in text
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 3)).astype("float32")
    w = rng.standard_normal((3, 4)).astype("float32")
    b = rng.standard_normal((4,)).astype("float32")
    np.testing.assert_allclose(evaluate(mod, x, w, b), np.maximum(x @ w + b, 0).sum(1), rtol=1e-5)


def test_fuse_tir_with_te_built_module():
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit_te(topi.exp, x)
            b = bb.emit_te(topi.negative, a)
            c = bb.emit_output(bb.call_te(topi.abs, b))
        bb.emit_func_output(c)
    mod = relax.transform.AnnotateTIROpPattern()(bb.get())
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        mod = relax.transform.FuseTIR()(relax.transform.FuseOps()(mod))
    assert sorted(g.name_hint for g in mod.get_global_vars()) == ["fused_exp_negative_abs", "main"]
    data = np.full((2, 3), -1.0, "float32")
    np.testing.assert_allclose(evaluate(mod, data), np.abs(-np.exp(data)), rtol=1e-6)


def _static_mlp_annotated():
    @I.ir_module
    class Static:
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 4), "float32")):
            with R.dataflow():
                a = R.matmul(x, w)
                d = R.nn.relu(a)
                e = R.exp(d)
                R.output(e)
            return e

    return relax.transform.AnnotateTIROpPattern()(relax.transform.LegalizeOps()(Static))


def test_fuse_ops_static_shapes_skip_the_var_copy_with_the_same_result(monkeypatch):
    # Without symbolic dims a fused function's variables are fresh already, so FuseOps skips
    # copy_with_new_vars; forcing the copy must give a structurally equal module.
    from tvm.relax.transform import fuse_ops

    calls = []
    real_copy = fuse_ops.copy_with_new_vars

    def counting_copy(func):
        calls.append(func)
        return real_copy(func)

    monkeypatch.setattr(fuse_ops, "copy_with_new_vars", counting_copy)
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        fast = relax.transform.FuseOps()(_static_mlp_annotated())
    assert calls == []
    monkeypatch.setattr(fuse_ops, "tir_vars_in", lambda value: [value])  # always copy
    with tvm.transform.PassContext(opt_level=3, instruments=[WellFormedInstrument()]):
        slow = relax.transform.FuseOps()(_static_mlp_annotated())
    assert len(calls) == 1
    assert_structural_equal(fast, slow)
    fused = fast["fused_matmul_relu_tir_exp"]
    main_vars = {id(v) for v in relax.analysis.all_vars(fast["main"])}
    assert not main_vars & {id(v) for v in relax.analysis.all_vars(fused)}


def test_fuse_ops_symbolic_shapes_still_get_fresh_symbolic_vars():
    fused = _fused()
    n_main = fused["main"].params[0].ty.shape.values[0]
    n_fused = fused["fused_matmul_add_relu"].params[0].ty.shape.values[0]
    assert n_main is not n_fused and n_main.name == n_fused.name == "n"


def test_block_finder_lists_blocks_as_post_order_visit():
    # analyze_pattern finds blocks with a statement-only walk; it must list the same blocks
    # in the same order as post_order_visit over statements and expressions.
    from tvm import te, tirx
    from tvm.relax.transform.annotate_tir_op_pattern import _BlocksPostOrder
    from tvm.tirx.stmt import SBlock

    def by_post_order_visit(func):
        found = []
        tirx.stmt_functor.post_order_visit(
            func.body, lambda n: found.append(n) if isinstance(n, SBlock) and n.iter_vars else None
        )
        return found

    A = te.placeholder((4, 6), name="A")
    B = te.compute((4, 6), lambda i, j: A[i, j] * 2.0, name="B")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((4,), lambda i: te.sum(B[i, k], axis=k), name="C")
    D = te.compute((4,), lambda i: C[i] + 1.0, name="D")
    funcs = [te.create_prim_func([A, D])]
    funcs += [f for f in _annotated().functions.values() if isinstance(f, tirx.PrimFunc)]
    # A statement shared twice: each object is listed once.
    body = funcs[0].body.block.body
    funcs.append(funcs[0].replace(body=tirx.SeqStmt([body, body])))
    for func in funcs:
        finder = _BlocksPostOrder()
        finder.visit_stmt(func.body)
        expected = by_post_order_visit(func)
        assert expected and [id(b) for b in finder.blocks] == [id(b) for b in expected]


def test_kernels_with_scalar_arguments_are_not_fused_and_still_run():
    import numpy as np

    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Prim("float32")):
            with R.dataflow():
                a = R.add(x, y)  # a kernel with a scalar parameter
                b = R.nn.relu(a)
                c = R.exp(b)
                R.output(c)
            return c

    lowered = relax.get_pipeline("default")(Mod)
    fused = [gv.name_hint for gv in lowered.functions if gv.name_hint.startswith("fused")]
    assert all("add" not in name for name in fused)
    vm = relax.VirtualMachine(relax.build(Mod, "llvm"), tvm.cpu())
    x = np.array([-3, -1, 0, 2], "float32")
    np.testing.assert_allclose(vm["main"](tvm.runtime.tensor(x), 1.5).numpy(),
                               np.exp(np.maximum(x + 1.5, 0)), rtol=1e-6)
