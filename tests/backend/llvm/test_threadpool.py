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
from tvm.runtime.module import find_linker


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
        cores, cpus = threadpool.cpu_order()  # one thread per physical core by default
        assert n == cores
        assert sorted(cpus) == sorted(os.sched_getaffinity(0))


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
    assert "@__TVMBackendParallelLaunch = global ptr null" in threadpool.parallel_stub_ir()


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


def test_set_num_threads_limits_the_threads_taking_part():
    ids_fn = build_module(thread_ids_module("ids_cap", spin_limit=0))["ids_cap"]
    n = threadpool.num_threads()
    previous = threadpool.set_num_threads(1)
    try:
        assert previous == n and threadpool.num_threads() == 1
        out = np.zeros(64, "int64")
        ids_fn(out)  # one thread: every task ran in the caller
        assert (out != 0).all() and len(set(out.tolist())) == 1
        assert threadpool.set_num_threads(10_000) == 1
        assert threadpool.num_threads() == n  # clamped to the pool size
    finally:
        threadpool.set_num_threads(0)
    assert threadpool.num_threads() == n
    with pytest.raises(TypeError, match="expected an int"):
        threadpool.set_num_threads(1.5)


def test_stats_count_tasks_per_thread(par_add):
    a = np.arange(200_000, dtype="float32")
    c = np.zeros_like(a)
    threadpool.reset_stats()
    threadpool.enable_stats(True)
    try:
        for _ in range(5):
            par_add(a, a, c)
    finally:
        threadpool.enable_stats(False)
    rows = threadpool.stats()
    assert set(rows[0]) == set(threadpool.STAT_FIELDS)
    assert rows[0]["launches"] == 5
    tasks = sum(r["tasks"] for r in rows)
    n = threadpool.num_threads()
    if n > 1:  # one task per thread, each counted once, by the thread that ran it
        assert rows[0]["serial_launches"] == 0 and tasks == 5 * n
    else:  # serial launches run their tasks in the caller, uncounted
        assert rows[0]["serial_launches"] == 5 and tasks == 0
    assert all(r["task_wall_ns"] >= 0 and r["task_cpu_ns"] >= 0 for r in rows)
    np.testing.assert_array_equal(c, 2 * a)
    threadpool.reset_stats()
    assert sum(r["tasks"] for r in threadpool.stats()) == 0


_BIND = """
import os, numpy as np
from tvm.backend.llvm import build_module, threadpool
from tvm.backend.llvm.testing import thread_ids_module
f = build_module(thread_ids_module())["thread_ids"]
out = np.zeros(threadpool.num_threads(), "int64")
f(out)
print(threadpool.num_threads(), len(set(out.tolist())))
"""


def test_bind_threads_runs():
    env = dict(os.environ, TVM_BIND_THREADS="1", PYTVM_SPIN_US="50")
    out = subprocess.run([sys.executable, "-c", _BIND], env=env, capture_output=True, text=True,
                         check=False,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    num, distinct = map(int, out.stdout.split())
    assert num == distinct == threadpool.default_num_threads()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_starts_new_workers():
    # The child inherits a started pool but none of its threads: the pool forgets them at
    # the fork (os.register_at_fork) and starts new workers on the child's first launch.
    ids_fn = build_module(thread_ids_module("ids_fork"))["ids_fork"]
    n = threadpool.num_threads()
    out = np.zeros(n, "int64")
    ids_fn(out)  # the pool is started before forking
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        ok = True
        for _ in range(3):
            out[:] = 0
            ids_fn(out)  # each task waits for all n to start: n threads must take part
            ok = ok and len(set(out.tolist())) == n
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


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


# Issue 22, defect 11: a library loaded by another tvm_ffi host uses the host's launch.
_HOST_CONTEXT = """
import ctypes, sys, numpy as np, tvm_ffi
from tvm_ffi.libinfo import find_libtvm_ffi

TASK = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p)
class Env(ctypes.Structure):
    _fields_ = [("sync", ctypes.c_void_p), ("num_task", ctypes.c_int32)]
calls = []

@ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32)
def host_launch(flambda, cdata, num_task):
    n = num_task if num_task > 0 else 3
    calls.append(n)
    env = Env(None, n)
    task = TASK(flambda)
    for i in range(n):
        rc = task(i, ctypes.addressof(env), cdata)
        if rc:
            return rc
    return 0

libffi = ctypes.CDLL(find_libtvm_ffi())
rc = libffi.TVMFFIEnvModRegisterContextSymbol(
    b"__TVMBackendParallelLaunch", ctypes.cast(host_launch, ctypes.c_void_p))
assert rc == 0
f = tvm_ffi.load_module(sys.argv[1])["exp_host_add"]
a = np.arange(100_003, dtype="float32"); c = np.zeros_like(a)
f(a, a, c)
assert (c == 2 * a).all()
print(len(calls), calls[0])
"""


@pytest.mark.skipif(find_linker() is None, reason="no C compiler driver to link .so")
def test_library_uses_host_context_launch(tmp_path):
    mod = build_module(elementwise_add_module("exp_host_add", parallel=True))
    path = mod.export_library(str(tmp_path / "host_add.so"))
    out = subprocess.run([sys.executable, "-c", _HOST_CONTEXT, path], capture_output=True, check=False,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    launches, tasks = map(int, out.stdout.split())
    assert launches == 1 and tasks == 3  # the host's launch ran the loop (3 tasks: its choice)


_HOST_C = """
#include <stdint.h>
typedef int32_t (*task_t)(int32_t, void*, void*);
typedef struct { void* sync; int32_t num_task; } env_t;
int host_launches = 0;
int TVMBackendParallelLaunch(task_t f, void* cdata, int32_t num_task) {
  env_t env = {0, num_task > 0 ? num_task : 5};
  host_launches += 1;
  for (int32_t i = 0; i < env.num_task; ++i) {
    int32_t rc = f(i, &env, cdata);
    if (rc) return rc;
  }
  return 0;
}
"""

_HOST_GLOBAL = """
import ctypes, sys, numpy as np, tvm_ffi
host = ctypes.CDLL(sys.argv[2], ctypes.RTLD_GLOBAL)
f = tvm_ffi.load_module(sys.argv[1])["exp_glob_add"]
a = np.arange(50_000, dtype="float32"); c = np.zeros_like(a)
for _ in range(3):
    f(a, a, c)
assert (c == 2 * a).all()
print(ctypes.c_int.in_dll(host, "host_launches").value)
"""


@pytest.mark.skipif(find_linker() is None, reason="no C compiler driver to link .so")
def test_library_uses_process_wide_launch_symbol(tmp_path):
    # A host that links a TVM runtime exporting TVMBackendParallelLaunch (no tvm_ffi context
    # symbol): the library finds it with dlsym.
    src = tmp_path / "host.c"
    src.write_text(_HOST_C)
    host = tmp_path / "libhost.so"
    subprocess.run([find_linker(), "-shared", "-fPIC", "-o", str(host), str(src)], check=True,
                   timeout=120)
    mod = build_module(elementwise_add_module("exp_glob_add", parallel=True))
    path = mod.export_library(str(tmp_path / "glob_add.so"))
    out = subprocess.run([sys.executable, "-c", _HOST_GLOBAL, path, str(host)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == 3
