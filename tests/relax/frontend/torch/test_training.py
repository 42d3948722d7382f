"""Training an imported model with ``relax.training``: the losses of 20 steps and the final
parameters match PyTorch's own training with the same optimizer (float32 tolerance)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tvm
from tvm import relax
from tvm.relax.frontend.torch import load_torch_params, train_step_module
from tvm.relax.training import Trainer
from tvm.relax.training.loss import CrossEntropyLoss
from tvm.relax.training.optimizer import SGD, Adam

nn = torch.nn


def _train_torch(model, opt, batches, steps):
    losses = []
    loss_fn = nn.CrossEntropyLoss()
    for step in range(steps):
        x, y = batches[step % len(batches)]
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _train_pytvm(train_mod, init, batches, steps):
    vm = relax.VirtualMachine(tvm.compile(train_mod, target="llvm"), tvm.cpu())
    trainer = Trainer(train_mod, vm, tvm.cpu())
    load_torch_params(trainer, init)
    losses = []
    for step in range(steps):
        x, y = batches[step % len(batches)]
        loss = trainer.update([tvm.runtime.tensor(x.numpy())], [tvm.runtime.tensor(y.numpy())])
        losses.append(float(loss.numpy()))
    return losses, trainer


def _batches(n, shape, classes, seed):
    g = torch.Generator().manual_seed(seed)
    return [
        (torch.randn(*shape, generator=g), torch.randint(0, classes, (shape[0],), generator=g))
        for _ in range(n)
    ]


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_mlp_trains_like_pytorch(optimizer):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 3))
    batches = _batches(4, (8, 10), 3, seed=1)
    ep = torch.export.export(model, (batches[0][0],))
    relax_opt = SGD(0.1) if optimizer == "sgd" else Adam(0.01)
    target = relax.TensorType((8,), "int64")
    train_mod, init = train_step_module(ep, CrossEntropyLoss(), relax_opt, [target])

    torch_opt = (
        torch.optim.SGD(model.parameters(), lr=0.1)
        if optimizer == "sgd"
        else torch.optim.Adam(model.parameters(), lr=0.01)
    )
    expected = _train_torch(model, torch_opt, batches, 20)
    got, trainer = _train_pytvm(train_mod, init, batches, 20)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert got[-1] < got[0]  # it learns
    final = list(trainer.export_params().values())
    for ours, theirs in zip(final, model.parameters()):
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-4, atol=1e-5)
