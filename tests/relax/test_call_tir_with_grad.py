"""``R.call_tir_with_grad`` and ``relax.training.utils.register_te_gradient`` (spec F.2).

The op prints and parses as in TVM 0.27; ``relax.transform.Gradient`` differentiates it through
the registered TE gradient (Before/Expected below is the oracle's printed output), and the
adjoint, run by the reference evaluator and compiled for the VM, matches finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import tvm
from tvm import relax, te
from tvm.relax.op.op_attrs import CallTIRWithGradAttrs
from tvm.relax.testing import evaluate
from tvm.relax.training.utils import register_te_gradient
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


# TE gradients are global functions: each name is registered once per process.
@register_te_gradient("pytvm_test_f_mul_grad")
def _f_mul_grad(output_grad, src1, src2, k):
    return [
        te.compute(src1.shape, lambda *i: src2(*i) * output_grad(*i) * k, "f_mul_grad_1"),
        te.compute(src2.shape, lambda *i: src1(*i) * output_grad(*i) * k, "f_mul_grad_2"),
    ]


def _matmul_grad(output_grad, a, b):
    # d(a @ b) / da = g @ b^T and / db = a^T @ g.
    m, k = a.shape
    n = b.shape[1]
    r = te.reduce_axis((0, n), "r")
    s = te.reduce_axis((0, m), "s")
    grad_a = te.compute((m, k), lambda i, j: te.sum(output_grad[i, r] * b[j, r], axis=r), "ga")
    grad_b = te.compute((k, n), lambda i, j: te.sum(a[s, i] * output_grad[s, j], axis=s), "gb")
    return [grad_a, grad_b]


register_te_gradient("pytvm_test_matmul_grad", _matmul_grad)


@register_te_gradient("pytvm_test_one_grad_only")
def _one_grad_only(output_grad, a, b, k):
    return [te.compute(a.shape, lambda *i: output_grad(*i), "g")]


def _mul_module(dtype="float32", k="T.float32(1.0)", grad_name="pytvm_test_f_mul_grad"):
    src = f'''
@I.ir_module
class Before:
    @T.prim_func(private=True, s_tir=True)
    def f_mul(A: T.Buffer((T.int64(5), T.int64(5)), "{dtype}"),
              B: T.Buffer((T.int64(5), T.int64(5)), "{dtype}"),
              f_mul_1: T.Buffer((T.int64(5), T.int64(5)), "{dtype}")):
        T.func_attr({{"tir.noalias": True}})
        for i0, i1 in T.grid(T.int64(5), T.int64(5)):
            with T.sblock("f_mul"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                f_mul_1[v_i0, v_i1] = A[v_i0, v_i1] * B[v_i0, v_i1]

    @R.function
    def main(a: R.Tensor((5, 5), "{dtype}"), b: R.Tensor((5, 5), "{dtype}")):
        cls = Before
        with R.dataflow():
            lv1 = R.call_tir_with_grad(cls.f_mul, (a, b), out_ty=R.Tensor((5, 5), "{dtype}"),
                te_grad_name="{grad_name}", te_grad_kwargs={{"k": {k}}})
            lv2 = R.sum(lv1)
            R.output(lv2)
        return lv2
'''
    return tvm.script.from_source(src)


# --- the op --------------------------------------------------------------------------------


def test_op_attrs_and_type():
    a = relax.Var("a", relax.TensorType([4], "float32"))
    gv = tvm.ir.GlobalVar("f")
    call = relax.op.call_tir_with_grad(
        gv, [a], relax.TensorType([4], "float32"), te_grad_name="g", te_grad_kwargs={"k": 2}
    )
    assert call.op.name == "relax.call_tir_with_grad"
    assert isinstance(call.attrs, CallTIRWithGradAttrs)
    assert call.attrs.te_grad_name == "g"
    assert dict(call.attrs.te_grad_kwargs) == {"k": 2}
    bb = relax.BlockBuilder()
    ty = bb.normalize(call).ty
    assert tvm.ir.structural_equal(ty, relax.TensorType([4], "float32"))
    two = relax.op.call_tir_with_grad(
        gv, a, [relax.TensorType([4], "float32")] * 2, te_grad_name="g"
    )
    assert dict(two.attrs.te_grad_kwargs) == {}
    assert isinstance(bb.normalize(two).ty, relax.TupleType)


def test_op_bad_arguments():
    a = relax.Var("a", relax.TensorType([4], "float32"))
    gv = tvm.ir.GlobalVar("f")
    with pytest.raises(TypeError, match="requires te_grad_name"):
        relax.op.call_tir_with_grad(gv, [a], relax.TensorType([4], "float32"))
    with pytest.raises(TypeError, match="requires out_ty"):
        relax.op.call_tir_with_grad(gv, [a], te_grad_name="g")
    with pytest.raises(TypeError, match="keys must be str"):
        relax.op.call_tir_with_grad(
            gv, [a], relax.TensorType([4], "float32"), te_grad_name="g", te_grad_kwargs={1: 2}
        )


def test_print_matches_oracle_and_round_trips():
    mod = _mul_module()
    text = mod.script()
    # The binding is annotated (unlike call_tir) and the kwargs print as a dict (TVM 0.27).
    assert (
        '    lv1: R.Tensor((5, 5), dtype="float32") = R.call_tir_with_grad(cls.f_mul, (a, b), '
        'out_ty=R.Tensor((5, 5), dtype="float32"), te_grad_name="pytvm_test_f_mul_grad", '
        'te_grad_kwargs={"k": T.float32(1.0)})' in text
    )
    assert tvm.ir.structural_equal(tvm.script.from_source(text), mod)


def test_print_without_kwargs_and_sorted_kwargs():
    a = relax.Var("a", relax.TensorType([5], "float32"))
    gv = tvm.ir.GlobalVar("f")
    bb = relax.BlockBuilder()
    out = relax.TensorType([5], "float32")
    with bb.function("main", [a]):
        lv1 = bb.emit(relax.op.call_tir_with_grad(gv, (a,), out, te_grad_name="g"))
        kwargs = {"k": 2, "s": "x", "f": 1.5}
        lv2 = bb.emit(
            relax.op.call_tir_with_grad(gv, (lv1,), out, te_grad_name="g", te_grad_kwargs=kwargs)
        )
        bb.emit_func_output(lv2)
    text = bb.get()["main"].script()
    # Outputs of the oracle (TVM 0.27) for the same calls.
    assert (
        ': R.Tensor((5,), dtype="float32") = R.call_tir_with_grad(f, (a,), '
        'out_ty=R.Tensor((5,), dtype="float32"), te_grad_name="g")\n' in text
    )
    assert 'te_grad_name="g", te_grad_kwargs={"f": 1.5, "k": 2, "s": "x"})' in text


def test_legalize_keeps_the_call():
    mod = relax.transform.LegalizeOps()(_mul_module())
    ops = [b.value.op.name for b in mod["main"].body.blocks[0].bindings]
    assert ops[0] == "relax.call_tir_with_grad"


# --- register_te_gradient ------------------------------------------------------------------


def test_register_te_gradient_global_function():
    assert tvm.get_global_func("tvm.relax.te_grad._register.pytvm_test_f_mul_grad") is not None
    assert _f_mul_grad.__name__ == "_f_mul_grad"  # the decorator returns the function
    with pytest.raises(ValueError, match="pytvm_test_f_mul_grad` is already registered"):
        register_te_gradient("pytvm_test_f_mul_grad", _f_mul_grad)
    with pytest.raises(TypeError, match="expects a callable"):
        register_te_gradient("pytvm_test_not_callable", 3)
    with pytest.raises(TypeError, match="expects a name string"):
        register_te_gradient(None, _f_mul_grad)


# --- the Gradient pass ---------------------------------------------------------------------


@I.ir_module
class _Expected:
    # The oracle's (TVM 0.27) output of Gradient("main") on _mul_module(), names adapted.
    @T.prim_func(private=True, s_tir=True)
    def f_mul(
        A: T.Buffer((T.int64(5), T.int64(5)), "float32"),
        B: T.Buffer((T.int64(5), T.int64(5)), "float32"),
        f_mul_1: T.Buffer((T.int64(5), T.int64(5)), "float32"),
    ):
        T.func_attr({"tir.noalias": True})
        for i0, i1 in T.grid(T.int64(5), T.int64(5)):
            with T.sblock("f_mul"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                f_mul_1[v_i0, v_i1] = A[v_i0, v_i1] * B[v_i0, v_i1]

    @T.prim_func(private=True, s_tir=True)
    def pytvm_test_f_mul_grad(
        lv1_adjoint: T.Buffer((T.int64(5), T.int64(5)), "float32"),
        a: T.Buffer((T.int64(5), T.int64(5)), "float32"),
        b: T.Buffer((T.int64(5), T.int64(5)), "float32"),
        f_mul_grad_1: T.Buffer((T.int64(5), T.int64(5)), "float32"),
        f_mul_grad_2: T.Buffer((T.int64(5), T.int64(5)), "float32"),
    ):
        T.func_attr({"tirx.noalias": True})
        for i0, i1 in T.grid(T.int64(5), T.int64(5)):
            with T.sblock("f_mul_grad_1"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(b[v_i0, v_i1], lv1_adjoint[v_i0, v_i1])
                T.writes(f_mul_grad_1[v_i0, v_i1])
                f_mul_grad_1[v_i0, v_i1] = b[v_i0, v_i1] * lv1_adjoint[v_i0, v_i1]
        for i0, i1 in T.grid(T.int64(5), T.int64(5)):
            with T.sblock("f_mul_grad_2"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.reads(a[v_i0, v_i1], lv1_adjoint[v_i0, v_i1])
                T.writes(f_mul_grad_2[v_i0, v_i1])
                f_mul_grad_2[v_i0, v_i1] = a[v_i0, v_i1] * lv1_adjoint[v_i0, v_i1]

    @R.function
    def main_adjoint(
        a: R.Tensor((5, 5), dtype="float32"), b: R.Tensor((5, 5), dtype="float32")
    ) -> R.Tuple(
        R.Tensor((), dtype="float32"),
        R.Tuple(R.Tensor((5, 5), dtype="float32"), R.Tensor((5, 5), dtype="float32")),
    ):
        cls = _Expected
        with R.dataflow():
            lv1 = R.call_tir(cls.f_mul, (a, b), out_ty=R.Tensor((5, 5), dtype="float32"))
            lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
            lv2_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
            lv1_adjoint: R.Tensor((5, 5), dtype="float32") = R.broadcast_to(
                lv2_adjoint, R.shape([5, 5])
            )
            lv = R.call_tir(
                cls.pytvm_test_f_mul_grad,
                (lv1_adjoint, a, b),
                out_ty=[R.Tensor((5, 5), dtype="float32"), R.Tensor((5, 5), dtype="float32")],
            )
            a_adjoint: R.Tensor((5, 5), dtype="float32") = lv[0]
            b_adjoint: R.Tensor((5, 5), dtype="float32") = lv[1]
            a_adjoint_out: R.Tensor((5, 5), dtype="float32") = a_adjoint
            b_adjoint_out: R.Tensor((5, 5), dtype="float32") = b_adjoint
            R.output(lv2, a_adjoint_out, b_adjoint_out)
        return (lv2, (a_adjoint_out, b_adjoint_out))

    @R.function
    def main(
        a: R.Tensor((5, 5), dtype="float32"), b: R.Tensor((5, 5), dtype="float32")
    ) -> R.Tensor((), dtype="float32"):
        cls = _Expected
        with R.dataflow():
            lv1: R.Tensor((5, 5), dtype="float32") = R.call_tir_with_grad(
                cls.f_mul,
                (a, b),
                out_ty=R.Tensor((5, 5), dtype="float32"),
                te_grad_name="pytvm_test_f_mul_grad",
                te_grad_kwargs={"k": T.float32(1.0)},
            )
            lv2: R.Tensor((), dtype="float32") = R.sum(lv1, axis=None, keepdims=False)
            R.output(lv2)
        return lv2


def test_gradient_matches_oracle():
    after = relax.transform.Gradient("main")(_mul_module())
    tvm.ir.assert_structural_equal(after, _Expected)


def test_gradient_missing_te_gradient():
    mod = _mul_module(grad_name="pytvm_test_never_registered")
    with pytest.raises(ValueError, match="tvm.relax.te_grad._register.pytvm_test_never_reg"):
        relax.transform.Gradient("main")(mod)


def test_gradient_wrong_number_of_te_gradients():
    mod = _mul_module(grad_name="pytvm_test_one_grad_only")
    with pytest.raises(ValueError, match="returned 1 tensors for the 2 inputs"):
        relax.transform.Gradient("main")(mod)


@register_te_gradient("pytvm_test_bad_signature")
def _bad_signature(output_grad, a):
    return [a]


def test_gradient_te_gradient_with_wrong_signature():
    mod = _mul_module(grad_name="pytvm_test_bad_signature")
    with pytest.raises(TypeError, match="the TE gradient 'pytvm_test_bad_signature'.*failed"):
        relax.transform.Gradient("main")(mod)


def test_relax_namespace_spelling():
    # tvm.relax.call_tir_with_grad is the op constructor, as in TVM 0.27.
    a = relax.Var("a", relax.TensorType([4], "float32"))
    call = relax.call_tir_with_grad(
        tvm.ir.GlobalVar("f"), [a], relax.TensorType([4], "float32"), te_grad_name="g"
    )
    assert call.op.name == "relax.call_tir_with_grad"


def test_gradient_keeps_existing_function_names():
    # A function already named like the TE gradient: the new PrimFunc gets a fresh name.
    mod = _mul_module()
    mod["pytvm_test_f_mul_grad"] = mod["f_mul"]
    after = relax.transform.Gradient("main")(mod)
    names = sorted(gv.name_hint for gv in after.get_global_vars())
    assert names == [
        "f_mul",
        "main",
        "main_adjoint",
        "pytvm_test_f_mul_grad",
        "pytvm_test_f_mul_grad1",
    ]


# --- numbers -------------------------------------------------------------------------------


def _te_matmul(a, b):
    rk = te.reduce_axis((0, a.shape[1]), "rk")
    return te.compute((a.shape[0], b.shape[1]), lambda i, j: te.sum(a[i, rk] * b[rk, j], rk))


def _matmul_module():
    """``sum(call_tir_with_grad(matmul)(x, w) * c)`` in float64, built with the BlockBuilder."""
    x = relax.Var("x", relax.TensorType([3, 4], "float64"))
    w = relax.Var("w", relax.TensorType([4, 2], "float64"))
    c = relax.Var("c", relax.TensorType([3, 2], "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w, c]):
        with bb.dataflow():
            fwd = bb.call_te(_te_matmul, x, w, primfunc_name_hint="mm")
            gv, args = fwd.args[0], fwd.args[1]
            out = relax.TensorType([3, 2], "float64")
            y = bb.emit(
                relax.op.call_tir_with_grad(gv, args, out, te_grad_name="pytvm_test_matmul_grad")
            )
            loss = bb.emit_output(relax.op.sum(relax.op.multiply(y, c)))
        bb.emit_func_output(loss)
    return bb.get()


def _finite_differences(forward, inputs, wrt, eps=1e-6):
    grads = []
    for pos in wrt:
        base = inputs[pos]
        grad = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            plus = [v.copy() for v in inputs]
            minus = [v.copy() for v in inputs]
            plus[pos][idx] += eps
            minus[pos][idx] -= eps
            grad[idx] = (forward(*plus) - forward(*minus)) / (2 * eps)
        grads.append(grad)
    return grads


def _run_vm(mod, name, *args):
    ex = tvm.compile(mod, target="llvm -opt-level=1")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm[name](*[tvm.runtime.tensor(a) for a in args])


def _cases():
    rng = np.random.default_rng(0)
    mul = _mul_module(dtype="float64", k="T.float64(1.0)")
    mul_args = [rng.standard_normal((5, 5)) for _ in range(2)]
    mm = _matmul_module()
    mm_args = [rng.standard_normal(s) for s in [(3, 4), (4, 2), (3, 2)]]
    return {"multiply": (mul, mul_args, [0, 1]), "matmul": (mm, mm_args, [0, 1, 2])}


@pytest.mark.parametrize("case", ["multiply", "matmul"])
def test_adjoint_matches_finite_differences_evaluator(case):
    mod, args, wrt = _cases()[case]
    after = relax.transform.Gradient("main")(mod)
    value, grads = evaluate(after, *args, func_name="main_adjoint")
    np.testing.assert_allclose(value, evaluate(after, *args), rtol=1e-12)
    expected = _finite_differences(lambda *a: float(evaluate(mod, *a)), args, wrt)
    for got, want in zip(grads, expected):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_te_grad_kwargs_reach_the_te_gradient():
    # k scales what the TE gradient returns (k = 2 doubles it: a user's gradient is trusted).
    rng = np.random.default_rng(1)
    args = [rng.standard_normal((5, 5)) for _ in range(2)]
    mod = _mul_module(dtype="float64", k="T.float64(2.0)")
    _, (grad_a, grad_b) = evaluate(
        relax.transform.Gradient("main")(mod), *args, func_name="main_adjoint"
    )
    np.testing.assert_allclose(grad_a, 2 * args[1], rtol=1e-12)
    np.testing.assert_allclose(grad_b, 2 * args[0], rtol=1e-12)


@pytest.mark.parametrize("case", ["multiply", "matmul"])
def test_adjoint_matches_finite_differences_compiled(case):
    mod, args, wrt = _cases()[case]
    after = relax.transform.Gradient("main")(mod)
    value, grads = _run_vm(after, "main_adjoint", *args)
    expected = _finite_differences(lambda *a: float(evaluate(mod, *a)), args, wrt)
    np.testing.assert_allclose(value.numpy(), evaluate(mod, *args), rtol=1e-12)
    for got, want in zip(grads, expected):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6, atol=1e-6)
    # The forward function (still a call_tir_with_grad) compiles and runs as a call_tir.
    np.testing.assert_allclose(_run_vm(mod, "main", *args).numpy(), value.numpy(), rtol=1e-12)


@register_te_gradient("pytvm_test_mul_grad_plain")
def _mul_grad_plain(output_grad, src1, src2):
    return [
        te.compute(src1.shape, lambda *i: src2(*i) * output_grad(*i), "f_mul_grad_1"),
        te.compute(src2.shape, lambda *i: src1(*i) * output_grad(*i), "f_mul_grad_2"),
    ]


# The oracle's (TVM 0.27) main_adjoint for test_gradient_recomputed_call_is_call_tir.
_CHECKPOINT_EXPECTED = """
@R.function
def main_adjoint(a: R.Tensor((5, 5), dtype="float32"), b: R.Tensor((5, 5), dtype="float32")) -> R.Tuple(R.Tensor((), dtype="float32"), R.Tuple(R.Tensor((5, 5), dtype="float32"), R.Tensor((5, 5), dtype="float32"))):
    with R.dataflow():
        lv1 = R.call_tir(f_mul, (a, b), out_ty=R.Tensor((5, 5), dtype="float32"))
        lv2: R.Tensor((5, 5), dtype="float32") = R.exp(lv1)
        lv4: R.Tensor((), dtype="float32") = R.sum(lv2, axis=None, keepdims=False)
        lv4_adjoint: R.Tensor((), dtype="float32") = R.ones(R.shape([]), dtype="float32")
        lv1_cp = R.call_tir(f_mul, (a, b), out_ty=R.Tensor((5, 5), dtype="float32"))
        lv2_cp: R.Tensor((5, 5), dtype="float32") = R.exp(lv1_cp)
        lv2_adjoint: R.Tensor((5, 5), dtype="float32") = R.broadcast_to(lv4_adjoint, R.shape([5, 5]))
        lv1_adjoint: R.Tensor((5, 5), dtype="float32") = R.multiply(lv2_adjoint, lv2_cp)
        lv = R.call_tir(pytvm_test_mul_grad_plain, (lv1_adjoint, a, b), out_ty=[R.Tensor((5, 5), dtype="float32"), R.Tensor((5, 5), dtype="float32")])
        a_adjoint: R.Tensor((5, 5), dtype="float32") = lv[0]
        b_adjoint: R.Tensor((5, 5), dtype="float32") = lv[1]
        a_adjoint_out: R.Tensor((5, 5), dtype="float32") = a_adjoint
        b_adjoint_out: R.Tensor((5, 5), dtype="float32") = b_adjoint
        R.output(lv4, a_adjoint_out, b_adjoint_out)
    return (lv4, (a_adjoint_out, b_adjoint_out))
"""


def test_gradient_recomputed_call_is_call_tir():
    # lv1 is recomputed (not checkpointed): its copy lv1_cp is a plain call_tir as well.
    @I.ir_module
    class Before:
        @T.prim_func(private=True, s_tir=True)
        def f_mul(
            A: T.Buffer((T.int64(5), T.int64(5)), "float32"),
            B: T.Buffer((T.int64(5), T.int64(5)), "float32"),
            f_mul_1: T.Buffer((T.int64(5), T.int64(5)), "float32"),
        ):
            for i0, i1 in T.grid(T.int64(5), T.int64(5)):
                with T.sblock("f_mul"):
                    v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                    f_mul_1[v_i0, v_i1] = A[v_i0, v_i1] * B[v_i0, v_i1]

        @R.function
        def main(a: R.Tensor((5, 5), "float32"), b: R.Tensor((5, 5), "float32")):
            cls = Before
            with R.dataflow():
                x1 = R.grad.start_checkpoint(a)
                lv1 = R.call_tir_with_grad(
                    cls.f_mul,
                    (x1, b),
                    out_ty=R.Tensor((5, 5), dtype="float32"),
                    te_grad_name="pytvm_test_mul_grad_plain",
                )
                lv2 = R.exp(lv1)
                lv3 = R.grad.end_checkpoint(lv2)
                lv4 = R.sum(lv3)
                R.output(lv4)
            return lv4

    after = relax.transform.Gradient("main")(Before)
    text = after["main_adjoint"].script()
    assert text.split("\n", 2)[2].strip() == _CHECKPOINT_EXPECTED.strip()


@register_te_gradient("pytvm_test_square_grad")
def _square_grad(output_grad, a):
    return [te.compute(a.shape, lambda *i: 2.0 * a(*i) * output_grad(*i), "square_grad")]


def test_single_input_gradient_and_round_trip():
    # One input: the TE gradient's single tensor is the partial itself (no tuple indexing).
    x = relax.Var("x", relax.TensorType([2, 3], "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            square = lambda a: te.compute(a.shape, lambda *i: a(*i) * a(*i))
            fwd = bb.call_te(square, x, primfunc_name_hint="square")
            out = relax.TensorType([2, 3], "float64")
            sq = bb.emit(
                relax.call_tir_with_grad(
                    fwd.args[0], fwd.args[1], out, te_grad_name="pytvm_test_square_grad"
                )
            )
            loss = bb.emit_output(relax.op.sum(sq))
        bb.emit_func_output(loss)
    after = relax.transform.Gradient("main")(bb.get())
    bindings = after["main_adjoint"].body.blocks[0].bindings
    values = {b.var.name_hint: b.value for b in bindings}
    grad_call = values[values["x_adjoint"].name_hint]  # x_adjoint = lv, the TE gradient
    assert grad_call.op.name == "relax.call_tir"
    assert grad_call.args[0].name_hint == "pytvm_test_square_grad"
    value = np.arange(6, dtype="float64").reshape(2, 3)
    _, (grad,) = evaluate(after, value, func_name="main_adjoint")
    np.testing.assert_allclose(grad, 2 * value, rtol=1e-12)
    # The differentiated module prints and parses back to the same IR.
    assert tvm.ir.structural_equal(tvm.script.from_source(after.script()), after)


def test_block_builder_call_te_with_grad():
    """``bb.call_te_with_grad`` builds the call_tir_with_grad of a te function; Gradient then
    uses the registered TE gradient (with its kwargs)."""
    a = relax.Var("a", relax.TensorType((2, 3), "float32"))
    b = relax.Var("b", relax.TensorType((2, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [a, b]):
        with bb.dataflow():
            call = bb.call_te_with_grad(
                lambda x, y: te.compute(x.shape, lambda *i: x(*i) * y(*i), "f_mul"), a, b,
                primfunc_name_hint="f_mul", te_grad_name="pytvm_test_f_mul_grad",
                te_grad_kwargs={"k": T.float32(3.0)},
            )
            assert call.op.name == "relax.call_tir_with_grad"
            assert call.attrs.te_grad_name == "pytvm_test_f_mul_grad"
            d = bb.emit(call)
            out = bb.emit_output(relax.op.sum(d))
        bb.emit_func_output(out)
    mod = relax.transform.Gradient("main")(bb.get())
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3), "float32"), rng.standard_normal((2, 3), "float32")
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    value, (gx, gy) = vm["main_adjoint"](tvm.runtime.tensor(x), tvm.runtime.tensor(y))
    np.testing.assert_allclose(value.numpy(), (x * y).sum(), rtol=1e-5)
    # The registered gradient scales by k = 3 (it is the TE gradient that is used).
    np.testing.assert_allclose(gx.numpy(), 3 * y, rtol=1e-5)
    np.testing.assert_allclose(gy.numpy(), 3 * x, rtol=1e-5)
