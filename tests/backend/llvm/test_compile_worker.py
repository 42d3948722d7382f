"""Issue 22, defect 6: LLVM runs in recycled worker processes (``compile_worker``).

llvmlite leaks ~48 KB of native memory per optimized module; before, a server compiling
distinct kernels grew by 40-70 KB per compile with no ceiling. Each test that measures a
process runs a fresh child (RSS and worker counts are per process); nothing is timed.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tvm
from tvm.backend.llvm import compile_worker
from tvm.script import tirx as T

pytestmark = pytest.mark.skipif(not compile_worker.enabled(),
                                reason="compile workers are off (POSIX, PYTVM_LLVM_COMPILE_WORKER)")

_SERVER = """
    import gc
    import os
    import sys

    import numpy as np

    import tvm
    from tvm.backend.llvm import compile_worker
    from tvm.script import tirx as T

    def rss_kb():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024

    def kernel(k):
        @T.prim_func
        def scale(a: T.Buffer((64,), "float32"), b: T.Buffer((64,), "float32")):
            for i in range(64):
                b[i] = a[i] * T.float32(2) + T.float32(k)
        return scale

    # The in-memory caches (modules compiled last, bounded) are made small, so that they
    # are full after the warm-up compiles.
    import tvm.driver.build_module
    from tvm.backend.llvm import jit
    tvm.driver.build_module._CACHE_SIZE = jit._CACHE_SIZE = jit._PARTS_SIZE = 8

    a = np.arange(64, dtype="float32")
    b = np.zeros_like(a)
    total, warm = int(sys.argv[1]), int(sys.argv[2])
    pids = set()
    for index in range(total):
        lib = tvm.compile(kernel(float(index)), target="llvm")
        lib(a, b)
        assert b[1] == 2 + index, (b[1], index)
        del lib
        pids.update(compile_worker.stats()["idle_pids"])
        if index % 25 == 0:
            # Collected often: what is measured is memory nothing refers to any more, not
            # how much cyclic garbage waited for Python's collector.
            gc.collect()
        if index == warm:
            start = rss_kb()
    gc.collect()
    print(rss_kb() - start, len(pids), compile_worker.stats()["retired"])
"""


def _run_server(total: int, warm: int, tmp_path, **env) -> tuple:
    child_env = dict(os.environ, PYTVM_CACHE_DIR=str(tmp_path / "cache"), **env)
    script = tmp_path / "server.py"  # TVMScript is parsed from a file's source
    script.write_text(textwrap.dedent(_SERVER), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(total), str(warm)],
                          capture_output=True, env=child_env, timeout=900, encoding="utf-8",
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    growth_kb, workers, retired = (int(x) for x in done.stdout.split())
    return growth_kb, workers, retired


def test_rss_of_a_compiling_process_stays_bounded(tmp_path):
    # 300 distinct compiles after 60 warm-up ones. Before: +40-70 KB per compile (12-21 MB
    # here); now LLVM's leak stays in the workers and the process itself grows by little.
    growth_kb, _, _ = _run_server(360, 60, tmp_path)
    assert growth_kb < 300 * 12, f"RSS grew {growth_kb} KB over 300 compiles"


def test_worn_out_workers_are_replaced(tmp_path):
    _, workers, retired = _run_server(
        130, 10, tmp_path, PYTVM_LLVM_WORKER_MAX_COMPILES="40")
    assert retired >= 2, (workers, retired)
    assert workers >= 3  # new processes took over, and the compiles all gave right numbers


def test_a_process_that_compiles_little_starts_no_worker(tmp_path):
    _, workers, retired = _run_server(12, 5, tmp_path)
    assert (workers, retired) == (0, 0)


def _ir_function(name: str) -> str:
    return textwrap.dedent(f"""
        define i32 @{name}(i32 %x) {{
          %y = add i32 %x, 1
          ret i32 %y
        }}
    """)


def test_llvm_fatal_error_is_a_python_error_naming_the_module():
    from tvm.backend.llvm.target_machine import llvm_binding

    triple = llvm_binding().get_process_triple()
    if not triple.startswith("x86_64"):
        pytest.skip("the fatal error used here is x86-64's")
    # A 32-bit CPU on a 64-bit triple: LLVM ends its process ("LLVM ERROR: 64-bit code
    # requested ..."). tvm.compile refuses it earlier (Target checks CPU names), so the
    # worker is asked directly.
    spec = (triple, "i686", "", 1, True, False)
    with pytest.raises(RuntimeError, match=r"(?s)module 'fatal'.*functions: add_one.*64-bit code"):
        compile_worker.compile_in_worker(_ir_function("add_one"), "fatal", spec)
    # This process goes on, and the next compile gets a new worker.
    spec = (triple, llvm_binding().get_host_cpu_name(), "", 1, True, False)
    text, obj = compile_worker.compile_in_worker(_ir_function("add_two"), "fine", spec)
    assert "define i32 @add_two" in text and len(obj) > 0


def test_invalid_ir_is_a_value_error_and_the_worker_stays():
    from tvm.backend.llvm.jit import build_module

    with pytest.raises(ValueError, match="invalid LLVM IR in module 'broken'"):
        build_module("define i32 @f( {", name="broken", use_cache=False)
    before = compile_worker.stats()["died"]
    build_module(_ir_function("__tvm_ffi_noop_like"), name="ok", use_cache=False)
    assert compile_worker.stats()["died"] == before


def test_a_killed_worker_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTVM_CACHE_DIR", str(tmp_path))

    @T.prim_func
    def double(a: T.Buffer((8,), "float32"), b: T.Buffer((8,), "float32")):
        for i in range(8):
            b[i] = a[i] * T.float32(2)

    compile_worker.prestart()
    for pid in compile_worker.stats()["idle_pids"]:
        os.kill(pid, 9)
    lib = tvm.compile(double, target="llvm")
    a = np.arange(8, dtype="float32")
    b = np.zeros_like(a)
    lib(a, b)
    np.testing.assert_allclose(b, a * 2)


def test_no_worker_can_start_compiles_in_process(monkeypatch):
    from tvm.backend.llvm.jit import build_module

    compile_worker.shutdown()
    monkeypatch.setattr(compile_worker, "_IDLE", [])  # no idle worker to reuse
    monkeypatch.setattr(compile_worker, "_UNAVAILABLE", [])
    monkeypatch.setenv("PYTVM_LLVM_WORKER_START_AFTER", "0")  # start one at the first compile
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    with pytest.warns(RuntimeWarning, match="cannot start an LLVM compile worker"):
        module = build_module(_ir_function("__tvm_ffi_fallback"), name="fallback",
                              use_cache=False)
    assert "define i32 @__tvm_ffi_fallback" in module.inspect_source()
    assert not compile_worker.enabled()  # for the rest of this process (restored here)
