"""``relax.training`` with a backbone that branches on a training flag (dropout in one branch).

Apache TVM 0.27 cannot differentiate such a backbone; pytvm's ``SetupTrainer`` calls the
backbone (and its adjoint) instead of inlining them into one dataflow block, and ``Gradient``
differentiates the ``R.If``.
"""

from __future__ import annotations

import numpy as np

import tvm
from tvm import relax
from tvm.relax.training import SetupTrainer, Trainer
from tvm.relax.training.loss import MSELoss
from tvm.relax.training.optimizer import SGD
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Backbone:
    I.module_attrs({"param_num": 2, "state_num": 0})

    @R.function
    def backbone(
        x: R.Tensor((8, 4), "float32"),
        training: R.Tensor((), "bool"),
        mask: R.Tensor((8, 6), "float32"),
        w1: R.Tensor((4, 6), "float32"),
        w2: R.Tensor((6, 1), "float32"),
    ):
        with R.dataflow():
            h = R.nn.relu(R.matmul(x, w1))
            R.output(h)
        if training:
            hd = R.multiply(h, mask)  # inverted dropout: the mask holds 0 or 1/(1-p)
        else:
            hd = h
        y = R.matmul(hd, w2)
        return y


def _trainer():
    out_ty = relax.TensorType((8, 1), "float32")
    train_mod = SetupTrainer(MSELoss(reduction="sum"), SGD(0.01), [out_ty, out_ty])(Backbone)
    vm = relax.VirtualMachine(relax.build(train_mod, "llvm"), tvm.cpu())
    trainer = Trainer(train_mod, vm, tvm.cpu(), False)
    trainer.xaiver_uniform_init_params(seed=0)
    return train_mod, trainer


def test_backbone_with_training_flag_trains():
    train_mod, trainer = _trainer()
    relax.analysis.well_formed(train_mod)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 4)).astype("float32")
    y = x @ rng.standard_normal((4, 1)).astype("float32")
    losses = []
    for _ in range(60):
        mask = (rng.random((8, 6)) > 0.5).astype("float32") * 2.0
        losses.append(float(trainer.update([x, np.array(True), mask], [y]).numpy()))
    assert losses[-1] < 0.1 * losses[0], losses[::10]
    # Inference takes the other branch: the mask is ignored.
    a = trainer.predict(x, np.array(False), np.zeros((8, 6), "float32")).numpy()
    b = trainer.predict(x, np.array(False), np.ones((8, 6), "float32")).numpy()
    np.testing.assert_array_equal(a, b)


def test_step_gradient_matches_the_branch_taken():
    """One SGD step with training=True moves w2 by -lr * dL/dw2 of the masked model."""
    _mod, trainer = _trainer()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 4)).astype("float32")
    y = rng.standard_normal((8, 1)).astype("float32")
    mask = (rng.random((8, 6)) > 0.5).astype("float32") * 2.0
    params = trainer.export_params()
    w1, w2 = params["w1"].numpy(), params["w2"].numpy()
    trainer.update([x, np.array(True), mask], [y])
    hd = np.maximum(x @ w1, 0) * mask
    grad_w2 = hd.T @ (2 * (hd @ w2 - y))
    np.testing.assert_allclose(trainer.export_params()["w2"].numpy(), w2 - 0.01 * grad_w2, rtol=1e-4,
                               atol=1e-5)
