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
    args = ["--epochs", "2", "--checkpointing", "--optimizer", "momentum", "--no-numpy",
            "--hidden", "32"]
    assert train_digits.main(args) == 0
    out = capsys.readouterr().out
    assert "checkpointing" in out
    # The progress bar: running loss and training accuracy, then held-out accuracy per epoch.
    assert re.search(r"^epoch  1/2 \[#+\.*\] loss [\d.]+ train accuracy [\d.]+%", out,
                     re.MULTILINE)
    assert re.search(r"epoch  2/2 \[#{24}\] loss [\d.]+ train accuracy [\d.]+% held-out "
                     r"accuracy [\d.]+%\n", out)
    assert "NumPy step" not in out
    accuracy = float(re.search(r"held-out accuracy: ([\d.]+)%", out).group(1))
    assert accuracy >= 85.0


def test_cnn_prints_the_numpy_comparison(capsys):
    # Batch 8 and SGD: the same build as tests/examples/test_numpy_steps.py (LLVM cache hits).
    args = ["--model", "cnn", "--epochs", "1", "--batch-size", "8", "--optimizer", "sgd",
            "--lr", "0.1", "--quiet"]
    assert train_digits.main(args) == 0
    out = capsys.readouterr().out
    accuracy = float(re.search(r"held-out accuracy: ([\d.]+)%", out).group(1))
    assert accuracy >= 50.0
    assert re.search(r"pytvm step: [\d.]+ ms", out)
    assert re.search(r"NumPy step: [\d.]+ ms \(hand-written forward/backward/sgd\); pytvm "
                     r"is [\d.]+x NumPy's speed", out)
