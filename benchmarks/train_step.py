"""Training-step benchmark: pytvm vs hand-written NumPy vs PyTorch eager (vs Apache TVM).

Usage::

    python benchmarks/train_step.py [--tvm-python /opt/tvm-oracle/bin/python] [--threads N]
                                    [--steps 50] [--repeats 5] [--only mlp64,mlp256,cnn]

Workloads (float32, cross entropy, SGD lr=0.01; SGD because Apache TVM 0.27's ``Adam.init``
fails on ``np.ones((), T.float32)``):

* ``mlp64``: batch 64, 784-256-10 MLP (ReLU);
* ``mlp256``: batch 256, 784-1024-10 MLP;
* ``cnn``: batch 64, 1x28x28 input, conv 3x3 (8 channels, padding 1), ReLU, 2x2 max-pool,
  linear 8*14*14 -> 10.

The pytvm and Apache TVM steps are built by the same worker code (``_WORKER``: BlockBuilder,
``relax.training.SetupTrainer``, ``relax.build``, ``Trainer``), each run in its own process with
its own interpreter, so Apache TVM is never imported here. The timed step is
``trainer.update(x, y)``; compile time is SetupTrainer (Gradient) plus the build. The NumPy
column runs the hand-written steps of ``tvm.examples.numpy_steps`` (``NumpyMLP``,
``NumpyCNN``) from the worker's initial parameters and batch. Reported:
median ms/step over ``--repeats`` runs of ``--steps`` steps, and ratios to pytvm. Threads:
``--threads`` (default 1) is given to PyTorch (``torch.set_num_threads``) and to TVM
(``TVM_NUM_THREADS``) alike; NumPy's BLAS gets ``OMP_NUM_THREADS``/``OPENBLAS_NUM_THREADS``.
"""

from __future__ import annotations

import os
import sys

# BLAS threads must be set before NumPy loads its BLAS: the same count as the other frameworks.
for _flag, _value in zip(sys.argv, sys.argv[1:]):
    if _flag == "--threads":
        os.environ.setdefault("OMP_NUM_THREADS", _value)
        os.environ.setdefault("OPENBLAS_NUM_THREADS", _value)
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import datetime
import json
import platform
import subprocess
import tempfile
import textwrap
import time

import numpy as np

WORKLOADS = {
    "mlp64": {"kind": "mlp", "batch": 64, "sizes": [784, 256, 10]},
    "mlp256": {"kind": "mlp", "batch": 256, "sizes": [784, 1024, 10]},
    "cnn": {"kind": "cnn", "batch": 64, "channels": 8},
}

# Runs under either interpreter (pytvm or Apache TVM): only public, shared API names.
_WORKER = textwrap.dedent('''
    import json, sys, time
    import numpy as np
    import tvm
    from tvm import relax
    from tvm.relax.training import SetupTrainer, Trainer
    from tvm.relax.training.loss import CrossEntropyLoss
    from tvm.relax.training.optimizer import SGD

    spec = json.loads(sys.argv[1])
    steps, repeats = int(sys.argv[2]), int(sys.argv[3])
    f32 = "float32"
    batch = spec["batch"]
    bb = relax.BlockBuilder()
    if spec["kind"] == "mlp":
        n_in, n_hidden, n_out = spec["sizes"]
        x = relax.Var("x", relax.TensorType((batch, n_in), f32))
        w0 = relax.Var("w0", relax.TensorType((n_in, n_hidden), f32))
        b0 = relax.Var("b0", relax.TensorType((n_hidden,), f32))
        w1 = relax.Var("w1", relax.TensorType((n_hidden, n_out), f32))
        b1 = relax.Var("b1", relax.TensorType((n_out,), f32))
        params = [w0, b0, w1, b1]
        with bb.function("backbone", [x] + params):
            with bb.dataflow():
                h = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(x, w0), b0)))
                out = bb.emit_output(relax.op.add(relax.op.matmul(h, w1), b1))
            bb.emit_func_output(out)
        x_shape = (batch, n_in)
        shapes = [(n_in, n_hidden), (n_hidden,), (n_hidden, n_out), (n_out,)]
    else:
        c, n_out = spec["channels"], 10
        x = relax.Var("x", relax.TensorType((batch, 1, 28, 28), f32))
        wc = relax.Var("wc", relax.TensorType((c, 1, 3, 3), f32))
        bc = relax.Var("bc", relax.TensorType((1, c, 1, 1), f32))
        w1 = relax.Var("w1", relax.TensorType((c * 14 * 14, n_out), f32))
        b1 = relax.Var("b1", relax.TensorType((n_out,), f32))
        params = [wc, bc, w1, b1]
        with bb.function("backbone", [x] + params):
            with bb.dataflow():
                conv = bb.emit(relax.op.nn.conv2d(x, wc, padding=(1, 1)))
                act = bb.emit(relax.op.nn.relu(relax.op.add(conv, bc)))
                pool = bb.emit(relax.op.nn.max_pool2d(act, pool_size=(2, 2), strides=(2, 2)))
                flat = bb.emit(relax.op.reshape(pool, (batch, c * 14 * 14)))
                out = bb.emit_output(relax.op.add(relax.op.matmul(flat, w1), b1))
            bb.emit_func_output(out)
        x_shape = (batch, 1, 28, 28)
        shapes = [(c, 1, 3, 3), (1, c, 1, 1), (c * 14 * 14, n_out), (n_out,)]
    mod = bb.get().with_attrs({"param_num": 4, "state_num": 0})
    start = time.perf_counter()
    setup = SetupTrainer(CrossEntropyLoss(), SGD(0.01), [
        relax.TensorType((batch, n_out), f32), relax.TensorType((batch,), "int64")])
    train_mod = setup(mod)
    ex = relax.build(train_mod, target="llvm")
    compile_s = time.perf_counter() - start
    vm = relax.VirtualMachine(ex, tvm.cpu())
    trainer = Trainer(train_mod, vm, tvm.cpu())
    rng = np.random.default_rng(0)
    # load_params, not xaiver_uniform_init_params: TVM 0.27's fails on these parameter types.
    trainer.load_params([rng.uniform(-0.05, 0.05, s).astype("float32") for s in shapes])
    xb = rng.random(x_shape, dtype=np.float32)
    yb = rng.integers(0, n_out, batch).astype("int64")
    for _ in range(3):
        trainer.update(xb, yb)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            loss = trainer.update(xb, yb)
        float(loss.numpy())
        times.append((time.perf_counter() - t0) / steps)
    print("RESULT " + json.dumps({"compile_s": compile_s, "ms": 1e3 * float(np.median(times))}))
''')


def worker_env(**overrides) -> dict:
    """The environment of a worker process: ours, with ``overrides``.

    ``PYTHONDONTWRITEBYTECODE`` is dropped: with it, every module the build imports lazily
    is compiled from source in every run (~0.1 s of our compile time), while a normal
    installation, Apache TVM's included, runs from cached bytecode.
    """
    env = dict(os.environ, **overrides)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_worker(python, spec, steps, repeats, threads, timeout):
    """Run ``_WORKER`` with ``python``; returns its result dict or an error string.

    Each run gets a new, empty ``PYTVM_CACHE_DIR``: the compile time reported is a cold build
    (no LLVM object cached on disk), as ``compile_time.py``'s "cold" column.
    """
    with tempfile.TemporaryDirectory() as cache_dir:
        env = worker_env(TVM_NUM_THREADS=str(threads), PYTHONUNBUFFERED="1",
                         PYTVM_CACHE_DIR=cache_dir)
        return _run_worker(python, spec, steps, repeats, env, timeout)


def _run_worker(python, spec, steps, repeats, env, timeout):
    try:
        proc = subprocess.run(
            [python, "-c", _WORKER, json.dumps(spec), str(steps), str(repeats)],
            capture_output=True, text=True, timeout=timeout, env=env, check=False,
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s"
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    return f"failed: {tail[0][:200]}"


# --- NumPy -------------------------------------------------------------------------------------


def numpy_step(spec, steps, repeats):
    """The hand-written NumPy step of ``tvm.examples.numpy_steps`` (forward, softmax cross
    entropy, backward, SGD), from the worker's initial parameters and batch."""
    from tvm.examples.numpy_steps import NumpyCNN, NumpyMLP  # after the BLAS thread settings

    batch, rng = spec["batch"], np.random.default_rng(0)
    if spec["kind"] == "mlp":
        n_in, n_hidden, n_out = spec["sizes"]
        shapes = [(n_in, n_hidden), (n_hidden,), (n_hidden, n_out), (n_out,)]
        x_shape, model = (batch, n_in), NumpyMLP
    else:
        c, n_out = spec["channels"], 10
        shapes = [(c, 1, 3, 3), (1, c, 1, 1), (c * 14 * 14, n_out), (n_out,)]
        x_shape, model = (batch, 1, 28, 28), NumpyCNN
    reference = model([rng.uniform(-0.05, 0.05, s).astype("float32") for s in shapes], "sgd",
                      0.01)
    x = rng.random(x_shape, dtype=np.float32)
    y = rng.integers(0, n_out, batch).astype("int64")
    return _time(lambda: reference.step(x, y), steps, repeats)


def _time(step, steps, repeats):
    for _ in range(3):
        step()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        times.append((time.perf_counter() - t0) / steps)
    return 1e3 * float(np.median(times))


# --- PyTorch -------------------------------------------------------------------------------------


def torch_step(spec, steps, repeats, threads):
    try:
        import torch
    except ImportError:
        return "torch not installed (pip install torch==2.13.0, the bench extra)"
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    batch = spec["batch"]
    if spec["kind"] == "mlp":
        n_in, n_hidden, n_out = spec["sizes"]
        model = torch.nn.Sequential(torch.nn.Linear(n_in, n_hidden), torch.nn.ReLU(),
                                    torch.nn.Linear(n_hidden, n_out))
        x = torch.rand(batch, n_in)
    else:
        c = spec["channels"]
        model = torch.nn.Sequential(torch.nn.Conv2d(1, c, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                                    torch.nn.Linear(c * 14 * 14, 10))
        x = torch.rand(batch, 1, 28, 28)
    y = torch.randint(0, 10, (batch,))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return _time(step, steps, repeats)


# --- VM call overhead ----------------------------------------------------------------------------


def vm_overhead():
    """Microseconds per call of a compiled Relax function taking 3 tensors and doing nothing."""
    import tvm
    from tvm import relax

    bb = relax.BlockBuilder()
    params = [relax.Var(f"x{i}", relax.TensorType([4], "float32")) for i in range(3)]
    with bb.function("main", params):
        bb.emit_func_output(relax.Tuple([]))
    vm = relax.VirtualMachine(relax.build(bb.get(), relax_pipeline=None), tvm.cpu())
    func = vm["main"]
    out = {}
    for label, args in (
        ("tensor", [tvm.runtime.tensor(np.zeros(4, "float32")) for _ in range(3)]),
        ("numpy", [np.zeros(4, "float32") for _ in range(3)]),
    ):
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(20000):
                func(*args)
            best = min(best, (time.perf_counter() - t0) / 20000)
        out[label] = 1e6 * best
    return out


# --- report ---------------------------------------------------------------------------------------


def _fmt(value):
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tvm-python", help="a Python interpreter with Apache TVM installed")
    parser.add_argument("--threads", type=int, default=1, help="threads for every framework")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default=",".join(WORKLOADS))
    parser.add_argument("--timeout", type=int, default=900, help="seconds per TVM worker")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--overhead-only", action="store_true",
                        help="only measure the VM call overhead")
    args = parser.parse_args(argv)
    results = {}
    if args.overhead_only:
        print(json.dumps(vm_overhead()))
        return 0
    for name in args.only.split(","):
        spec = WORKLOADS[name]
        row = {}
        row["pytvm"] = run_worker(sys.executable, spec, args.steps, args.repeats, args.threads,
                                  args.timeout)
        row["numpy"] = numpy_step(spec, args.steps, args.repeats)
        row["torch"] = torch_step(spec, args.steps, args.repeats, args.threads)
        if args.tvm_python:
            row["tvm"] = run_worker(args.tvm_python, spec, args.steps, args.repeats,
                                    args.threads, args.timeout)
        results[name] = row
        print(f"{name}: {json.dumps(row)}", flush=True)

    print()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"threads={args.threads}; {datetime.date.today()}")
    header = "| workload | pytvm ms/step | pytvm compile s | NumPy ms | PyTorch ms | TVM ms | " \
             "TVM compile s | NumPy/pytvm | PyTorch/pytvm | TVM/pytvm |"
    print(header)
    print("|" + " --- |" * (header.count("|") - 1))
    for name, row in results.items():
        ours = row["pytvm"]
        ours_ms = ours["ms"] if isinstance(ours, dict) else None
        tvm_row = row.get("tvm")
        tvm_ms = tvm_row["ms"] if isinstance(tvm_row, dict) else tvm_row or "-"
        tvm_c = tvm_row["compile_s"] if isinstance(tvm_row, dict) else "-"

        def ratio(value, ours_ms=ours_ms):
            if isinstance(value, float) and ours_ms:
                return f"{value / ours_ms:.2f}"
            return "-"

        print(f"| {name} | {_fmt(ours_ms if ours_ms else ours)} | "
              f"{_fmt(ours['compile_s']) if isinstance(ours, dict) else '-'} | "
              f"{_fmt(row['numpy'])} | {_fmt(row['torch'])} | {_fmt(tvm_ms)} | {_fmt(tvm_c)} | "
              f"{ratio(row['numpy'])} | {ratio(row['torch'])} | {ratio(tvm_ms)} |")
    overhead = vm_overhead()
    print(f"\nVM call overhead (3 tensor args, empty function): {overhead['tensor']:.2f} us "
          f"with tvm.runtime.Tensor args, {overhead['numpy']:.2f} us with NumPy arrays")
    results["vm_overhead_us"] = overhead
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
