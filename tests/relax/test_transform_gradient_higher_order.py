"""Gradients of gradients: ``Gradient`` applied to a function that calls ``main_adjoint``.

``hvp(params..., v) = sum(grad_p(main) * v)`` differentiated with respect to ``p`` is the
Hessian-vector product ``H v``. The call of ``main_adjoint`` is inlined, and the sweep uses the
rules of the ops an adjoint is made of (``relax.grad.*``, ``broadcast_to``, ``where``, ...).
Checked against central differences of the first gradient, ``(g(p + e v) - g(p - e v)) / 2e``,
through the reference evaluator and compiled code.
"""

from __future__ import annotations

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.testing import ReferenceEvaluator
from tvm.script import ir as I
from tvm.script import relax as R


def _with_hvp(mod, wrt):
    """``mod`` + ``main_adjoint`` + ``hvp`` + ``hvp_adjoint`` (H v with respect to param ``wrt``)."""
    mod = relax.transform.Gradient("main", require_grads=mod["main"].params[wrt])(mod)
    params = [relax.Var(p.name_hint, p.ty) for p in mod["main"].params]
    v = relax.Var("v", params[wrt].ty)
    bb = relax.BlockBuilder(mod)
    with bb.function("hvp", [*params, v]):
        with bb.dataflow():
            both = bb.emit(relax.Call(mod.get_global_var("main_adjoint"), params))
            grad = bb.emit(relax.TupleGetItem(relax.TupleGetItem(both, 1), 0))
            dot = bb.emit_output(relax.op.sum(relax.op.multiply(grad, v)))
        bb.emit_func_output(dot)
    mod = bb.get()
    return relax.transform.Gradient("hvp", require_grads=mod["hvp"].params[wrt])(mod)


def _run_fn(mod, compiled):
    if not compiled:
        ev = ReferenceEvaluator(mod)
        return lambda name, *args: ev.run(name, *args)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())

    def as_np(value):
        if isinstance(value, tvm.runtime.Tensor):
            return value.numpy()
        return [as_np(v) for v in value]

    return lambda name, *args: as_np(vm[name](*[tvm.runtime.tensor(np.asarray(a)) for a in args]))


def _check_hvp(mod, args, wrt, compiled=False, seed=0):
    mod = _with_hvp(mod, wrt)
    run = _run_fn(mod, compiled)
    v = np.random.default_rng(seed).standard_normal(np.shape(args[wrt]))
    _dot, (hv,) = run("hvp_adjoint", *args, v)

    def grad(p):
        moved = list(args)
        moved[wrt] = p
        return np.asarray(run("main_adjoint", *moved)[1][0])

    eps = 1e-6
    numeric = (grad(args[wrt] + eps * v) - grad(args[wrt] - eps * v)) / (2 * eps)
    assert np.abs(numeric).max() > 1e-3, "a zero Hessian checks nothing"
    np.testing.assert_allclose(np.asarray(hv), numeric, rtol=1e-5, atol=1e-7)


@I.ir_module
class Classifier:
    @R.function
    def main(
        x: R.Tensor((4, 5), "float64"),
        w1: R.Tensor((5, 6), "float64"),
        b1: R.Tensor((6,), "float64"),
        w2: R.Tensor((6, 3), "float64"),
        y: R.Tensor((4,), "int64"),
    ):
        with R.dataflow():
            h = R.add(R.matmul(x, w1), b1)
            a = R.sigmoid(h)
            o = R.matmul(a, w2)
            ls = R.nn.log_softmax(o)
            loss = R.nn.nll_loss(ls, y)
            R.output(loss)
        return loss


def _classifier_args(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((4, 5)), rng.standard_normal((5, 6)), rng.standard_normal(6),
            rng.standard_normal((6, 3)), np.array([0, 2, 1, 1], "int64")]


@pytest.mark.parametrize("wrt", [1, 2, 3], ids=["w1", "b1", "w2"])
def test_hvp_of_a_classifier(wrt):
    _check_hvp(Classifier, _classifier_args(), wrt)


def test_hvp_compiled():
    _check_hvp(Classifier, _classifier_args(1), 1, compiled=True, seed=1)


def test_hvp_tanh_mlp_with_mean_and_reshape():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((6,), "float64"), w: R.Tensor((3, 4), "float64")):
            with R.dataflow():
                h = R.matmul(R.reshape(x, (2, 3)), w)
                t = R.tanh(h)
                e = R.exp(R.multiply(t, R.const(0.5, "float64")))
                gv = R.mean(R.multiply(e, t))
                R.output(gv)
            return gv

    rng = np.random.default_rng(2)
    args = [rng.standard_normal(6), rng.standard_normal((3, 4))]
    _check_hvp(Mod, args, 0)
    _check_hvp(Mod, args, 1)


def test_hvp_through_an_if():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((3,), "float64"), c: R.Tensor((), "bool")):
            if c:
                r = R.sin(R.multiply(x, x))
            else:
                r = R.exp(x)
            gv = R.sum(r)
            return gv

    x = np.random.default_rng(3).standard_normal(3)
    for flag in (True, False):
        _check_hvp(Mod, [x, np.array(flag)], 0)
