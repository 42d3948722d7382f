"""Elementwise add over 1M and 16M float32: hand-written LLVM kernel vs NumPy.

Run: ``python benchmarks/elementwise_runtime.py``. For each size, prints the median over
repeats of one call of: ``np.add(a, b, c)``; the O3-vectorized kernel from
``tvm.backend.llvm.testing`` on one thread; the same kernel split over the thread pool. The
three take turns in every round of measurement.
Throughput counts 12 bytes moved per element (two loads, one store).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import tvm_ffi

from tvm.backend.llvm import build_module, threadpool
from tvm.backend.llvm.testing import elementwise_add_module


def interleaved_medians(impls, repeat: int) -> list:
    """Median seconds per call of each ``(fn, args)``; the implementations take turns in every
    round, so load from other processes on a shared machine hits them alike."""
    numbers = []
    for fn, args in impls:
        fn(*args)
        start = time.perf_counter()
        fn(*args)
        once = max(time.perf_counter() - start, 1e-7)
        numbers.append(max(1, int(0.02 / once)))  # ~20 ms per sample
    samples = [[] for _ in impls]
    for _ in range(repeat):
        for k, (fn, args) in enumerate(impls):
            start = time.perf_counter()
            for _ in range(numbers[k]):
                fn(*args)
            samples[k].append((time.perf_counter() - start) / numbers[k])
    return [statistics.median(s) for s in samples]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--sizes", type=int, nargs="*", default=[1 << 20, 1 << 24])
    opts = parser.parse_args()

    start = time.perf_counter()
    # use_cache=False: time a real compilation, not a hit in the memory or disk cache.
    serial = build_module(elementwise_add_module("add"), use_cache=False)["add"]
    compile_ms = (time.perf_counter() - start) * 1e3
    parallel = build_module(elementwise_add_module("par_add", parallel=True))["par_add"]
    print(
        f"threads in pool: {threadpool.num_threads()}; compile time of one kernel "
        f"(IR -> O3 -> JIT): {compile_ms:.0f} ms"
    )
    print(f"{'n':>10}  {'impl':<22} {'median':>10} {'GB/s':>7} {'vs numpy':>9}")
    for n in opts.sizes:
        rng = np.random.default_rng(0)
        a, b = rng.random(n, dtype="float32"), rng.random(n, dtype="float32")
        c = np.zeros(n, "float32")
        ta, tb, tc = (tvm_ffi.from_dlpack(x) for x in (a, b, c))
        names = ["numpy np.add", "llvm, 1 thread", "llvm, thread pool"]
        impls = [(np.add, (a, b, c)), (serial, (ta, tb, tc)), (parallel, (ta, tb, tc))]
        results = list(zip(names, interleaved_medians(impls, opts.repeat)))
        np.testing.assert_array_equal(c, a + b)
        base = results[0][1]
        for name, seconds in results:
            gbps = 12 * n / seconds / 1e9
            print(
                f"{n:>10}  {name:<22} {seconds * 1e6:>8.0f}us {gbps:>7.1f} {base / seconds:>8.2f}x"
            )


if __name__ == "__main__":
    main()
