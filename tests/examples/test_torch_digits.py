"""``python -m tvm.examples.train_digits --from-torch``: the digits MLP defined as a
``torch.nn.Module``, imported through ``relax.frontend.torch`` and trained by pytvm."""

import re

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("torch")

from tvm.examples import train_digits


def test_mlp_from_torch_trains_and_compares_with_eager(capsys):
    assert train_digits.main(["--from-torch", "--epochs", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    accuracy = float(re.search(r"held-out accuracy: ([\d.]+)%", out).group(1))
    assert accuracy >= 93.0
    assert re.search(r"PyTorch eager step \(1 thread\): [\d.]+ ms", out)


def test_from_torch_rejects_checkpointing():
    with pytest.raises(SystemExit):
        train_digits.main(["--from-torch", "--checkpointing", "--epochs", "1"])
