"""Compile-time benchmark: training-step builds (cold and warm LLVM cache) and a small PrimFunc.

Usage::

    python benchmarks/compile_time.py [--tvm-python /opt/tvm-oracle/bin/python]
                                      [--repeats 3] [--only mlp64,mlp256,cnn]

For each training-step workload of ``train_step.py`` (same worker code, ``SetupTrainer`` with
Gradient plus ``relax.build``, run in a fresh process), ``compile_s`` is measured:

* **cold**: a new, empty ``PYTVM_CACHE_DIR`` for every run (nothing cached on disk);
* **warm**: the same cache directory a previous run filled (LLVM object files are loaded,
  lowering and code generation still run).

``tvm.compile`` of a 1024-element ``exp(A) + 1`` PrimFunc is timed the same way (first
compile in a fresh process). Apache TVM, when ``--tvm-python`` is given, runs the same
worker in its own interpreter (it has no disk cache, so one column). Reported: median seconds
of ``--repeats`` runs, each repeat running ours cold, ours warm and TVM back to back. Workers
run with Python's bytecode cache on (see ``train_step.worker_env``) after one unmeasured run
of each interpreter. Figures: ``README_compile.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_step import _WORKER, WORKLOADS, worker_env  # the shared worker code

_PRIMFUNC = textwrap.dedent('''
    import json, time
    import tvm
    from tvm import te
    A = te.placeholder((1024,), "float32", name="A")
    B = te.compute((1024,), lambda i: te.exp(A[i]) + 1.0, name="B")
    func = te.create_prim_func([A, B])
    start = time.perf_counter()
    tvm.compile(func, target="llvm")
    print("RESULT " + json.dumps({"compile_s": time.perf_counter() - start, "ms": 0.0}))
''')


def _run(python, code, args, cache_dir, timeout=600):
    env = worker_env(PYTVM_CACHE_DIR=cache_dir, TVM_NUM_THREADS="1")
    try:
        proc = subprocess.run([python, "-c", code, *args], capture_output=True, text=True,
                              timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired:
        return None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])["compile_s"]
    sys.stderr.write(proc.stderr[-2000:])
    return None


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def measure(code, args, repeats, tvm_python=None):
    """Median compile seconds: ours ``(cold, warm)`` and Apache TVM's (None without it).

    One unmeasured run of each interpreter first (it writes the bytecode caches of the modules
    a build imports); then, per repeat, ours cold, ours warm and TVM's back to back, so that a
    change in the machine's load affects all columns alike.
    """
    with tempfile.TemporaryDirectory() as scratch:
        _run(sys.executable, code, args, scratch)
        if tvm_python:
            _run(tvm_python, code, args, scratch)
    cold, warm, tvm = [], [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache_dir:
            cold.append(_run(sys.executable, code, args, cache_dir))
            warm.append(_run(sys.executable, code, args, cache_dir))
        if tvm_python:
            with tempfile.TemporaryDirectory() as cache_dir:
                tvm.append(_run(tvm_python, code, args, cache_dir))
    return _median(cold), _median(warm), _median(tvm) if tvm_python else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tvm-python", help="a Python interpreter with Apache TVM")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="mlp64,mlp256,cnn,primfunc")
    args = parser.parse_args()
    cases = []
    for name in args.only.split(","):
        if name == "primfunc":
            cases.append((name, _PRIMFUNC, []))
        else:
            cases.append((name, _WORKER, [json.dumps(WORKLOADS[name]), "1", "1"]))

    def fmt(value):
        return "   failed" if value is None else f"{value:9.2f}"

    header = f"{'workload':10} {'cold s':>9} {'warm s':>9}"
    if args.tvm_python:
        header += f" {'TVM s':>9} {'cold/TVM':>9} {'warm/TVM':>9}"
    print(header)
    for name, code, worker_args in cases:
        cold, warm, tvm_s = measure(code, worker_args, args.repeats, args.tvm_python)
        line = f"{name:10} {fmt(cold)} {fmt(warm)}"
        if args.tvm_python:
            ratios = [value / tvm_s if value and tvm_s else None for value in (cold, warm)]
            line += f" {fmt(tvm_s)} {fmt(ratios[0])} {fmt(ratios[1])}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
