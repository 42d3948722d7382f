"""One rank of the data-parallel tests (tests/relax/test_training_distributed.py).

Run as a script: ``python _dp_worker.py MODE OUT_DIR [STEPS]`` with torch's launcher
variables (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) for several ranks, none for one.
Modes: ``train`` (train STEPS steps, write params/losses), ``kill`` (rank 1 exits at step 2),
``mismatch`` (rank 1 builds another model), ``save`` (train, then save a checkpoint),
``resume`` (load that checkpoint, then train).
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

import tvm
from tvm import relax
from tvm.relax.training import SetupTrainer
from tvm.relax.training.distributed import DistributedTrainer, init_process_group
from tvm.relax.training.loss import CrossEntropyLoss
from tvm.relax.training.optimizer import Adam

BATCH, FEATURES, CLASSES = 16, 8, 3


def build(batch, hidden):
    x = relax.Var("x", relax.TensorType((batch, FEATURES), "float32"))
    w0 = relax.Var("w0", relax.TensorType((FEATURES, hidden), "float32"))
    b0 = relax.Var("b0", relax.TensorType((hidden,), "float32"))
    w1 = relax.Var("w1", relax.TensorType((hidden, CLASSES), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("backbone", [x, w0, b0, w1]):
        with bb.dataflow():
            h = bb.emit(relax.op.nn.relu(relax.op.add(relax.op.matmul(x, w0), b0)))
            out = bb.emit_output(relax.op.matmul(h, w1))
        bb.emit_func_output(out)
    mod = bb.get().with_attrs({"param_num": 3, "state_num": 0})
    return SetupTrainer(
        CrossEntropyLoss(), Adam(0.05),
        [relax.TensorType((batch, CLASSES), "float32"), relax.TensorType((batch,), "int64")],
    )(mod)


def data(step):
    rng = np.random.default_rng(100 + step)
    x = rng.standard_normal((BATCH, FEATURES)).astype("float32")
    y = ((x[:, 0] > 0).astype("int64") + (x[:, 1] > 0.5).astype("int64"))
    return x, y



def _fail(rank, err):
    """Report ``err`` and end the rank with exit code 1.

    ``os._exit`` rather than ``sys.exit``: with the peer rank already gone, torch's gloo
    threads can hit ``std::terminate`` while the interpreter tears the process group down
    (exit code -6 under load), which would hide the exit code the tests check.
    """
    print(f"rank {rank}: {err}", file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(1)

def main():
    mode, out_dir = sys.argv[1], sys.argv[2]
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    init_process_group("gloo", timeout=20)
    import torch.distributed as dist

    world = dist.get_world_size() if dist.is_initialized() else 1
    rank = dist.get_rank() if dist.is_initialized() else 0
    shard = BATCH // world
    hidden = 17 if mode == "mismatch" and rank == 1 else 16
    train_mod = build(shard, hidden)
    vm = relax.VirtualMachine(tvm.compile(train_mod, "llvm"), tvm.cpu())
    try:
        trainer = DistributedTrainer(train_mod, vm, tvm.cpu(), bucket_bytes=256)
    except ValueError as err:
        _fail(rank, err)
    trainer.xaiver_uniform_init_params(seed=rank)  # different per rank: rank 0's is broadcast
    if mode == "resume":
        trainer.load_checkpoint(os.path.join(out_dir, "ckpt.npz"))
    losses, identical = [], []
    for step in range(first, first + steps):
        if mode == "kill" and rank == 1 and step == 2:
            os._exit(3)
        x, y = data(step)
        try:
            loss = trainer.update(x[rank * shard:(rank + 1) * shard],
                                  y[rank * shard:(rank + 1) * shard])
        except RuntimeError as err:
            _fail(rank, err)
        losses.append(float(loss.numpy()))
        if world > 1:
            import torch

            mine = torch.cat([torch.from_dlpack(p).reshape(-1)
                              for p in trainer.export_params().values()])
            every = [torch.zeros_like(mine) for _ in range(world)]
            dist.all_gather(every, mine)
            identical.append(all(bool(torch.equal(every[0], t)) for t in every))
    if mode == "save":
        trainer.save_checkpoint(os.path.join(out_dir, "ckpt.npz"))
    if rank == 0:
        params = {n: t.numpy() for n, t in trainer.export_params().items()}
        np.savez(os.path.join(out_dir, "params.npz"), **params)
        with open(os.path.join(out_dir, "result.json"), "w") as f:
            json.dump({"losses": losses, "identical": identical, "world": world,
                       "allreduce_s": trainer.allreduce_seconds}, f)
    if dist.is_initialized():
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
