"""Resident memory over many distinct compiles (issue 22, defect 6).

Each iteration compiles a different small TIR kernel (``b[i] = a[i] * c + k`` with its own
constant ``k``) with ``tvm.compile``, calls it once and drops it, as a long-running server
that compiles user kernels would. Prints the process's resident set size (RSS, from
/proc/self/statm) and the Python heap (tracemalloc, optional) every ``--every`` compiles,
then the growth per compile over the second half of the run (the first compiles load
llvmlite, the runtime modules and the caches).

    python benchmarks/compile_memory.py                  # 3,000 compiles
    python benchmarks/compile_memory.py --compiles 600   # shorter
    python benchmarks/compile_memory.py --trace          # also the Python heap (slower)

The on-disk cache goes to a temporary directory (removed at the end), so earlier runs do
not turn compiles into cache hits.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import tempfile
import time
import tracemalloc

import numpy as np


def rss_kb() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def kernel(index: int):
    from tvm.script import tirx as T

    k = float(index)

    @T.prim_func
    def scale(a: T.Buffer((64,), "float32"), b: T.Buffer((64,), "float32")):
        for i in range(64):
            b[i] = a[i] * T.float32(2) + T.float32(k)

    return scale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiles", type=int, default=3000)
    parser.add_argument("--every", type=int, default=250)
    parser.add_argument("--trace", action="store_true", help="track the Python heap too")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="pytvm-mem-")
    os.environ["PYTVM_CACHE_DIR"] = cache
    import tvm  # after PYTVM_CACHE_DIR is set

    if args.trace:
        tracemalloc.start()
    a = np.arange(64, dtype="float32")
    b = np.zeros_like(a)
    samples = []
    latencies = []
    start = time.perf_counter()
    try:
        for index in range(args.compiles + 1):
            func = kernel(index)
            tick = time.perf_counter()
            lib = tvm.compile(func, target="llvm")
            latencies.append(time.perf_counter() - tick)
            lib(a, b)
            assert b[1] == 2 + index, (b[1], index)
            del lib
            if index % args.every == 0:
                gc.collect()
                heap = tracemalloc.get_traced_memory()[0] // 1024 if args.trace else 0
                samples.append((index, rss_kb(), heap))
                print(f"{index:6d} compiles  RSS {samples[-1][1] / 1024:8.1f} MB"
                      + (f"  Python heap {heap / 1024:8.1f} MB" if args.trace else "")
                      + f"  ({time.perf_counter() - start:6.1f} s)", flush=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    steady = sorted(latencies[min(100, len(latencies) // 2):])
    print(f"tvm.compile latency after the first compiles: median "
          f"{steady[len(steady) // 2] * 1e3:.2f} ms, "
          f"p90 {steady[int(len(steady) * 0.9)] * 1e3:.2f} ms")
    half = [s for s in samples if s[0] >= args.compiles // 2]
    if len(half) >= 2:
        (i0, r0, h0), (i1, r1, h1) = half[0], half[-1]
        print(f"growth over compiles {i0}-{i1}: RSS {(r1 - r0) / (i1 - i0):.2f} KB/compile"
              + (f", Python heap {(h1 - h0) / (i1 - i0):.2f} KB/compile" if args.trace else ""))


if __name__ == "__main__":
    main()
