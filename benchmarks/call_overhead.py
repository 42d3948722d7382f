"""Call overhead of compiled kernels through tvm_ffi, and of the thread pool's launch.

Run: ``python benchmarks/call_overhead.py``. Prints, side by side, the median over repeats of
the per-call time of:

- a compiled packed function taking 3 float32 tensors and doing nothing after its argument
  checks, called with pre-made ``tvm_ffi.Tensor`` arguments and with NumPy arrays;
- NumPy calls of similar size (``np.add(a, b, c)`` on 4 elements, ``np.copyto``);
- a parallel launch that does (almost) nothing: a 64-element parallel add minus the serial one.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import tvm_ffi

from tvm.backend.llvm import build_module, threadpool
from tvm.backend.llvm.testing import elementwise_add_module, noop_module


def per_call_ns(fn, args, number: int, repeat: int) -> float:
    """Median over ``repeat`` runs of the mean time of one call, in nanoseconds."""
    fn(*args)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn(*args)
        samples.append((time.perf_counter() - start) / number * 1e9)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    opts = parser.parse_args()
    n, r = opts.number, opts.repeat

    noop = build_module(noop_module("noop", 3))["noop"]
    add = build_module(elementwise_add_module("add"))["add"]
    par_add = build_module(elementwise_add_module("par_add", parallel=True))["par_add"]

    small = [np.ones(4, "float32") for _ in range(3)]
    tensors = [tvm_ffi.from_dlpack(x) for x in small]
    medium = [np.ones(64, "float32") for _ in range(3)]
    medium_t = [tvm_ffi.from_dlpack(x) for x in medium]

    rows = [
        ("compiled no-op, 3 tvm_ffi.Tensor args", per_call_ns(noop, tensors, n, r)),
        ("compiled no-op, 3 numpy args", per_call_ns(noop, small, n, r)),
        ("numpy np.add(a, b, c), n=4", per_call_ns(np.add, small, n, r)),
        ("numpy np.copyto(c, a), n=4", per_call_ns(np.copyto, [small[2], small[0]], n, r)),
        ("compiled add, n=64, Tensor args (serial)", per_call_ns(add, medium_t, n, r)),
        (
            "compiled add, n=64, Tensor args (thread pool)",
            per_call_ns(par_add, medium_t, n // 4, r),
        ),
    ]
    launch = rows[-1][1] - rows[-2][1]
    print(f"threads in pool: {threadpool.num_threads()}")
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value:9.0f} ns")
    print(f"{'=> parallel launch overhead':<{width}}  {launch:9.0f} ns")


if __name__ == "__main__":
    main()
