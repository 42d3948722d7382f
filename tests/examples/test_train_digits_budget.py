"""``python -m tvm.examples.train_digits --memory-budget SIZE``: CheckpointToBudget places the
backbone's checkpoints, the kept bytes are printed before and after, and the model learns."""

import re

import pytest

pytest.importorskip("sklearn")

from tvm.examples import train_digits


def _kept(out):
    match = re.search(
        r"memory budget ([\d.]+) KB: the backward pass keeps ([\d.]+) KB of backbone "
        r"activations \(([\d.]+) KB without checkpoints\)",
        out,
    )
    assert match, out
    return tuple(float(g) for g in match.groups())


def test_memory_budget_checkpoints_the_mlp_and_it_learns(capsys):
    # Hidden 32, batch 32: relu's input and output are 4 KB each; 5KB leaves room for one.
    args = ["--epochs", "2", "--hidden", "32", "--memory-budget", "5KB", "--optimizer",
            "momentum", "--no-numpy", "--quiet"]  # fmt: skip
    assert train_digits.main(args) == 0
    out = capsys.readouterr().out
    assert "memory budget 5KB" in out
    budget, after, before = _kept(out)
    assert (budget, before) == (5.0, 8.0)
    assert after <= budget < before
    accuracy = float(re.search(r"held-out accuracy: ([\d.]+)%", out).group(1))
    assert accuracy >= 85.0


def test_memory_budget_flag_errors(capsys):
    with pytest.raises(SystemExit) as info:
        train_digits.main(["--memory-budget", "lots"])
    assert info.value.code == 2
    assert "--memory-budget: cannot read the memory size 'lots'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        train_digits.main(["--memory-budget", "1MB", "--checkpointing"])
    assert info.value.code == 2
    assert "drop --checkpointing" in capsys.readouterr().err


def test_help_documents_the_memory_budget(capsys):
    with pytest.raises(SystemExit):
        train_digits.main(["--help"])
    text = capsys.readouterr().out
    assert "--memory-budget" in text and "200KB" in text
