"""The hand-written NumPy steps of the example and the benchmark compute pytvm's training step:
same initial parameters and batch, same loss and parameters after each step."""

import numpy as np
import pytest

import tvm
from tvm import relax
from tvm.examples import train_digits
from tvm.examples.numpy_steps import NumpyCNN, NumpyMLP, softmax_cross_entropy
from tvm.relax.training import SetupTrainer, Trainer
from tvm.relax.training.loss import CrossEntropyLoss


def _compiled_trainer(model, batch, optimizer, lr, hidden=16):
    backbone = train_digits.build_backbone(model, batch, hidden, False)
    args = [relax.TensorType((batch, 10), "float32"), relax.TensorType((batch,), "int64")]
    mod = SetupTrainer(CrossEntropyLoss(), train_digits.make_optimizer(optimizer, lr),
                       args)(backbone)
    trainer = Trainer(mod, relax.VirtualMachine(relax.build(mod), tvm.cpu()), tvm.cpu())
    trainer.xaiver_uniform_init_params(seed=3)
    return trainer


def _assert_same_steps(trainer, reference, x, y, steps):
    for _ in range(steps):
        loss = float(trainer.update(x, y).numpy())
        np.testing.assert_allclose(loss, reference.step(x, y), rtol=1e-4)
    for got, want in zip(trainer.export_params().values(), reference.params):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-5)


def _blank_edged_digits(rng, batch):
    """Digit-like images: zero borders (equal conv outputs, so max-pool ties) and a stroke."""
    x = np.zeros((batch, 1, 8, 8), "float32")
    x[:, :, 2:6, 2:6] = rng.integers(0, 17, (batch, 1, 4, 4)) / 16.0
    return x


def test_numpy_cnn_step_matches_the_compiled_step():
    batch = 8
    trainer = _compiled_trainer("cnn", batch, "sgd", 0.1)
    reference = NumpyCNN([p.numpy() for p in trainer.export_params().values()], "sgd", 0.1)
    rng = np.random.default_rng(0)
    x = _blank_edged_digits(rng, batch)
    y = rng.integers(0, 10, batch).astype("int64")
    _assert_same_steps(trainer, reference, x, y, steps=2)


def test_numpy_mlp_step_matches_the_compiled_adam_step():
    batch = 8
    trainer = _compiled_trainer("mlp", batch, "adam", 0.01)
    reference = NumpyMLP([p.numpy() for p in trainer.export_params().values()], "adam", 0.01)
    rng = np.random.default_rng(0)
    x = rng.random((batch, 64), dtype="float32")
    y = rng.integers(0, 10, batch).astype("int64")
    _assert_same_steps(trainer, reference, x, y, steps=3)


def _naive_cnn_loss(params, x, y):
    """Direct loops: conv 3x3 (padding 1), ReLU, 2x2 max-pool, linear, cross entropy."""
    kernel, bias, w, b = (p.astype("float64") for p in params)
    n, _, height, width = x.shape
    padded = np.pad(x.astype("float64"), ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((n, kernel.shape[0], height, width))
    for i in range(height):
        for j in range(width):
            patch = padded[:, :, i:i + 3, j:j + 3]
            conv[:, :, i, j] = np.einsum("nkab,ckab->nc", patch, kernel)
    act = np.maximum(conv + bias, 0)
    pooled = act.reshape(n, -1, height // 2, 2, width // 2, 2).max(axis=(3, 5))
    logits = pooled.reshape(n, -1) @ w + b
    return softmax_cross_entropy(logits, y)[0]


@pytest.mark.parametrize("size", [6, 10])
def test_numpy_cnn_gradients_match_finite_differences(size):
    rng = np.random.default_rng(size)
    channels, n = 3, 4
    params = [rng.standard_normal((channels, 2, 3, 3)).astype("float32") * 0.5,
              rng.standard_normal((1, channels, 1, 1)).astype("float32") * 0.1,
              rng.standard_normal((channels * (size // 2) ** 2, 5)).astype("float32") * 0.3,
              rng.standard_normal(5).astype("float32") * 0.1]
    x = rng.standard_normal((n, 2, size, size)).astype("float32")
    y = rng.integers(0, 5, n)
    step = NumpyCNN(params, "sgd", 0.1)
    loss, grads = step.loss_and_grads(x, y)
    np.testing.assert_allclose(loss, _naive_cnn_loss(params, x, y), rtol=1e-5)
    eps = 1e-3
    for index, (param, grad) in enumerate(zip(params, grads)):
        for flat in rng.choice(param.size, min(4, param.size), replace=False):
            where = np.unravel_index(flat, param.shape)
            moved = [p.astype("float64") for p in params]
            moved[index][where] += eps
            up = _naive_cnn_loss(moved, x, y)
            moved[index][where] -= 2 * eps
            down = _naive_cnn_loss(moved, x, y)
            np.testing.assert_allclose(grad[where], (up - down) / (2 * eps), rtol=1e-3,
                                       atol=1e-4)


def test_numpy_step_errors():
    with pytest.raises(ValueError, match="optimizer must be 'sgd', 'momentum' or 'adam'"):
        NumpyMLP([np.zeros((2, 2), "float32")], "rmsprop", 0.1)
    params = [np.zeros(s, "float32") for s in [(2, 1, 3, 3), (1, 2, 1, 1), (18, 3), (3,)]]
    with pytest.raises(ValueError, match=r"even image size, got kernel \(2, 1, 3, 3\) and "
                       r"input \(1, 1, 7, 6\)"):
        NumpyCNN(params, "sgd", 0.1).step(np.zeros((1, 1, 7, 6), "float32"), np.zeros(1, int))


def test_docstring_example_runs():
    import doctest

    from tvm.examples import numpy_steps

    result = doctest.testmod(numpy_steps)
    assert result.attempted > 0
    assert result.failed == 0
