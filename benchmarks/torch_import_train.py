"""Training step of an imported transformer block: pytvm vs PyTorch eager vs torch.compile.

Usage::

    python benchmarks/torch_import_train.py [--threads 1,2] [--batch 32] [--seq 128]
                                            [--width 256] [--heads 4] [--steps 10]
                                            [--no-inductor] [--profile]

The model is a GPT-style pre-norm decoder block written with plain ``torch.nn`` (causal
``scaled_dot_product_attention``, GELU MLP of width 4x), trained with MSE loss against a
fixed random target and SGD (lr 0.01). pytvm's step is the model exported with
``torch.export``, imported by ``relax.frontend.torch.train_step_module`` and compiled with
``tvm.compile`` (LLVM): one ``Trainer.update`` call per step. PyTorch eager runs
``zero_grad, forward, backward, step``; ``torch.compile`` (inductor) compiles the model.

Each thread count runs in its own process (``TVM_NUM_THREADS`` and ``torch.set_num_threads``
get the same count; OpenMP/BLAS variables too) so settings cannot leak. Reported: median
ms/step over ``--steps`` rounds after 2 warm-up rounds, the ratio to eager, and the
compile/setup time of each. A round runs one step of each of the three in turn, so that a
change in the machine's load during the run falls on all three alike. The losses of the first step are printed side by side as a
check that the three run the same computation. Besides the wall-clock median, the CPU time
per step (``time.process_time``) is reported: on a machine shared with other work it moves far
less than the wall clock.

``--profile`` prints pytvm's per-kernel times of one step (``VirtualMachine.profile``),
summed by kernel family (dense matmuls, weight gradients, attention, GELU, ...), then the
slowest kernels.
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


def _time_interleaved(steps, rounds):
    """``{name: (median wall ms, median CPU ms)}`` per step of each ``steps[name]``, timed in
    ``rounds`` rounds that run every step once, in turn, after 2 warm-up rounds: a change in
    the machine's load (other tenants of the VM) falls on every column alike."""
    for _ in range(2):
        for step in steps.values():
            step()
    wall = {name: [] for name in steps}
    cpu = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            t0, c0 = time.perf_counter(), time.process_time()
            step()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)

    def median_ms(values):
        values = sorted(values)
        return 1e3 * values[len(values) // 2]

    return {name: (median_ms(wall[name]), median_ms(cpu[name])) for name in steps}


def kernel_family(name):
    """A coarse family of a fused kernel of the block's training step, by its name."""
    if "matmul" in name:
        if "subtract" in name or "collapse_sum" in name:
            return "matmul: weight gradient + SGD update"
        if name.endswith(("matmul1", "matmul2", "matmul9")):
            return "matmul: attention (batched)"
        return "matmul: forward and input gradient"
    if "gelu" in name or "erf" in name or "tir_exp" in name or "multiply9" in name:
        return "GELU forward + backward"
    if "layer_norm" in name or "mean1" in name:
        return "layer norm forward + backward"
    if any(w in name for w in ("softmax", "sum_subtract", "where", "logical_not")):
        return "softmax + mask, forward + backward"
    if "collapse_sum" in name:
        return "bias / norm weight gradients + SGD"
    parts = {"".join(c for c in p if not c.isdigit())
             for p in name.replace("fused_", "").split("_")}
    if parts <= {"reshape", "split", "concatenate", "transpose", "broadcast", "to", "zeros",
                 "add", "multiply", ""}:
        return "copies and small elementwise"
    return "other"


def _print_profile(report, top=15):
    total = report.total
    fams = {}
    per_kernel = {}
    for name, seconds in report.calls:
        per_kernel[name] = per_kernel.get(name, 0.0) + seconds
        fam = kernel_family(name)
        fams[fam] = fams.get(fam, 0.0) + seconds
    print(f"  pytvm step profile: {1e3 * total:.1f} ms, "
          f"{1e3 * sum(per_kernel.values()):.1f} ms in {len(report.calls)} kernel calls")
    for fam, seconds in sorted(fams.items(), key=lambda kv: -kv[1]):
        print(f"    {fam:42s} {1e3 * seconds:8.2f} ms  {100 * seconds / total:5.1f}%")
    print(f"  slowest {top} kernels:")
    for name, seconds in sorted(per_kernel.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {name[:64]:64s} {1e3 * seconds:8.2f} ms")


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

    eager_model = _block(torch, args.width, args.heads)
    eager_model.load_state_dict(model.state_dict())
    eager_step, eager_losses = torch_step(eager_model, eager_model)
    steps = {"pytvm": pytvm_step, "eager": eager_step}

    if not args.no_inductor:
        compiled_model = _block(torch, args.width, args.heads)
        compiled_model.load_state_dict(model.state_dict())
        try:
            fwd = torch.compile(compiled_model)
            inductor_step, inductor_losses = torch_step(compiled_model, fwd)
            t0 = time.perf_counter()
            inductor_step()  # compiles
            result["inductor_compile_s"] = time.perf_counter() - t0
            steps["inductor"] = inductor_step
        except Exception as err:  # noqa: BLE001 - reported, the other columns still stand
            result["inductor_error"] = f"{type(err).__name__}: {str(err)[:200]}"

    for name, (wall_ms, cpu_ms) in _time_interleaved(steps, args.steps).items():
        result[f"{name}_ms"], result[f"{name}_cpu_ms"] = wall_ms, cpu_ms
    result["pytvm_first_loss"] = first[0]
    result["eager_first_loss"] = eager_losses[0]
    if "inductor" in steps:
        result["inductor_first_loss"] = inductor_losses[0]
    if args.profile:
        step_args = (*xs, *trainer._params, *trainer._states, *ts, tuple(trainer._optim_state))
        _print_profile(vm.profile("train_step", *step_args))
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
    parser.add_argument("--profile", action="store_true",
                        help="print pytvm's per-kernel profile of one step")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.threads = int(args.threads)
        worker(args)
        return
    print(
        f"transformer block training step: batch {args.batch}, seq {args.seq}, width "
        f"{args.width}, {args.heads} heads, MSE + SGD, median of {args.steps} rounds"
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
        if args.profile:
            cmd.append("--profile")
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        if proc.returncode or not lines:
            print(f"threads {threads}: worker failed\n{proc.stderr[-2000:]}")
            continue
        r = json.loads(lines[-1][len("RESULT ") :])
        eager, eager_cpu = r["eager_ms"], r["eager_cpu_ms"]
        print(f"threads {threads}:")
        for line in proc.stdout.splitlines():
            if line.startswith("  "):  # --profile's table
                print(line)
        print(
            f"  pytvm          {r['pytvm_ms']:9.2f} ms/step  ({eager / r['pytvm_ms']:.2f}x eager)"
            f"  CPU {r['pytvm_cpu_ms']:.1f} ms ({eager_cpu / r['pytvm_cpu_ms']:.2f}x)"
            f"  setup {r['pytvm_setup_s']:.1f} s, setup+compile {r['pytvm_compile_s']:.1f} s,"
            f" first loss {r['pytvm_first_loss']:.6f}"
        )
        print(
            f"  torch eager    {eager:9.2f} ms/step  (1.00x)  CPU {eager_cpu:.1f} ms"
            f"  first loss {r['eager_first_loss']:.6f}"
        )
        if "inductor_ms" in r:
            print(
                f"  torch.compile  {r['inductor_ms']:9.2f} ms/step  "
                f"({eager / r['inductor_ms']:.2f}x eager)  CPU {r['inductor_cpu_ms']:.1f} ms"
                f"  compile {r['inductor_compile_s']:.1f} s,"
                f" first loss {r['inductor_first_loss']:.6f}"
            )
        elif "inductor_error" in r:
            print(f"  torch.compile  unavailable: {r['inductor_error']}")


if __name__ == "__main__":
    main()
