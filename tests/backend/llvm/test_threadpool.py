"""The LLVM-IR thread pool behind TVMBackendParallelLaunch."""

import os
import subprocess
import sys

import numpy as np
import pytest

from tvm.backend.llvm import build_module, threadpool
from tvm.backend.llvm.target_machine import parse_ir
from tvm.backend.llvm.testing import (
    elementwise_add_module,
    failing_task_module,
    nested_launch_module,
    thread_ids_module,
)


@pytest.fixture(scope="module")
def par_add():
    return build_module(elementwise_add_module("par_add", "float32", ("n",), parallel=True))[
        "par_add"
    ]


@pytest.mark.parametrize("n", [1, 3, 17, 1023, 1 << 20])
def test_parallel_add_matches_numpy(par_add, n):
    rng = np.random.default_rng(n)
    a, b = rng.random(n, dtype="float32"), rng.random(n, dtype="float32")
    c = np.zeros(n, "float32")
    par_add(a, b, c)
    np.testing.assert_array_equal(c, a + b)


def test_parallel_add_repeated_launches(par_add):
    a = np.arange(10_000, dtype="float32")
    c = np.zeros_like(a)
    for k in range(200):
        c[:] = 0
        par_add(a, np.full_like(a, k), c)
        assert c[-1] == a[-1] + k and c[0] == k


def test_num_threads_positive():
    n = threadpool.num_threads()
    assert 1 <= n <= 1024
    if "TVM_NUM_THREADS" not in os.environ and hasattr(os, "sched_getaffinity"):
        assert n == len(os.sched_getaffinity(0))


def test_uses_more_than_one_thread():
    ids_fn = build_module(thread_ids_module())["thread_ids"]
    n = threadpool.num_threads()
    if n == 1:
        pytest.skip("one CPU: the pool runs every task in the calling thread")
    for _ in range(3):
        out = np.zeros(n, "int64")
        ids_fn(out)  # each task waits for all n to start: n threads must take part
        assert (out != 0).all()
        assert len(set(out.tolist())) == n


def test_more_tasks_than_threads():
    par_add_tasks = build_module(thread_ids_module("ids_short", spin_limit=0))["ids_short"]
    out = np.zeros(1000, "int64")
    par_add_tasks(out)  # 1000 tasks over the pool: every task ran exactly once
    assert (out != 0).all()
    assert 1 <= len(set(out.tolist())) <= threadpool.num_threads()


def test_task_error_is_raised():
    fail = build_module(failing_task_module("fail_task", failing_task=1))["fail_task"]
    for _ in range(3):  # the error slot is reset between launches
        with pytest.raises(ValueError, match="task 1 failed on purpose"):
            fail(4)
        fail(1)  # only task 0 runs: no error
    if threadpool.num_threads() > 1:
        with pytest.raises(ValueError, match="task 1 failed on purpose"):
            fail(0)  # one task per thread: task 1 runs on a worker


def test_every_task_failing_reports_one_error():
    fail_all = build_module(failing_task_module("fail_all", failing_task=-1))  # never fails
    fail_all["fail_all"](8)
    fail_first = build_module(failing_task_module("fail_first", failing_task=0))["fail_first"]
    with pytest.raises(ValueError, match="task 0 failed on purpose"):
        fail_first(3)


def test_nested_launch_runs_inline():
    nested = build_module(nested_launch_module("nested", inner_tasks=3))["nested"]
    for outer in (1, 2, 5, 64):
        out = np.zeros(outer * 3, "int64")
        nested(out)  # inner launches find the pool busy and run serially: no deadlock
        np.testing.assert_array_equal(out, np.arange(1, outer * 3 + 1))


def test_concurrent_launches_from_python_threads(par_add):
    # tvm_ffi releases the GIL during calls, so these launches really overlap; a launch that
    # finds the pool busy runs its tasks in its own thread.
    import threading

    errors = []

    def worker(seed):
        a = np.full(50_000, seed, dtype="float32")
        c = np.zeros_like(a)
        for k in range(100):
            par_add(a, np.full_like(a, k), c)
            if not (c == seed + k).all():
                errors.append((seed, k))
                return

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_serial_stub_ir_parses():
    parse_ir(threadpool.parallel_stub_ir(), "stub")
    assert "define hidden i32 @TVMBackendParallelLaunch" in threadpool.parallel_stub_ir()
    assert "@__pytvm_parallel_launch_fptr = global ptr null" in threadpool.parallel_stub_ir()


_SCRIPT = """
import numpy as np
from tvm.backend.llvm import build_module, threadpool
from tvm.backend.llvm.testing import thread_ids_module
f = build_module(thread_ids_module())["thread_ids"]
out = np.zeros(threadpool.num_threads(), "int64")
f(out)
print(threadpool.num_threads(), len(set(out.tolist())))
"""


@pytest.mark.parametrize("value, expected", [("3", 3), ("1", 1)])
def test_tvm_num_threads_env(value, expected):
    env = dict(os.environ, TVM_NUM_THREADS=value)
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    num, distinct = map(int, out.stdout.split())
    assert num == expected
    assert distinct == expected


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_runs_launches_without_workers(par_add):
    # The child inherits a started pool but none of its threads: the launcher claims every
    # task itself instead of waiting for workers that do not exist.
    a = np.arange(100_000, dtype="float32")
    c = np.zeros_like(a)
    par_add(a, a, c)  # make sure the pool is started before forking
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        c[:] = 0
        par_add(a, a, c)
        os._exit(0 if (c == 2 * a).all() else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
