"""Gradient rules beyond Apache TVM 0.27's: ``sort`` (values scattered back to where they came
from), 1-D pooling (``max_pool1d``, ``avg_pool1d``, ``adaptive_avg_pool1d``, through the 2-D
backward ops on an extent-1 axis), 3-D pooling (through the separable form: a 2-D pool over
(H, W), then one over depth), and the piecewise-constant ops (``argmax``, ``argsort``,
``isnan``, ...: no gradient flows). Each is checked against central differences of
``sum(op(x * w)**2)`` through the reference evaluator; one case of each is compiled.
"""

from __future__ import annotations

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.relax.testing import ReferenceEvaluator
from tvm.testing import check_numerical_grads

nn = relax.op.nn

CASES = {
    "max_pool1d": ((2, 3, 9), lambda t: nn.max_pool1d(t, 3, 2, (1, 1))),
    "avg_pool1d": ((2, 3, 8), lambda t: nn.avg_pool1d(t, 2, 1, (0, 1), count_include_pad=False)),
    "avg_pool1d_nwc": ((2, 9, 3), lambda t: nn.avg_pool1d(t, 3, 2, layout="NWC")),
    "adaptive_avg_pool1d": ((2, 3, 8), lambda t: nn.adaptive_avg_pool1d(t, 4)),
    "max_pool3d": ((1, 2, 5, 6, 7), lambda t: nn.max_pool3d(
        t, (3, 2, 3), (2, 1, 2), (1, 0, 1, 1, 1, 0), (1, 2, 1))),
    "max_pool3d_ceil": ((1, 2, 5, 6, 7), lambda t: nn.max_pool3d(
        t, (2, 3, 2), (2, 2, 2), (0, 1, 0, 0, 1, 1), ceil_mode=True)),
    "avg_pool3d": ((1, 2, 5, 6, 7), lambda t: nn.avg_pool3d(
        t, (3, 2, 3), (2, 1, 2), (1, 0, 1, 1, 1, 0), count_include_pad=False)),
    "avg_pool3d_ceil_pad": ((1, 2, 5, 6, 7), lambda t: nn.avg_pool3d(
        t, (2, 3, 2), (2, 2, 2), (0, 1, 0, 0, 1, 1), ceil_mode=True)),
    "adaptive_avg_pool3d": ((1, 2, 4, 6, 6), lambda t: nn.adaptive_avg_pool3d(t, (2, 3, 6))),
    "sort_desc": ((3, 5), lambda t: relax.op.sort(t, axis=1, descending=True)),
    "sort_axis0": ((4, 2), lambda t: relax.op.sort(t, axis=0)),
}


def _module(shape, build):
    x = relax.Var("x", relax.TensorType(shape, "float64"))
    w = relax.Var("w", relax.TensorType(shape, "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w]):
        with bb.dataflow():
            y = bb.emit(build(relax.op.multiply(x, w)))
            gv = bb.emit_output(relax.op.sum(relax.op.multiply(y, y)))
        bb.emit_func_output(gv)
    return relax.transform.Gradient("main")(bb.get())


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_matches_finite_differences(name):
    shape, build = CASES[name]
    ev = ReferenceEvaluator(_module(shape, build))
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    _value, grads = ev.run("main_adjoint", a, b)
    grads = [np.asarray(g) for g in grads]
    assert np.abs(grads[0]).max() > 1e-3
    check_numerical_grads(lambda p, q: np.asarray(ev.run("main", p, q)), [a, b], grads,
                          delta=1e-5, atol=1e-6, rtol=1e-4)


@pytest.mark.parametrize(
    "name", ["max_pool1d", "adaptive_avg_pool1d", "sort_desc", "max_pool3d", "avg_pool3d"]
)
def test_rule_compiled_matches_evaluator(name):
    shape, build = CASES[name]
    mod = _module(shape, build)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    _v, want = ReferenceEvaluator(mod).run("main_adjoint", a, b)
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    _v, got = vm["main_adjoint"](tvm.runtime.tensor(a), tvm.runtime.tensor(b))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=1e-10)


def test_piecewise_constant_ops_pass_no_gradient():
    """``astype(argmax(x)) * x``: only the direct use of x carries a slope."""
    x = relax.Var("x", relax.TensorType((4,), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            k = bb.emit(relax.op.astype(relax.op.argmax(x), "float64"))
            nan = bb.emit(relax.op.astype(relax.op.isnan(x), "float64"))
            s = bb.emit(relax.op.astype(relax.op.argsort(x), "float64"))
            y = bb.emit(relax.op.multiply(relax.op.add(relax.op.add(k, nan), s), x))
            gv = bb.emit_output(relax.op.sum(y))
        bb.emit_func_output(gv)
    mod = relax.transform.Gradient("main")(bb.get())
    a = np.array([0.3, -1.0, 2.0, 0.5])
    _v, (g,) = ReferenceEvaluator(mod).run("main_adjoint", a)
    np.testing.assert_allclose(np.asarray(g), 2.0 + np.argsort(a))
