"""Data-parallel training throughput: pytvm's DistributedTrainer vs PyTorch DDP, 1 and 2 ranks.

The medium MLP (784-1024-10, Adam, cross-entropy), batch 256 overall (each of R ranks takes
256/R), gloo on localhost, one thread per rank (``TVM_NUM_THREADS=1``,
``torch.set_num_threads(1)``). Reports steps per second, the scaling from 1 to 2 ranks
(goal: >= 1.7x) and pytvm's all-reduce time per step, with gradient buckets (the default,
25 MiB) and without (``bucket_bytes=0``: each gradient reduced by itself, in place). Both frameworks run in the same
invocation, one after the other.

Run: ``python benchmarks/data_parallel.py [--steps N] [--ranks 1 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np

BATCH, IN, HIDDEN, OUT = 256, 784, 1024, 10


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(framework, ranks, steps, bucket_bytes=None):
    port = _port()
    procs = []
    for rank in range(ranks):
        env = dict(os.environ, TVM_NUM_THREADS="1", OMP_NUM_THREADS="1", RANK=str(rank),
                   WORLD_SIZE=str(ranks), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen(
            [sys.executable, __file__, "--worker", framework, "--steps", str(steps),
             *(["--bucket-bytes", str(bucket_bytes)] if bucket_bytes is not None else [])],
            env=env, stdout=subprocess.PIPE, text=True))
    outs = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit(f"{framework} with {ranks} ranks failed")
    return json.loads(outs[0].strip().splitlines()[-1])


def _data(shard, rank, step):
    rng = np.random.default_rng(step)
    x = rng.standard_normal((BATCH, IN)).astype("float32")
    y = rng.integers(0, OUT, BATCH).astype("int64")
    return x[rank * shard:(rank + 1) * shard], y[rank * shard:(rank + 1) * shard]


def worker_pytvm(steps, bucket_bytes):
    import tvm
    from tvm import relax
    from tvm.relax.training import SetupTrainer
    from tvm.relax.training.distributed import DistributedTrainer, init_process_group
    from tvm.relax.training.loss import CrossEntropyLoss
    from tvm.relax.training.optimizer import Adam

    init_process_group("gloo", timeout=120)
    import torch.distributed as dist

    world, rank = dist.get_world_size(), dist.get_rank()
    shard = BATCH // world
    x = relax.Var("x", relax.TensorType((shard, IN), "float32"))
    ws = [relax.Var("w0", relax.TensorType((IN, HIDDEN), "float32")),
          relax.Var("b0", relax.TensorType((HIDDEN,), "float32")),
          relax.Var("w1", relax.TensorType((HIDDEN, OUT), "float32")),
          relax.Var("b1", relax.TensorType((OUT,), "float32"))]
    bb = relax.BlockBuilder()
    with bb.function("backbone", [x, *ws]):
        with bb.dataflow():
            h = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(x, ws[0]), ws[1])))
            out = bb.emit_output(relax.op.add(relax.op.matmul(h, ws[2]), ws[3]))
        bb.emit_func_output(out)
    mod = SetupTrainer(CrossEntropyLoss(), Adam(1e-3), [
        relax.TensorType((shard, OUT), "float32"), relax.TensorType((shard,), "int64")])(
        bb.get().with_attrs({"param_num": 4, "state_num": 0}))
    vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())
    kwargs = {} if bucket_bytes is None else {"bucket_bytes": bucket_bytes}
    trainer = DistributedTrainer(mod, vm, tvm.cpu(), **kwargs)
    trainer.xaiver_uniform_init_params(seed=0)
    batches = [_data(shard, rank, s) for s in range(4)]
    for s in range(3):
        trainer.update(*batches[s % 4])
    dist.barrier()
    trainer.allreduce_seconds = 0.0
    start = time.perf_counter()
    for s in range(steps):
        trainer.update(*batches[s % 4])
    dist.barrier()
    seconds = time.perf_counter() - start
    return {"steps_per_s": steps / seconds, "allreduce_ms": trainer.allreduce_seconds / steps * 1e3}


def worker_torch(steps, _bucket_bytes=None):
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    world, rank = dist.get_world_size(), dist.get_rank()
    shard = BATCH // world
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(),
                                torch.nn.Linear(HIDDEN, OUT))
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    batches = [tuple(map(torch.from_numpy, _data(shard, rank, s))) for s in range(4)]

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss_fn(ddp(x), y).backward()
        opt.step()

    for s in range(3):
        step(*batches[s % 4])
    dist.barrier()
    start = time.perf_counter()
    for s in range(steps):
        step(*batches[s % 4])
    dist.barrier()
    return {"steps_per_s": steps / (time.perf_counter() - start)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--worker", choices=["pytvm", "torch"])
    parser.add_argument("--bucket-bytes", type=int, default=None)
    args = parser.parse_args()
    if args.worker:
        worker = worker_pytvm if args.worker == "pytvm" else worker_torch
        result = worker(args.steps, args.bucket_bytes)
        import torch.distributed as dist

        if dist.get_rank() == 0:
            print(json.dumps(result))
        dist.destroy_process_group()
        return
    print(f"MLP {IN}-{HIDDEN}-{OUT}, Adam, batch {BATCH} overall, gloo, 1 thread per rank, "
          f"{args.steps} timed steps")
    table = {}
    runs = [("pytvm", "pytvm", None), ("pytvm, no buckets", "pytvm", 0),
            ("PyTorch DDP", "torch", None)]
    for name, framework, bucket_bytes in runs:
        for ranks in args.ranks:
            if ranks == 1 and bucket_bytes == 0:
                continue  # one rank reduces nothing
            table[name, ranks] = launch(framework, ranks, args.steps, bucket_bytes)
    print(f"{'framework':<20}{'ranks':>6}{'steps/s':>10}{'vs 1 rank':>11}{'all-reduce ms':>15}")
    for (name, ranks), r in table.items():
        base = table.get((name.split(",")[0], 1), r)["steps_per_s"]
        ar = f"{r['allreduce_ms']:.2f}" if "allreduce_ms" in r else ""
        print(f"{name:<20}{ranks:>6}{r['steps_per_s']:>10.1f}"
              f"{r['steps_per_s'] / base:>10.2f}x{ar:>15}")


if __name__ == "__main__":
    main()
