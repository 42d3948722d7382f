"""``benchmarks/threads.py``: its frameworks run the same computation, and the interleaved
measurement covers every (framework, threads) pair. No timing is asserted."""

import importlib.util
import pathlib

import numpy as np
import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "threads.py"


@pytest.fixture(scope="module")
def threads_bench():
    spec = importlib.util.spec_from_file_location("bench_threads", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mlp_steps_compute_the_same_loss(threads_bench):
    steps = threads_bench._mlp_steps(8, (16, 32, 4))
    losses = {}
    for name, step in steps.items():
        out = step()
        if name == "pytvm":
            out = out.numpy()
        elif name == "pytorch":
            continue  # its own initial parameters (torch.manual_seed), not the shared ones
        losses[name] = float(np.asarray(out))
    assert losses["pytvm"] == pytest.approx(losses["numpy"], rel=1e-4)


def test_measure_covers_every_pair_and_restores_threads(threads_bench):
    from tvm.backend.llvm import threadpool

    calls = threads_bench._matmul_calls(64, ab=True)
    assert {"pytvm", "pytvm-1strip", "numpy"} <= set(calls)
    result = threads_bench._measure(calls, [1, 2], rounds=1, budget_s=0.01,
                                    blas=threads_bench._BlasThreads())
    assert set(result) == {(name, t) for name in calls for t in (1, 2)}
    assert all(sec > 0 for sec in result.values())
    threads_bench._set_threads("pytvm", 0, threads_bench._BlasThreads())
    assert threadpool.num_threads() == threadpool.default_num_threads()
