"""The digits models as ``torch.nn.Module``s, brought in through ``relax.frontend.torch``.

``python -m tvm.examples.train_digits --from-torch`` uses :func:`build_train_module`: the
same MLP / CNN as ``train_digits`` (written in PyTorch here), exported with
``torch.export``, imported with ``train_step_module`` and trained by pytvm from the torch
model's initial weights. :func:`torch_eager_step_ms` times PyTorch's own training step on the
same model for the side-by-side line the example prints.
"""

from __future__ import annotations

import time

FEATURES, CLASSES = 64, 10


def torch_model(model: str, hidden: int, seed: int):
    """The digits MLP (64 -> hidden -> 10) or CNN (conv 3x3, 8 channels, max pool, linear)."""
    from tvm.relax.frontend.torch._torch import require_torch

    torch = require_torch("train_digits --from-torch")
    nn = torch.nn
    torch.manual_seed(seed)
    if model == "mlp":
        return nn.Sequential(nn.Linear(FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, CLASSES))
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(8 * 4 * 4, CLASSES),
    )


def build_train_module(model: str, batch: int, hidden: int, optimizer, seed: int):
    """``(train_mod, init, torch_module)`` for ``relax.training.Trainer``."""
    from tvm import relax
    from tvm.relax.frontend.torch import train_step_module
    from tvm.relax.frontend.torch._torch import require_torch
    from tvm.relax.training.loss import CrossEntropyLoss

    torch = require_torch("train_digits --from-torch")
    module = torch_model(model, hidden, seed)
    shape = (batch, FEATURES) if model == "mlp" else (batch, 1, 8, 8)
    exported = torch.export.export(module, (torch.zeros(shape),))
    train_mod, init = train_step_module(
        exported, CrossEntropyLoss(), optimizer, [relax.TensorType((batch,), "int64")]
    )
    return train_mod, init, module


def torch_eager_step_ms(module, optimizer: str, lr: float, x, y, repeats: int = 100) -> float:
    """Median milliseconds of PyTorch eager's training step (same model, same optimizer).

    Runs on one thread, as pytvm's compiled step does, after 5 warm-up steps (torch's
    default thread pool on a shared machine measures the contention, not the step).
    """
    from tvm.relax.frontend.torch._torch import require_torch

    torch = require_torch("train_digits --from-torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    params = module.parameters()
    if optimizer == "sgd":
        opt = torch.optim.SGD(params, lr=lr)
    elif optimizer == "momentum":
        opt = torch.optim.SGD(params, lr=lr, momentum=0.9)
    else:
        opt = torch.optim.Adam(params, lr=lr)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = torch.nn.CrossEntropyLoss()
    times = []
    for i in range(repeats + 5):
        t0 = time.perf_counter()
        opt.zero_grad()
        loss_fn(module(xt), yt).backward()
        opt.step()
        if i >= 5:
            times.append(time.perf_counter() - t0)
    torch.set_num_threads(threads)
    times.sort()
    return 1e3 * times[len(times) // 2]
