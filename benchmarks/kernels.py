"""Compiled te kernels side by side with NumPy: throughput, GFLOP/s and compile time.

Run: ``python benchmarks/kernels.py [--repeat N] [--quick]``. Every row reports the median of
``repeat`` timed runs (each after a warm-up call) for our kernel and for NumPy, in one process,
so both see the same machine load. Results and their discussion: ``benchmarks/README_kernels.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("PYTVM_LLVM_DISK_CACHE", "0")  # measure real compile times

import numpy as np

import tvm
from tvm import te


def _median_seconds(fn, repeat, number=1):
    fn()  # warm-up (page faults, pool start)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - start) / number)
    return statistics.median(samples)


def _compile(func):
    from tvm.backend.llvm import jit
    from tvm.driver import clear_cache

    clear_cache()
    jit.clear_cache()
    start = time.perf_counter()
    lib = tvm.compile(func)
    return lib["main"], time.perf_counter() - start


def _elementwise(n, op):
    A = te.placeholder((n,), "float32", name="A")
    if op == "add":
        B = te.placeholder((n,), "float32", name="B")
        C = te.compute((n,), lambda i: A[i] + B[i], name="C")
        return te.create_prim_func([A, B, C])
    B = te.compute((n,), lambda i: te.exp(A[i]), name="B")
    return te.create_prim_func([A, B])


def _matmul(n, m=None, k_=None, trans_a=False, trans_b=False):
    """``C[m, n] = A @ B`` (square ``n`` by default); ``trans_a``/``trans_b`` read the operand
    stored transposed (``A[k, i]``, ``B[j, k]``), as a gradient's inlined ``permute_dims``."""
    m = n if m is None else m
    k_ = n if k_ is None else k_
    A = te.placeholder((k_, m) if trans_a else (m, k_), "float32", name="A")
    B = te.placeholder((n, k_) if trans_b else (k_, n), "float32", name="B")
    k = te.reduce_axis((0, k_), name="k")

    def prod(i, j):
        a = A[k, i] if trans_a else A[i, k]
        return a * (B[j, k] if trans_b else B[k, j])

    C = te.compute((m, n), lambda i, j: te.sum(prod(i, j), axis=k), name="C")
    return te.create_prim_func([A, B, C])


# The matmuls of the 784-1024-10 batch-256 MLP training step: (m, n, k, A^T, B^T).
MLP_MATMULS = [
    (256, 1024, 784, False, False),  # forward x @ W1
    (784, 1024, 256, True, False),   # dW1 = x^T @ dH
    (256, 1024, 10, False, True),    # dH = dY @ W2^T
    (1024, 10, 256, True, False),    # dW2 = H^T @ dY
]


def _softmax(m, n):
    X = te.placeholder((m, n), "float32", name="X")
    k1 = te.reduce_axis((0, n), name="k1")
    mx = te.compute((m,), lambda i: te.max(X[i, k1], axis=k1), name="mx")
    E = te.compute((m, n), lambda i, j: te.exp(X[i, j] - mx[i]), name="E")
    k2 = te.reduce_axis((0, n), name="k2")
    S = te.compute((m,), lambda i: te.sum(E[i, k2], axis=k2), name="S")
    Y = te.compute((m, n), lambda i, j: E[i, j] / S[i], name="Y")
    return te.create_prim_func([X, Y])


def _layer_norm(m, n):
    X = te.placeholder((m, n), "float32", name="X")
    k1 = te.reduce_axis((0, n), name="k1")
    total = te.compute((m,), lambda i: te.sum(X[i, k1], axis=k1), name="total")
    k2 = te.reduce_axis((0, n), name="k2")
    sq = te.compute((m,), lambda i: te.sum(X[i, k2] * X[i, k2], axis=k2), name="sq")

    def norm(i, j):
        mean = total[i] * (1.0 / n)
        var = sq[i] * (1.0 / n) - mean * mean
        return (X[i, j] - mean) * te.rsqrt(var + 1e-5)

    Y = te.compute((m, n), norm, name="Y")
    return te.create_prim_func([X, Y])


def _np_softmax(x, out):
    np.subtract(x, x.max(axis=1, keepdims=True), out=out)
    np.exp(out, out=out)
    out /= out.sum(axis=1, keepdims=True)


def _np_layer_norm(x, out):
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    np.subtract(x, mean, out=out)
    out *= 1.0 / np.sqrt(var + 1e-5)


def _peak_gflops():
    """Single-precision peak estimate: cores x clock x FLOP/cycle (see README_kernels.md)."""
    mhz = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("cpu MHz"):
                    mhz = float(line.split(":")[1])
                    break
    except OSError:
        pass
    flags = ""
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    per_cycle = 32 if "avx512f" in flags or "avx2" in flags else 8  # 2 FMA pipes x 8 lanes x 2
    cores = len(os.sched_getaffinity(0))
    return (cores * mhz * 1e6 * per_cycle / 1e9) if mhz else None, mhz, cores


def _bench_elementwise(n, repeat, rng, row):
    label = f"{n >> 20}M"
    a, b = rng.standard_normal(n).astype("float32"), rng.standard_normal(n).astype("float32")
    c = np.empty_like(a)
    fn, cs = _compile(_elementwise(n, "add"))
    ours = _median_seconds(lambda: fn(a, b, c), repeat)
    theirs = _median_seconds(lambda: np.add(a, b, out=c), repeat)
    row(f"add {label}", ours, theirs, lambda s: 3 * 4 * n / s / 1e9, "GB/s", cs)
    fn, cs = _compile(_elementwise(n, "exp"))
    ours = _median_seconds(lambda: fn(a, c), repeat)
    theirs = _median_seconds(lambda: np.exp(a, out=c), repeat)
    row(f"exp {label}", ours, theirs, lambda s: n / s / 1e9, "Gelem/s", cs)


def _bench_matmul(case, repeat, rng, row):
    m, n, k, ta, tb = case
    a = rng.standard_normal((k, m) if ta else (m, k)).astype("float32")
    b = rng.standard_normal((n, k) if tb else (k, n)).astype("float32")
    c = np.empty((m, n), "float32")
    a_np, b_np = (a.T if ta else a), (b.T if tb else b)
    fn, cs = _compile(_matmul(n, m, k, ta, tb))
    ours = _median_seconds(lambda: fn(a, b, c), repeat)
    theirs = _median_seconds(lambda: np.matmul(a_np, b_np, out=c), repeat)
    name = f"matmul {m}x{n}x{k}{' A^T' if ta else ''}{' B^T' if tb else ''}"
    row(name, ours, theirs, lambda s: 2 * m * n * k / s / 1e9, "GFLOP/s", cs)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    args = parser.parse_args()
    repeat = 5 if args.quick else args.repeat
    rng = np.random.default_rng(0)
    rows = []

    def row(name, ours, theirs, unit_fn, unit, compile_s):
        rows.append((name, unit_fn(ours), unit_fn(theirs), unit, ours / theirs, compile_s))

    sizes = [1 << 20] if args.quick else [1 << 20, 1 << 24]
    for n in sizes:
        _bench_elementwise(n, repeat, rng, row)

    n = 512 if args.quick else 1024
    a, b = rng.standard_normal((n, n)).astype("float32"), rng.standard_normal((n, n)).astype(
        "float32")
    c = np.empty((n, n), "float32")
    fn, cs = _compile(_matmul(n))
    ours = _median_seconds(lambda: fn(a, b, c), repeat)
    theirs = _median_seconds(lambda: np.matmul(a, b, out=c), repeat)
    row(f"matmul {n}^3", ours, theirs, lambda s: 2 * n**3 / s / 1e9, "GFLOP/s", cs)
    matmul_gflops = 2 * n**3 / ours / 1e9

    for case in MLP_MATMULS[:1] if args.quick else MLP_MATMULS:
        _bench_matmul(case, repeat, rng, row)

    m, n = (1024, 1024) if args.quick else (4096, 1024)
    x = rng.standard_normal((m, n)).astype("float32")
    y = np.empty_like(x)
    fn, cs = _compile(_softmax(m, n))
    ours = _median_seconds(lambda: fn(x, y), repeat)
    theirs = _median_seconds(lambda: _np_softmax(x, y), repeat)
    row(f"softmax {m}x{n}", ours, theirs, lambda s: m * n / s / 1e9, "Gelem/s", cs)
    fn, cs = _compile(_layer_norm(m, n))
    ours = _median_seconds(lambda: fn(x, y), repeat)
    theirs = _median_seconds(lambda: _np_layer_norm(x, y), repeat)
    row(f"layer_norm {m}x{n}", ours, theirs, lambda s: m * n / s / 1e9, "Gelem/s", cs)

    peak, mhz, cores = _peak_gflops()
    print(f"# {platform.processor() or platform.machine()}, {cores} cores"
          f"{f' @ {mhz:.0f} MHz' if mhz else ''}, numpy {np.__version__}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, median of {repeat}")
    print("| kernel | pytvm | numpy | unit | pytvm/numpy | compile (s) |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    for name, ours, theirs, unit, _, cs in rows:
        print(f"| {name} | {ours:.2f} | {theirs:.2f} | {unit} | {ours / theirs:.2f} | {cs:.2f} |")
    if peak:
        print(f"\nmatmul: {matmul_gflops:.1f} GFLOP/s = {matmul_gflops / peak:.0%} of the "
              f"estimated fp32 peak {peak:.0f} GFLOP/s")


if __name__ == "__main__":
    main()
