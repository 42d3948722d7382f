"""``R.nn.nll_loss`` with a 0-d constant target: ``call_te`` inlines the constant as a scalar,
and topi's nll_loss (and its backward) take it as a 0-d tensor."""

from __future__ import annotations

import numpy as np

import tvm
from tvm import relax


def test_nll_loss_with_a_constant_scalar_target_builds_and_matches_numpy():
    pred = relax.Var("pred", relax.TensorType((5,), "float32"))
    target = relax.const(np.array(3), "int64")
    bb = relax.BlockBuilder()
    with bb.function("main", [pred]):
        with bb.dataflow():
            loss = bb.emit_output(relax.op.nn.nll_loss(relax.op.nn.log_softmax(pred), target))
        bb.emit_func_output(loss)
    mod = relax.transform.Gradient("main")(bb.get())
    vm = relax.VirtualMachine(relax.build(mod, "llvm"), tvm.cpu())
    x = np.random.default_rng(0).standard_normal(5).astype("float32")
    logp = x - np.log(np.exp(x).sum())
    value, (grad,) = vm["main_adjoint"](tvm.runtime.tensor(x))
    np.testing.assert_allclose(value.numpy(), -logp[3], rtol=1e-5)
    expected = np.exp(logp)
    expected[3] -= 1.0
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-4, atol=1e-6)
