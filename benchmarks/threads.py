"""Thread scaling: pytvm vs NumPy (OpenBLAS) vs PyTorch eager at 1, 2, ... threads, in one process.

Run (NumPy at its best OpenBLAS kernel: unset the variables that pin a weaker one)::

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/threads.py
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/threads.py \\
        --threads 1,2,4,8,16 --matmul 2048 --json scaling.json        # a 16-core machine

Workloads: ``matmul`` (``N^3`` float32, ``--matmul`` sizes, default 1024; output
preallocated on every side), ``mlp256`` (training step 784-1024-10, batch 256) and ``mlp64``
(784-256-10, batch 64): SGD, cross entropy, the steps of ``benchmarks/train_step.py``
(pytvm's ``relax.training.Trainer``, ``tvm.examples.numpy_steps.NumpyMLP``, PyTorch eager).

How the comparison is kept fair on a shared machine: every framework and thread count is
measured in the same process, in rounds: each round runs a batch of calls of every
``(framework, threads)`` pair back to back, and the table reports the median over rounds, so
a period of load hits all pairs alike. The thread count is switched at run time:
``tvm.backend.llvm.threadpool.set_num_threads`` (the pool is sized by ``TVM_NUM_THREADS`` or
the physical cores), ``threadpoolctl.threadpool_limits`` for OpenBLAS, and
``torch.set_num_threads``.

``--ab`` also times the matmul with the previous schedule (one packed strip of B per task,
``MATMUL_GROUP_MAX = 1``) in the same rounds, as ``pytvm-1strip``. ``--stats`` adds, per
workload, what each pool thread did at the largest thread count (tasks, CPU time inside
tasks, the launcher's wait for workers): see ``docs/arch/codegen.md``, "Threads".

The output records the thread counts, the OpenBLAS kernel (``threadpoolctl``'s
``architecture``), ``OPENBLAS_CORETYPE`` and the CPU. Results: ``benchmarks/README_kernels.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np


def _blas_info():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return {"note": "threadpoolctl not installed: BLAS kernel unknown"}
    infos = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    if not infos:
        return {"note": "no BLAS found by threadpoolctl"}
    i = infos[0]
    return {k: i.get(k) for k in ("internal_api", "version", "architecture", "num_threads",
                                  "threading_layer")}


class _BlasThreads:
    """Set OpenBLAS's threads at run time (threadpoolctl), or do nothing without it."""

    def __init__(self):
        try:
            from threadpoolctl import ThreadpoolController
            self._ctl = ThreadpoolController()
        except ImportError:
            self._ctl = None

    def set(self, n):
        if self._ctl is not None:
            self._ctl.limit(limits=n, user_api="blas")  # applies now; never restored


def _matmul_kernel(n, group_max=None):
    import tvm
    from tvm import te
    from tvm.backend.llvm import jit
    from tvm.driver import clear_cache
    from tvm.s_tir import default_schedule_matmul as dsm

    saved = dsm.MATMUL_GROUP_MAX
    if group_max is not None:
        dsm.MATMUL_GROUP_MAX = group_max
    try:
        clear_cache()
        jit.clear_cache()
        a = te.placeholder((n, n), "float32", name="A")
        b = te.placeholder((n, n), "float32", name="B")
        k = te.reduce_axis((0, n), "k")
        c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
        return tvm.compile(te.create_prim_func([a, b, c]))["main"]
    finally:
        dsm.MATMUL_GROUP_MAX = saved
        clear_cache()
        jit.clear_cache()


def _pytvm_trainer(batch, sizes):
    import tvm
    from tvm import relax
    from tvm.relax.training import SetupTrainer, Trainer
    from tvm.relax.training.loss import CrossEntropyLoss
    from tvm.relax.training.optimizer import SGD

    f32 = "float32"
    n_in, n_hidden, n_out = sizes
    bb = relax.BlockBuilder()
    x = relax.Var("x", relax.TensorType((batch, n_in), f32))
    w0 = relax.Var("w0", relax.TensorType((n_in, n_hidden), f32))
    b0 = relax.Var("b0", relax.TensorType((n_hidden,), f32))
    w1 = relax.Var("w1", relax.TensorType((n_hidden, n_out), f32))
    b1 = relax.Var("b1", relax.TensorType((n_out,), f32))
    with bb.function("backbone", [x, w0, b0, w1, b1]):
        with bb.dataflow():
            h = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(x, w0), b0)))
            out = bb.emit_output(relax.op.add(relax.op.matmul(h, w1), b1))
        bb.emit_func_output(out)
    mod = bb.get().with_attrs({"param_num": 4, "state_num": 0})
    setup = SetupTrainer(CrossEntropyLoss(), SGD(0.01), [
        relax.TensorType((batch, n_out), f32), relax.TensorType((batch,), "int64")])
    train_mod = setup(mod)
    ex = relax.build(train_mod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    trainer = Trainer(train_mod, vm, tvm.cpu())
    return trainer


def _mlp_steps(batch, sizes):
    """``{framework: step()}`` for one MLP size, all from the same parameters and batch."""
    from tvm.examples.numpy_steps import NumpyMLP

    n_in, n_hidden, n_out = sizes
    rng = np.random.default_rng(0)
    shapes = [(n_in, n_hidden), (n_hidden,), (n_hidden, n_out), (n_out,)]
    params = [rng.uniform(-0.05, 0.05, s).astype("float32") for s in shapes]
    x = rng.random((batch, n_in), dtype=np.float32)
    y = rng.integers(0, n_out, batch).astype("int64")
    trainer = _pytvm_trainer(batch, sizes)
    trainer.load_params([p.copy() for p in params])
    reference = NumpyMLP([p.copy() for p in params], "sgd", 0.01)
    steps = {"pytvm": lambda: trainer.update(x, y), "numpy": lambda: reference.step(x, y)}
    try:
        import torch
    except ImportError:
        return steps
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(n_in, n_hidden), torch.nn.ReLU(),
                                torch.nn.Linear(n_hidden, n_out))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)

    def torch_step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(tx), ty)
        loss.backward()
        opt.step()

    steps["pytorch"] = torch_step
    return steps


def _matmul_calls(n, ab):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype("float32")
    b = rng.standard_normal((n, n)).astype("float32")
    c = np.empty((n, n), "float32")
    calls = {}
    kernel = _matmul_kernel(n)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-3, atol=1e-2)
    calls["pytvm"] = lambda: kernel(a, b, c)
    if ab:
        old = _matmul_kernel(n, group_max=1)
        calls["pytvm-1strip"] = lambda: old(a, b, c)
    calls["numpy"] = lambda: np.matmul(a, b, out=c)
    try:
        import torch
    except ImportError:
        return calls
    ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(c)
    calls["pytorch"] = lambda: torch.mm(ta, tb, out=tc)
    return calls


def _set_threads(framework, n, blas):
    from tvm.backend.llvm import threadpool

    threadpool.set_num_threads(n if framework.startswith("pytvm") else 1)
    blas.set(n if framework == "numpy" else 1)
    try:
        import torch
        torch.set_num_threads(n if framework == "pytorch" else 1)
    except ImportError:
        pass


def _measure(calls, threads, rounds, budget_s, blas):
    """Median seconds per call of every (framework, threads), interleaved over rounds."""
    # Calls per batch: about budget_s / rounds of each pair per round.
    per_call = {}
    for name, fn in calls.items():
        _set_threads(name, max(threads), blas)
        fn()
        t0 = time.perf_counter()
        fn()
        per_call[name] = max(time.perf_counter() - t0, 1e-6)
    samples = {(name, t): [] for name in calls for t in threads}
    for _ in range(rounds):
        for t in threads:
            for name, fn in calls.items():
                _set_threads(name, t, blas)
                fn()  # warm: the new thread count's workers wake up
                number = max(1, int(budget_s / rounds / len(samples) / per_call[name]))
                t0 = time.perf_counter()
                for _ in range(number):
                    fn()
                samples[(name, t)].append((time.perf_counter() - t0) / number)
    return {key: statistics.median(v) for key, v in samples.items()}


def _pool_profile(fn, threads, calls=20):
    """What each pool thread did over ``calls`` calls of ``fn`` at ``threads`` threads."""
    from tvm.backend.llvm import threadpool

    threadpool.set_num_threads(threads)
    fn()
    threadpool.reset_stats()
    threadpool.enable_stats(True)
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    wall = (time.perf_counter() - t0) / calls
    threadpool.enable_stats(False)
    rows = threadpool.stats()[:threads]
    return {
        "wall_ms_per_call": 1e3 * wall,
        "launches_per_call": rows[0]["launches"] / calls,
        "serial_launches_per_call": rows[0]["serial_launches"] / calls,
        "launcher_wait_ms_per_call": rows[0]["launcher_wait_ns"] / calls / 1e6,
        "threads": [{"tasks_per_call": r["tasks"] / calls,
                     "task_cpu_ms_per_call": r["task_cpu_ns"] / calls / 1e6,
                     "task_wall_ms_per_call": r["task_wall_ns"] / calls / 1e6,
                     "sleeps_per_call": r["sleeps"] / calls} for r in rows],
    }


def main(argv=None) -> int:
    from tvm.backend.llvm import threadpool
    from tvm.runtime.cpu_topology import cpu_order

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", default=None,
                        help="comma-separated thread counts (default: 1 and the pool size)")
    parser.add_argument("--matmul", default="1024", help="comma-separated matmul sizes")
    parser.add_argument("--only", default="matmul,mlp256,mlp64")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=6.0,
                        help="time budget per workload (all pairs, all rounds)")
    parser.add_argument("--ab", action="store_true", help="also time the one-strip matmul")
    parser.add_argument("--stats", action="store_true", help="per-thread pool profile")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)

    pool = threadpool.default_num_threads()
    threads = ([int(t) for t in args.threads.split(",")] if args.threads
               else sorted({1, pool}))
    if max(threads) > pool:
        print(f"note: the pool has {pool} threads (TVM_NUM_THREADS or physical cores); "
              f"pytvm rows above {pool} threads run on {pool}", file=sys.stderr)
    blas = _BlasThreads()
    cores, cpus = cpu_order()
    header = {
        "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "cpu": platform.processor() or platform.machine(),
        "physical_cores": cores, "cpus": len(cpus), "pool_threads": pool,
        "loadavg": os.getloadavg() if hasattr(os, "getloadavg") else None,
        "numpy": np.__version__, "blas": _blas_info(),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE"),
        "OPENBLAS_L2_SIZE": os.environ.get("OPENBLAS_L2_SIZE"),
        "threads": threads,
    }
    if header["OPENBLAS_CORETYPE"] or header["OPENBLAS_L2_SIZE"]:
        print("warning: OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE set: NumPy may not run its best "
              "kernel (run with env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)", file=sys.stderr)
    print("# " + json.dumps(header))
    results = []
    only = args.only.split(",")
    workloads = []
    if "matmul" in only:
        for n in (int(s) for s in args.matmul.split(",")):
            workloads.append((f"matmul {n}^3", "GFLOP/s", 2 * n**3,
                              lambda n=n: _matmul_calls(n, args.ab)))
    if "mlp256" in only:
        workloads.append(("MLP step 784-1024-10 b256", "ms", None,
                          lambda: _mlp_steps(256, (784, 1024, 10))))
    if "mlp64" in only:
        workloads.append(("MLP step 784-256-10 b64", "ms", None,
                          lambda: _mlp_steps(64, (784, 256, 10))))
    print("| workload | threads | framework | value | unit |")
    print("| --- | ---: | --- | ---: | --- |")
    for label, unit, flops, make in workloads:
        calls = make()
        medians = _measure(calls, threads, args.rounds, args.seconds, blas)
        for (name, t), sec in medians.items():
            value = flops / sec / 1e9 if flops else 1e3 * sec
            results.append({"workload": label, "framework": name, "threads": t,
                            "seconds": sec, "value": value, "unit": unit})
            print(f"| {label} | {t} | {name} | {value:.2f} | {unit} |")
        if args.stats:
            profile = _pool_profile(calls["pytvm"], max(t for t in threads if t <= pool))
            results.append({"workload": label, "pool_profile": profile})
            print(f"#   pool profile of pytvm, {label}: {json.dumps(profile)}")
        sys.stdout.flush()
    _set_threads("pytvm", 0, blas)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"header": header, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
