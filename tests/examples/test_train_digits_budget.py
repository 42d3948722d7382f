"""``python -m tvm.examples.train_digits --memory-budget SIZE``: CheckpointToBudget places the
backbone's checkpoints, the kept bytes are printed before and after, and the model learns."""

import re

import numpy as np
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


def _adjoint_kept_bytes(adjoint):
    """Bytes of the forward values the adjoint reads after its seed (parameters excluded)."""
    from tvm import relax

    bindings = adjoint.body.blocks[0].bindings
    seed = next(
        i
        for i, b in enumerate(bindings)
        if b.var.name_hint.endswith("_adjoint") and getattr(b.value.op, "name", "") == "relax.ones"
    )
    forward = {b.var for b in bindings[:seed]}
    used = set()
    for binding in bindings[seed:]:
        used |= {v for v in relax.analysis.free_vars(binding.value) if v in forward}
    return sum(4 * int(np.prod([int(d) for d in v.ty.shape.values])) for v in used)


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_budget_of_the_backbone_holds_in_the_training_adjoint(model, capsys):
    """SetupTrainer's adjoint keeps the backbone's budgeted values plus the loss's own."""
    from tvm import relax
    from tvm.relax.analysis import estimate_kept_bytes
    from tvm.relax.training import SetupTrainer
    from tvm.relax.training.loss import CrossEntropyLoss

    setup = SetupTrainer(
        CrossEntropyLoss(),
        train_digits.make_optimizer("sgd", 0.1),
        [relax.TensorType((32, 10), "float32"), relax.TensorType((32,), "int64")],
        legalize=False,
    )
    backbone = train_digits.build_backbone(model, 32, 32, False)
    plain = _adjoint_kept_bytes(setup(backbone)["backbone_loss_adjoint"])
    loss_own = plain - estimate_kept_bytes(backbone["backbone"])
    assert loss_own == 32 * 10 * 4  # the log-softmax of the logits
    budgeted = train_digits._fit_memory_budget(backbone, 5 * 1024)
    kept = estimate_kept_bytes(budgeted["backbone"])
    assert kept <= 5 * 1024
    trained = setup(budgeted)
    assert _adjoint_kept_bytes(trained["backbone_loss_adjoint"]) == kept + loss_own < plain
    assert "memory budget 5.0 KB" in capsys.readouterr().out
