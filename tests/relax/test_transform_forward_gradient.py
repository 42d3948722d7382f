"""``relax.transform.ForwardGradient``: Jacobian-vector products, checked against central
differences along the tangent and against the reverse mode (``g . (J u) == (J^T g) . u``)."""

from __future__ import annotations

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.testing import ReferenceEvaluator
from tvm.relax.transform.gradient import GradientError
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Layer:
    @R.function
    def main(x: R.Tensor((3,), "float64"), w: R.Tensor((3, 2), "float64")):
        with R.dataflow():
            h = R.matmul(R.reshape(x, (1, 3)), w)
            t = R.tanh(h)
            s = R.nn.softmax(R.multiply(t, R.const(2.0, "float64")))
            R.output(s)
        return s


@I.ir_module
class Branchy:
    @R.function
    def helper(a: R.Tensor((2, 2), "float64")) -> R.Tensor((2, 2), "float64"):
        with R.dataflow():
            b = R.sigmoid(a)
            R.output(b)
        return b

    @R.function
    def main(x: R.Tensor((2, 2), "float64"), c: R.Tensor((), "bool")):
        cls = Branchy
        if c:
            r = cls.helper(R.matmul(x, x))
        else:
            r = R.exp(x)
        return r


def _runner(mod, compiled):
    if not compiled:
        ev = ReferenceEvaluator(mod)
        return lambda name, *a: ev.run(name, *a)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())

    def as_np(v):
        return v.numpy() if isinstance(v, tvm.runtime.Tensor) else [as_np(f) for f in v]

    return lambda name, *a: as_np(vm[name](*[tvm.runtime.tensor(np.asarray(x)) for x in a]))


def _check(mod, args, wrt, extra=(), compiled=False, seed=0):
    fwd = relax.transform.ForwardGradient("main")(mod)
    relax.analysis.well_formed(fwd)
    run = _runner(fwd, compiled)
    rng = np.random.default_rng(seed)
    tangents = [rng.standard_normal(np.shape(args[i])) for i in wrt]
    value, tangent = run("main_jvp", *args, *extra, *tangents)
    np.testing.assert_allclose(np.asarray(value), np.asarray(run("main", *args, *extra)))
    eps = 1e-6

    def moved(sign):
        moved_args = list(args)
        for i, u in zip(wrt, tangents):
            moved_args[i] = args[i] + sign * eps * u
        return np.asarray(run("main", *moved_args, *extra))

    numeric = (moved(1) - moved(-1)) / (2 * eps)
    assert np.abs(numeric).max() > 1e-3
    np.testing.assert_allclose(np.asarray(tangent), numeric, rtol=1e-5, atol=1e-8)
    return fwd, tangents, np.asarray(tangent)


@pytest.mark.parametrize("compiled", [False, True], ids=["evaluator", "compiled"])
def test_jvp_of_a_layer(compiled):
    rng = np.random.default_rng(1)
    _check(Layer, [rng.standard_normal(3), rng.standard_normal((3, 2))], [0, 1],
           compiled=compiled)


def test_jvp_agrees_with_the_reverse_mode():
    rng = np.random.default_rng(2)
    args = [rng.standard_normal(3), rng.standard_normal((3, 2))]
    _fwd, (u_x, u_w), ju = _check(Layer, args, [0, 1])
    g = rng.standard_normal(ju.shape)
    # Reverse mode: J^T g through Gradient of sum(f(x) * g).
    x = relax.Var("x", relax.TensorType((3,), "float64"))
    w = relax.Var("w", relax.TensorType((3, 2), "float64"))
    gv = relax.Var("g", relax.TensorType(ju.shape, "float64"))
    bb = relax.BlockBuilder(Layer)
    with bb.function("vjp", [x, w, gv]):
        with bb.dataflow():
            y = bb.emit(relax.Call(Layer.get_global_var("main"), [x, w]))
            s = bb.emit_output(relax.op.sum(relax.op.multiply(y, gv)))
        bb.emit_func_output(s)
    mod = relax.transform.Gradient("vjp", require_grads=bb.get()["vjp"].params[:2])(bb.get())
    _s, (jt_x, jt_w) = ReferenceEvaluator(mod).run("vjp_adjoint", *args, g)
    lhs = float(np.sum(g * ju))
    rhs = float(np.sum(np.asarray(jt_x) * u_x) + np.sum(np.asarray(jt_w) * u_w))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10)


def test_jvp_through_an_if_and_a_call():
    x = np.random.default_rng(3).standard_normal((2, 2))
    for flag in (True, False):
        _check(Branchy, [x], [0], extra=[np.array(flag)])


def test_jvp_signature_and_helpers_removed():
    fwd = relax.transform.ForwardGradient("main", require_grads=Layer["main"].params[1])(Layer)
    names = sorted(gv.name_hint for gv in fwd.functions)
    assert names == ["main", "main_jvp"]
    params = [p.name_hint for p in fwd["main_jvp"].params]
    assert params == ["x", "w", "w_tangent"]


def test_jvp_rejects_non_tensor_results_and_bad_params():
    @I.ir_module
    class Pair:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            return (x, x)

    with pytest.raises(GradientError, match="must return one float tensor"):
        relax.transform.ForwardGradient("main")(Pair)
    other = relax.Var("q", relax.TensorType((3,), "float32"))
    with pytest.raises(GradientError, match="require_grads must name float tensor parameters"):
        relax.transform.ForwardGradient("main", require_grads=other)(Layer)
