"""The cost of ``R.If`` in a compiled adjoint: a 4-layer MLP with a branch per layer vs the
same MLP without branches (issue 26's goal: at most 1.2x), with PyTorch eager as the peer.

Usage::

    python benchmarks/autodiff_branches.py [--threads 1] [--batch 64] [--width 256]
                                           [--iters 50] [--repeats 5]

Both pytvm models compute the same values when the flag is true: layer ``i`` is
``h = relu(h @ w_i)``, then ``h = h * mask_i`` (inverted dropout with a given mask). The
branchy model puts the mask in ``if training: ... else: h`` (the backward pass branches on
the same predicate); the plain model always applies it. Each ``main_adjoint`` is built with
``relax.build(..., "llvm")`` and timed through the VM (median ms per call over ``--repeats``
runs of ``--iters`` calls, flag true). PyTorch eager runs forward + backward of the branchy
model in Python control flow.
"""

from __future__ import annotations

import os
import sys

for _flag, _value in zip(sys.argv, sys.argv[1:]):
    if _flag == "--threads":
        os.environ["TVM_NUM_THREADS"] = _value
        os.environ["OMP_NUM_THREADS"] = _value
os.environ.setdefault("TVM_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import time

import numpy as np

import tvm
from tvm import relax

LAYERS = 4


def _model(batch, width, branches):
    f32 = "float32"
    x = relax.Var("x", relax.TensorType((batch, width), f32))
    flag = relax.Var("training", relax.TensorType((), "bool"))
    ws = [relax.Var(f"w{i}", relax.TensorType((width, width), f32)) for i in range(LAYERS)]
    masks = [relax.Var(f"m{i}", relax.TensorType((batch, width), f32)) for i in range(LAYERS)]
    bb = relax.BlockBuilder()
    with bb.function("main", [x, *ws, flag, *masks]):
        h = x
        for w, mask in zip(ws, masks):
            if branches:
                with bb.dataflow():
                    a = bb.emit_output(relax.op.nn.relu(relax.op.matmul(h, w)))
                then_bb = relax.SeqExpr([], relax.op.multiply(a, mask))
                else_bb = relax.SeqExpr([], a)
                h = bb.emit(relax.If(flag, then_bb, else_bb))
            else:
                with bb.dataflow():
                    a = bb.emit(relax.op.nn.relu(relax.op.matmul(h, w)))
                    h = bb.emit_output(relax.op.multiply(a, mask))
        with bb.dataflow():
            loss = bb.emit_output(relax.op.sum(h))
        bb.emit_func_output(loss)
    mod = bb.get()
    params = mod["main"].params
    return relax.transform.Gradient("main", require_grads=params[1:1 + LAYERS])(mod)


def _time(fn, iters, repeats):
    fn()
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        runs.append((time.perf_counter() - start) / iters * 1e3)
    return statistics.median(runs)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    b, n = args.batch, args.width
    x = rng.standard_normal((b, n)).astype("float32")
    ws = [(rng.standard_normal((n, n)) / np.sqrt(n)).astype("float32") for _ in range(LAYERS)]
    masks = [((rng.random((b, n)) > 0.5) * 2.0).astype("float32") for _ in range(LAYERS)]
    dev = tvm.cpu()
    results = {}
    grads = {}
    for label, branches in (("plain", False), ("if per layer", True)):
        mod = _model(b, n, branches)
        vm = relax.VirtualMachine(relax.build(mod, "llvm"), dev)
        inputs = [tvm.runtime.tensor(a, dev) for a in [x, *ws, np.array(True), *masks]]
        fn = vm["main_adjoint"]
        grads[label] = [g.numpy() for g in fn(*inputs)[1]]
        results[label] = _time(lambda fn=fn, inputs=inputs: fn(*inputs), args.iters, args.repeats)
    for a, c in zip(grads["plain"], grads["if per layer"]):
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-4)
    try:
        import torch

        torch.set_num_threads(args.threads)
        tx = torch.from_numpy(x)
        tws = [torch.from_numpy(w).requires_grad_() for w in ws]
        tms = [torch.from_numpy(m) for m in masks]

        def torch_step(training=True):
            h = tx
            for w, m in zip(tws, tms):
                h = torch.relu(h @ w)
                if training:
                    h = h * m
            return torch.autograd.grad(h.sum(), tws)

        results["PyTorch eager (if per layer)"] = _time(torch_step, args.iters, args.repeats)
    except ImportError:
        pass
    base = results["plain"]
    print(f"4-layer MLP adjoint, batch {b}, width {n}, {args.threads} thread(s); ms per call")
    print("| model | ms | vs plain |")
    print("| --- | --- | --- |")
    for label, ms in results.items():
        print(f"| {label} | {ms:.3f} | {ms / base:.2f}x |")


if __name__ == "__main__":
    main()
