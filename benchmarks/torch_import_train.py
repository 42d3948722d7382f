"""Training step of an imported transformer block: pytvm vs PyTorch eager vs torch.compile.

Usage::

    python benchmarks/torch_import_train.py [--threads 1,2] [--batch 32] [--seq 128]
                                            [--width 256] [--heads 4] [--steps 10]
                                            [--no-inductor]

The model is a GPT-style pre-norm decoder block written with plain ``torch.nn`` (causal
``scaled_dot_product_attention``, GELU MLP of width 4x), trained with MSE loss against a
fixed random target and SGD (lr 0.01). pytvm's step is the model exported with
``torch.export``, imported by ``relax.frontend.torch.train_step_module`` and compiled with
``tvm.compile`` (LLVM): one ``Trainer.update`` call per step. PyTorch eager runs
``zero_grad, forward, backward, step``; ``torch.compile`` (inductor) compiles the model.

Each thread count runs in its own process (``TVM_NUM_THREADS`` and ``torch.set_num_threads``
get the same count; OpenMP/BLAS variables too) so settings cannot leak. Reported: median
ms/step over ``--steps`` steps after 2 warm-up steps, the ratio to eager, and the
compile/setup time of each. The losses of the first step are printed side by side as a
check that the three run the same computation.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time


def _block(torch, width, heads):
    nn = torch.nn
    F = torch.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(width)
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.ln2 = nn.LayerNorm(width)
            self.fc1 = nn.Linear(width, 4 * width)
            self.fc2 = nn.Linear(4 * width, width)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
            q, k, v = (z.reshape(b, t, self.heads, -1).transpose(1, 2) for z in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
            return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))

    return Block()


def _time_steps(step, steps):
    for _ in range(2):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    times.sort()
    return 1e3 * times[len(times) // 2]


def worker(args):
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    shape = (args.batch, args.seq, args.width)
    x = torch.randn(*shape)
    target = torch.randn(*shape)
    result = {"threads": args.threads}

    def torch_step(model, fwd):
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        loss_fn = torch.nn.MSELoss()
        losses = []

        def step():
            opt.zero_grad()
            loss = loss_fn(fwd(x), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())

        return step, losses

    # pytvm: export, import, set up training, compile.
    import tvm
    from tvm import relax
    from tvm.relax.frontend.torch import load_torch_params, train_step_module
    from tvm.relax.training import Trainer
    from tvm.relax.training.loss import MSELoss
    from tvm.relax.training.optimizer import SGD

    model = _block(torch, args.width, args.heads)
    t0 = time.perf_counter()
    ep = torch.export.export(model, (x,))
    train_mod, init = train_step_module(
        ep, MSELoss(), SGD(0.01), [relax.TensorType(shape, "float32")]
    )
    setup_s = time.perf_counter() - t0
    vm = relax.VirtualMachine(tvm.compile(train_mod, target="llvm"), tvm.cpu())
    result["pytvm_compile_s"] = time.perf_counter() - t0
    result["pytvm_setup_s"] = setup_s
    trainer = Trainer(train_mod, vm, tvm.cpu())
    load_torch_params(trainer, init)
    xs, ts = [tvm.runtime.tensor(x.numpy())], [tvm.runtime.tensor(target.numpy())]
    first = []

    def pytvm_step():
        loss = trainer.update(xs, ts)
        if not first:
            first.append(float(loss.numpy()))

    result["pytvm_ms"] = _time_steps(pytvm_step, args.steps)
    result["pytvm_first_loss"] = first[0]

    eager_model = _block(torch, args.width, args.heads)
    eager_model.load_state_dict(model.state_dict())
    step, losses = torch_step(eager_model, eager_model)
    result["eager_ms"] = _time_steps(step, args.steps)
    result["eager_first_loss"] = losses[0]

    if not args.no_inductor:
        compiled_model = _block(torch, args.width, args.heads)
        compiled_model.load_state_dict(model.state_dict())
        try:
            fwd = torch.compile(compiled_model)
            step, losses = torch_step(compiled_model, fwd)
            t0 = time.perf_counter()
            step()  # compiles
            result["inductor_compile_s"] = time.perf_counter() - t0
            result["inductor_ms"] = _time_steps(step, args.steps)
            result["inductor_first_loss"] = losses[0]
        except Exception as err:  # noqa: BLE001 - reported, the other columns still stand
            result["inductor_error"] = f"{type(err).__name__}: {str(err)[:200]}"
    print("RESULT " + json.dumps(result))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--no-inductor", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.threads = int(args.threads)
        worker(args)
        return
    print(
        f"transformer block training step: batch {args.batch}, seq {args.seq}, width "
        f"{args.width}, {args.heads} heads, MSE + SGD, median of {args.steps} steps"
    )
    for threads in [int(t) for t in args.threads.split(",")]:
        env = dict(
            os.environ,
            TVM_NUM_THREADS=str(threads),
            OMP_NUM_THREADS=str(threads),
            OPENBLAS_NUM_THREADS=str(threads),
            MKL_NUM_THREADS=str(threads),
        )
        cmd = [
            sys.executable,
            __file__,
            "--worker",
            "--threads",
            str(threads),
            "--batch",
            str(args.batch),
            "--seq",
            str(args.seq),
            "--width",
            str(args.width),
            "--heads",
            str(args.heads),
            "--steps",
            str(args.steps),
        ]
        if args.no_inductor:
            cmd.append("--no-inductor")
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        if proc.returncode or not lines:
            print(f"threads {threads}: worker failed\n{proc.stderr[-2000:]}")
            continue
        r = json.loads(lines[-1][len("RESULT ") :])
        eager = r["eager_ms"]
        print(f"threads {threads}:")
        print(
            f"  pytvm          {r['pytvm_ms']:9.2f} ms/step  ({eager / r['pytvm_ms']:.2f}x eager)"
            f"  setup {r['pytvm_setup_s']:.1f} s, setup+compile {r['pytvm_compile_s']:.1f} s,"
            f" first loss {r['pytvm_first_loss']:.6f}"
        )
        print(
            f"  torch eager    {eager:9.2f} ms/step  (1.00x)"
            f"  first loss {r['eager_first_loss']:.6f}"
        )
        if "inductor_ms" in r:
            print(
                f"  torch.compile  {r['inductor_ms']:9.2f} ms/step  "
                f"({eager / r['inductor_ms']:.2f}x eager)  compile "
                f"{r['inductor_compile_s']:.1f} s, first loss {r['inductor_first_loss']:.6f}"
            )
        elif "inductor_error" in r:
            print(f"  torch.compile  unavailable: {r['inductor_error']}")


if __name__ == "__main__":
    main()
