"""The flagship example: ``python -m tvm.examples.train_digits`` trains the MLP to >= 95%."""

import re

import pytest

pytest.importorskip("sklearn")

from tvm.examples import train_digits


def test_help_documents_the_options(capsys):
    with pytest.raises(SystemExit) as info:
        train_digits.main(["--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for option in ("--batch-size", "--epochs", "--lr", "--optimizer", "--checkpointing",
                   "--target", "--model"):
        assert option in text


def test_mlp_trains_to_95_percent(capsys):
    assert train_digits.main(["--epochs", "4", "--quiet"]) == 0
    out = capsys.readouterr().out
    accuracy = float(re.search(r"held-out accuracy: ([\d.]+)%", out).group(1))
    assert accuracy >= 95.0
    assert re.search(r"compile: [\d.]+ s", out)
    assert re.search(r"pytvm step: [\d.]+ ms", out)
    assert re.search(r"NumPy step: [\d.]+ ms", out)


def test_checkpointed_mlp_with_sgd_learns(capsys):
    args = ["--epochs", "2", "--quiet", "--checkpointing", "--optimizer", "momentum",
            "--no-numpy", "--hidden", "32"]
    assert train_digits.main(args) == 0
    out = capsys.readouterr().out
    assert "checkpointing" in out
    accuracy = float(re.search(r"held-out accuracy: ([\d.]+)%", out).group(1))
    assert accuracy >= 85.0


def test_numpy_reference_step_matches_the_compiled_step():
    """The NumPy comparison step computes the same update as the compiled train_step."""
    import numpy as np

    import tvm
    from tvm import relax
    from tvm.relax.training import SetupTrainer, Trainer
    from tvm.relax.training.loss import CrossEntropyLoss

    batch = 8
    backbone = train_digits.build_backbone("mlp", batch, 16, False)
    mod = SetupTrainer(CrossEntropyLoss(), train_digits.make_optimizer("adam", 0.01), [
        relax.TensorType((batch, 10), "float32"), relax.TensorType((batch,), "int64")])(backbone)
    trainer = Trainer(mod, relax.VirtualMachine(relax.build(mod), tvm.cpu()), tvm.cpu())
    trainer.xaiver_uniform_init_params(seed=3)
    reference = train_digits.NumpyMLP(
        [p.numpy() for p in trainer.export_params().values()], "adam", 0.01)
    rng = np.random.default_rng(0)
    x = rng.random((batch, 64), dtype="float32")
    y = rng.integers(0, 10, batch).astype("int64")
    for _ in range(3):
        loss = float(trainer.update(x, y).numpy())
        ref_loss = reference.step(x, y)
        np.testing.assert_allclose(loss, ref_loss, rtol=1e-4)
    for got, want in zip(trainer.export_params().values(), reference.params):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-3, atol=1e-5)
