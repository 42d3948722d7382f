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


def _load_test_models():
    """The model classes of test_models.py (a sibling file, not an importable package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).with_name("test_models.py")
    spec = importlib.util.spec_from_file_location("torch_frontend_test_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpt_block_trains_like_pytorch():
    models = _load_test_models()

    class NextToken(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = models.GPTBlock(vocab=7, d=8, heads=2)

        def forward(self, ids):
            return self.block(ids).reshape(-1, 7)

    torch.manual_seed(5)
    model = NextToken()
    g = torch.Generator().manual_seed(6)
    batches = [
        (torch.randint(0, 7, (2, 5), generator=g), torch.randint(0, 7, (10,), generator=g))
        for _ in range(3)
    ]
    ep = torch.export.export(model, (batches[0][0],))
    target = relax.TensorType((10,), "int64")
    train_mod, init = train_step_module(ep, CrossEntropyLoss(), SGD(0.1), [target])
    expected = _train_torch(model, torch.optim.SGD(model.parameters(), lr=0.1), batches, 20)
    got, _ = _train_pytvm(train_mod, init, batches, 20)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_cnn_with_batch_norm_trains_with_running_stats_as_state():
    models = _load_test_models()
    torch.manual_seed(7)
    model = models.SmallCNN().train()
    batches = _batches(2, (4, 3, 8, 8), 4, seed=8)
    ep = torch.export.export(model, (batches[0][0],))
    target = relax.TensorType((4,), "int64")
    train_mod, init = train_step_module(ep, CrossEntropyLoss(), SGD(0.05), [target])
    assert int(train_mod.get_attr("state_num")) == 6  # two batch norms: mean, var, count
    expected = _train_torch(model, torch.optim.SGD(model.parameters(), lr=0.05), batches, 5)
    got, trainer = _train_pytvm(train_mod, init, batches, 5)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    states = list(trainer.export_states().values())
    np.testing.assert_allclose(states[0].numpy(), model.bn1.running_mean.numpy(), atol=1e-5)
    np.testing.assert_allclose(states[1].numpy(), model.bn1.running_var.numpy(), atol=1e-5)
    assert int(states[2].numpy()) == 5
