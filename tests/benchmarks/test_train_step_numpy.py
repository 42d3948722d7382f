"""``benchmarks/train_step.py``'s NumPy column runs the shared steps of
``tvm.examples.numpy_steps`` for every workload (no timing is asserted)."""

import importlib.util
import pathlib

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "train_step.py"


@pytest.fixture
def train_step(monkeypatch):
    # Importing the benchmark sets the BLAS thread variables when unset; keep them per test.
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.setenv(name, "1")
    spec = importlib.util.spec_from_file_location("bench_train_step", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("workload", ["mlp64", "cnn"])
def test_numpy_column_runs_the_shared_step(train_step, workload, monkeypatch):
    from tvm.examples import numpy_steps

    calls = []
    for cls in (numpy_steps.NumpyMLP, numpy_steps.NumpyCNN):
        original = cls.loss_and_grads

        def counted(self, x, y, original=original):
            calls.append((type(self).__name__, x.shape))
            return original(self, x, y)

        monkeypatch.setattr(cls, "loss_and_grads", counted)
    ms = train_step.numpy_step(train_step.WORKLOADS[workload], steps=1, repeats=1)
    assert isinstance(ms, float) and ms > 0
    expected = ("NumpyMLP", (64, 784)) if workload == "mlp64" else ("NumpyCNN", (64, 1, 28, 28))
    assert calls == [expected] * 4  # three warm-up steps and one timed step
