"""Data-parallel training (``tvm.relax.training.distributed``) with 2 gloo ranks on localhost.

Each case launches real processes (``_dp_worker.py``), as ``torchrun`` would.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

WORKER = Path(__file__).with_name("_dp_worker.py")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _launch(mode, out_dir, world, *extra, timeout=300):
    """Start ``world`` ranks (or one plain process for world 0); returns their exit codes and
    stderr texts and the wall time."""
    port = _free_port()
    procs = []
    start = time.perf_counter()
    for rank in range(max(world, 1)):
        env = {k: v for k, v in os.environ.items()
               if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
        env["TVM_NUM_THREADS"] = "1"
        if world:
            env.update(RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                       MASTER_PORT=str(port), LOCAL_RANK=str(rank))
        procs.append(subprocess.Popen(
            [sys.executable, str(WORKER), mode, str(out_dir), *map(str, extra)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8",
            errors="replace"))
    results = []
    for proc in procs:
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            err += "\n<killed by the test: timeout>"
        results.append((proc.returncode, err))
    return results, time.perf_counter() - start


def _result(out_dir):
    params = dict(np.load(out_dir / "params.npz"))
    return json.loads((out_dir / "result.json").read_text()), params


def test_two_ranks_match_one_rank_with_the_whole_batch(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    results, _ = _launch("train", one, 0, 4)
    assert [code for code, _ in results] == [0], results
    results, _ = _launch("train", two, 2, 4)
    assert [code for code, _ in results] == [0, 0], results
    (r1, p1), (r2, p2) = _result(one), _result(two)
    assert r2["world"] == 2 and r1["world"] == 1
    # Every rank holds the same parameters after every step (rank 1 started from others).
    assert r2["identical"] == [True] * 4
    np.testing.assert_allclose(r2["losses"], r1["losses"], rtol=1e-5, atol=1e-6)
    for name in p1:
        np.testing.assert_allclose(p2[name], p1[name], rtol=1e-5, atol=1e-6, err_msg=name)
    assert r1["losses"][-1] < r1["losses"][0]


def test_checkpoint_from_two_ranks_resumes_on_one(tmp_path):
    straight, split = tmp_path / "straight", tmp_path / "split"
    straight.mkdir()
    split.mkdir()
    assert [c for c, _ in _launch("train", straight, 0, 5)[0]] == [0]
    assert [c for c, _ in _launch("save", split, 2, 3)[0]] == [0, 0]
    assert (split / "ckpt.npz").is_file()
    results, _ = _launch("resume", split, 0, 2, 3)  # steps 3 and 4, one process
    assert [c for c, _ in results] == [0], results
    (_, p_straight), (_, p_resumed) = _result(straight), _result(split)
    for name in p_straight:
        np.testing.assert_allclose(p_resumed[name], p_straight[name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)


def test_a_rank_that_dies_fails_the_other_with_a_clear_error(tmp_path):
    results, seconds = _launch("kill", tmp_path, 2, 6, timeout=120)
    (code0, err0), (code1, _) = results
    assert code1 == 3
    assert code0 == 1, err0
    assert "rank 0 of 2" in err0 and "another rank probably ended" in err0, err0
    assert seconds < 90


def test_different_models_on_the_ranks_are_refused_at_start(tmp_path):
    results, _ = _launch("mismatch", tmp_path, 2, 2, timeout=120)
    assert [c for c, _ in results] == [1, 1], results
    for _, err in results:
        assert "the training module differs across ranks: ranks [1]" in err, err


def test_gradients_are_shared_with_torch_without_copies():
    torch = pytest.importorskip("torch")
    import tvm

    t = tvm.runtime.tensor(np.arange(6, dtype="float32"))
    view = torch.from_dlpack(t)
    assert view.data_ptr() == np.from_dlpack(t).ctypes.data
    view.mul_(2)  # what all_reduce does to a gradient reduced in place
    assert t.numpy().tolist() == [0, 2, 4, 6, 8, 10]
