"""Calls between Relax functions under ``Gradient``: inlining (what pytvm does) against one
adjoint function per callee, called from the adjoint (the alternative issue 26 names).

Usage::

    python benchmarks/autodiff_calls.py [--batch 64] [--width 256] [--iters 50] [--repeats 5]

The model is four calls of ``layer(h, w) = tanh(h @ w)`` and ``sum`` of the result.

* *inline*: ``Gradient("main")`` inlines ``layer`` at each call site (pytvm's design).
* *adjoint function*: ``layer_vjp(h, w, g) = sum(layer(h, w) * g)`` is differentiated once
  by ``Gradient`` (its adjoint is ``layer``'s VJP, recomputing ``layer``'s forward inside);
  the hand-written adjoint of ``main`` runs the forward calls, then calls
  ``layer_vjp_adjoint`` once per layer in reverse.

Both are built with ``relax.build(..., "llvm")`` and timed through the VM, one thread; the
gradients of both are compared in the same run. Reported: median ms per adjoint call.
"""

from __future__ import annotations

import os

os.environ.setdefault("TVM_NUM_THREADS", "1")

import argparse
import statistics
import time

import numpy as np

import tvm
from tvm import relax

LAYERS = 4


def _layer_module(batch, width):
    f32 = "float32"
    h = relax.Var("h", relax.TensorType((batch, width), f32))
    w = relax.Var("w", relax.TensorType((width, width), f32))
    bb = relax.BlockBuilder()
    with bb.function("layer", [h, w]):
        with bb.dataflow():
            out = bb.emit_output(relax.op.tanh(relax.op.matmul(h, w)))
        bb.emit_func_output(out)
    return bb


def _params(batch, width):
    f32 = "float32"
    x = relax.Var("x", relax.TensorType((batch, width), f32))
    ws = [relax.Var(f"w{i}", relax.TensorType((width, width), f32)) for i in range(LAYERS)]
    return x, ws


def inline_model(batch, width):
    bb = _layer_module(batch, width)
    layer = bb.get().get_global_var("layer")
    x, ws = _params(batch, width)
    with bb.function("main", [x, *ws]):
        with bb.dataflow():
            h = x
            for w in ws:
                h = bb.emit(relax.Call(layer, [h, w]))
            loss = bb.emit_output(relax.op.sum(h))
        bb.emit_func_output(loss)
    mod = bb.get()
    return relax.transform.Gradient("main", require_grads=mod["main"].params[1:])(mod)


def function_adjoint_model(batch, width):
    f32 = "float32"
    bb = _layer_module(batch, width)
    layer = bb.get().get_global_var("layer")
    h = relax.Var("h", relax.TensorType((batch, width), f32))
    w = relax.Var("w", relax.TensorType((width, width), f32))
    g = relax.Var("g", relax.TensorType((batch, width), f32))
    with bb.function("layer_vjp", [h, w, g]):
        with bb.dataflow():
            y = bb.emit(relax.Call(layer, [h, w]))
            s = bb.emit_output(relax.op.sum(relax.op.multiply(y, g)))
        bb.emit_func_output(s)
    mod = relax.transform.Gradient("layer_vjp", require_grads=[h, w])(bb.get())
    vjp = mod.get_global_var("layer_vjp_adjoint")
    x, ws = _params(batch, width)
    bb = relax.BlockBuilder(mod)
    with bb.function("main_adjoint", [x, *ws]):
        with bb.dataflow():
            acts = [x]
            for w_i in ws:
                acts.append(bb.emit(relax.Call(layer, [acts[-1], w_i])))
            loss = bb.emit(relax.op.sum(acts[-1]))
            grad = bb.emit(relax.op.ones((batch, width), f32))
            grads = []
            for i in reversed(range(LAYERS)):
                both = bb.emit(relax.Call(vjp, [acts[i], ws[i], grad]))
                parts = bb.emit(relax.TupleGetItem(both, 1))
                grad = bb.emit(relax.TupleGetItem(parts, 0))
                grads.append(bb.emit(relax.TupleGetItem(parts, 1)))
            result = bb.emit_output(relax.Tuple([loss, relax.Tuple(grads[::-1])]))
        bb.emit_func_output(result)
    return bb.get()


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
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    b, n = args.batch, args.width
    x = rng.standard_normal((b, n)).astype("float32")
    ws = [(rng.standard_normal((n, n)) / np.sqrt(n)).astype("float32") for _ in range(LAYERS)]
    dev = tvm.cpu()
    results, grads = {}, {}
    for label, build in (("inline (pytvm)", inline_model),
                         ("adjoint function per callee", function_adjoint_model)):
        mod = build(b, n)
        vm = relax.VirtualMachine(relax.build(mod, "llvm"), dev)
        inputs = [tvm.runtime.tensor(a, dev) for a in [x, *ws]]
        fn = vm["main_adjoint"]
        grads[label] = [gr.numpy() for gr in fn(*inputs)[1]]
        results[label] = _time(lambda fn=fn, inputs=inputs: fn(*inputs), args.iters, args.repeats)
    first, second = grads.values()
    for a, c in zip(first, second):
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-4)
    base = results["inline (pytvm)"]
    print(f"4 calls of tanh(h @ w), batch {b}, width {n}, one thread; ms per adjoint call")
    print("| design | ms | vs inline |")
    print("| --- | --- | --- |")
    for label, ms in results.items():
        print(f"| {label} | {ms:.3f} | {ms / base:.2f}x |")


if __name__ == "__main__":
    main()
