"""GPU kernels compiled by pytvm with the default GPU schedules, against torch on the same GPU.

``python benchmarks/gpu_kernels.py [--quick]``:

* ``matmul 4096^2 fp16``: ``C = A @ B`` with fp16 inputs and fp32 accumulation (pytvm: a te
  compute with float32 accumulation and output, scheduled by dlight's ``gpu.Matmul``;
  torch: ``torch.matmul`` of fp16 tensors, cuBLAS, fp16 output);
* ``softmax 4096x4096 fp32``: ``topi.nn.softmax`` (dlight ``GeneralReduction``) against
  ``torch.softmax``;
* ``hopper gemm 4096^3 fp16`` (compute capability 9.0 only): the TIRx kernel of
  ``tvm.examples.hopper_gemm`` (TMA, mbarrier pipeline, wgmma, warp specialisation;
  ``C = A @ B^T``, fp16 in and out, fp32 accumulation) against ``torch.matmul(a, b.T)``
  (cuBLAS). Goal: at least 70 % of cuBLAS.

Times are CUDA-event times per call (pytvm: ``Module.time_evaluator`` on ``tvm.cuda(0)``;
torch: ``torch.cuda.Event``), median over repeats after a warm-up. Each row also checks the
result against torch's (max abs error). Without a GPU (or driver, or cuda-bindings) it prints
``no GPU: skipped (...)`` and exits 0; without torch the torch columns say so.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np


def _gpu_reason() -> str | None:
    """None when a CUDA GPU can run kernels here, else why not."""
    import shutil

    from tvm.testing import env

    if not env.has_cuda():
        return ("no CUDA device usable here (needs a GPU, its driver libcuda.so.1 and the "
                "cuda-bindings package)")
    if shutil.which("nvcc") is None:
        return "nvcc is not on PATH (pytvm compiles CUDA with nvcc)"
    try:
        import tvm.s_tir.dlight  # noqa: F401
    except ImportError:
        return "tvm.s_tir.dlight (the default GPU schedules) is not in this build"
    return None


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def _torch_time(torch, fn, number: int, repeat: int) -> float:
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(number):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1e3 / number)
    return statistics.median(times)


def _tvm_time(mod, name, dev, args, number: int, repeat: int) -> float:
    result = mod.time_evaluator(name, dev, number=number, repeat=repeat)(*args)
    return statistics.median(result.results)


def bench_matmul(n: int, number: int, repeat: int) -> dict:
    import tvm
    from tvm import te

    dev = tvm.cuda(0)
    A = te.placeholder((n, n), "float16", name="A")
    B = te.placeholder((n, n), "float16", name="B")
    k = te.reduce_axis((0, n), "k")
    C = te.compute((n, n), lambda i, j: te.sum(
        A[i, k].astype("float32") * B[k, j].astype("float32"), axis=k), name="C")
    t0 = time.perf_counter()
    mod = tvm.compile(te.create_prim_func([A, B, C]), target="cuda")
    mod.imports[0].impl.binary()  # nvcc, counted in the compile time
    compile_s = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    a_np = rng.random((n, n), dtype=np.float32).astype("float16")
    b_np = rng.random((n, n), dtype=np.float32).astype("float16")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.empty((n, n), "float32", dev)
    seconds = _tvm_time(mod, "main", dev, (a, b, c), number, repeat)
    row = {"kernel": f"matmul {n}^2 fp16", "unit": "TFLOP/s", "compile_s": compile_s,
           "pytvm": 2 * n**3 / seconds / 1e12}
    torch = _torch()
    if torch is not None:
        ta, tb = torch.from_numpy(a_np).cuda(), torch.from_numpy(b_np).cuda()
        row["torch"] = 2 * n**3 / _torch_time(torch, lambda: torch.matmul(ta, tb),
                                              number, repeat) / 1e12
        ref = torch.matmul(ta.float(), tb.float()).cpu().numpy()
        row["max_err"] = float(np.abs(c.numpy() - ref).max())
    return row


def bench_softmax(rows: int, cols: int, number: int, repeat: int) -> dict:
    import tvm
    from tvm import te, topi

    dev = tvm.cuda(0)
    A = te.placeholder((rows, cols), "float32", name="A")
    t0 = time.perf_counter()
    mod = tvm.compile(te.create_prim_func([A, topi.nn.softmax(A, axis=1)]), target="cuda")
    mod.imports[0].impl.binary()
    compile_s = time.perf_counter() - t0
    a_np = np.random.default_rng(0).standard_normal((rows, cols)).astype("float32")
    a = tvm.runtime.tensor(a_np, dev)
    b = tvm.runtime.empty((rows, cols), "float32", dev)
    seconds = _tvm_time(mod, "main", dev, (a, b), number, repeat)
    gbytes = 2 * rows * cols * 4 / 1e9  # read once, write once
    row = {"kernel": f"softmax {rows}x{cols} fp32", "unit": "GB/s", "compile_s": compile_s,
           "pytvm": gbytes / seconds}
    torch = _torch()
    if torch is not None:
        ta = torch.from_numpy(a_np).cuda()
        row["torch"] = gbytes / _torch_time(torch, lambda: torch.softmax(ta, 1), number, repeat)
        row["max_err"] = float(np.abs(b.numpy() - torch.softmax(ta, 1).cpu().numpy()).max())
    return row


def bench_hopper_gemm(n: int, number: int, repeat: int) -> dict:
    import tvm
    from tvm.examples.hopper_gemm import HopperGemm

    dev = tvm.cuda(0)
    t0 = time.perf_counter()
    gemm = HopperGemm(n, n, n)
    gemm.executable.mod.imports[0].impl.binary()  # nvcc, counted in the compile time
    compile_s = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    a_np = rng.uniform(-1, 1, (n, n)).astype("float16")
    b_np = rng.uniform(-1, 1, (n, n)).astype("float16")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.empty((n, n), "float16", dev)
    gemm(a, b, c)
    seconds = _tvm_time(gemm.executable, "hopper_gemm", dev, (a, b, c),
                        number, repeat)
    row = {"kernel": f"hopper gemm {n}^3 fp16 (TIRx)", "unit": "TFLOP/s",
           "compile_s": compile_s, "pytvm": 2 * n**3 / seconds / 1e12}
    torch = _torch()
    if torch is not None:
        ta, tb = torch.from_numpy(a_np).cuda(), torch.from_numpy(b_np).cuda()
        row["torch"] = 2 * n**3 / _torch_time(torch, lambda: torch.matmul(ta, tb.T),
                                              number, repeat) / 1e12
        ref = torch.matmul(ta.float(), tb.float().T).cpu().numpy()
        row["max_err"] = float(np.abs(c.numpy().astype("float32") - ref).max())
    return row


def _table(rows) -> str:
    lines = ["| kernel | pytvm | torch | unit | pytvm/torch | max abs err | compile (s) |",
             "| --- | ---: | ---: | --- | ---: | ---: | ---: |"]
    for r in rows:
        torch_v = r.get("torch")
        torch_s = f"{torch_v:.2f}" if torch_v else "no torch"
        ratio = f"{r['pytvm'] / torch_v:.2f}" if torch_v else "-"
        err = f"{r['max_err']:.2e}" if "max_err" in r else "-"
        lines.append(f"| {r['kernel']} | {r['pytvm']:.2f} | {torch_s} | {r['unit']} | "
                     f"{ratio} | {err} | {r['compile_s']:.2f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (1024^2)")
    args = parser.parse_args(argv)
    reason = _gpu_reason()
    if reason is not None:
        print(f"gpu_kernels: no GPU: skipped ({reason})")
        return 0
    import tvm

    dev = tvm.cuda(0)
    print(f"device: {dev.device_name}, compute {dev.compute_version}; torch: "
          f"{'yes' if _torch() is not None else 'not installed (no CUDA torch)'}")
    n = 1024 if args.quick else 4096
    rows = [bench_matmul(n, number=5 if args.quick else 10, repeat=3),
            bench_softmax(n, n, number=10, repeat=3)]
    if dev.compute_version == "9.0":  # wgmma and setmaxnreg need sm_90a exactly
        rows.append(bench_hopper_gemm(n, number=10 if args.quick else 20, repeat=5))
    else:
        print(f"hopper gemm: skipped (compute {dev.compute_version}, needs 9.0)")
    print(_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
