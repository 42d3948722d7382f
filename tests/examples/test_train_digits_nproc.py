"""``python -m tvm.examples.train_digits --nproc 2``: data-parallel through torch's launcher."""

import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("torch")


def test_two_processes_train_the_mlp():
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE")}
    proc = subprocess.run(
        [sys.executable, "-m", "tvm.examples.train_digits", "--nproc", "2", "--epochs", "3",
         "--quiet"],
        capture_output=True, encoding="utf-8", errors="replace", env=env, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert "2 processes (16 examples each per step)" in out
    assert out.count("held-out accuracy:") == 1  # only rank 0 reports
    assert float(re.search(r"held-out accuracy: ([\d.]+)%", out).group(1)) >= 90.0
    assert re.search(r"all-reduce: [\d.]+ ms per step", out)


def test_uneven_batch_fails_with_a_usage_error_on_every_rank():
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE")}
    proc = subprocess.run(
        [sys.executable, "-m", "tvm.examples.train_digits", "--nproc", "2", "--batch-size",
         "33"], capture_output=True, encoding="utf-8", errors="replace", env=env, timeout=600, check=False)
    assert proc.returncode == 1
    assert "--batch-size 33 does not split evenly over 2 processes" in proc.stderr
    assert "a training process failed" in proc.stderr


def test_nproc_must_be_positive(capsys):
    from tvm.examples import train_digits

    with pytest.raises(SystemExit) as info:
        train_digits.main(["--nproc", "0"])
    assert info.value.code == 2
    assert "argument --nproc: must be greater than 0" in capsys.readouterr().err
