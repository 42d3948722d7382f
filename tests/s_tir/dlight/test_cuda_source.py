"""The dlight-scheduled, GPU-lowered kernels through the rest of the CUDA path: the tirx
pipeline (simulated after StorageRewrite, the form the code generator reads) and the CUDA
code generator plus nvcc (one translation unit for all kernels)."""

import shutil

import numpy as np
import pytest

import tvm
from tvm import te, topi
from tvm.ir.transform import Sequential
from tvm.s_tir import dlight as dl
from tvm.s_tir.transform import gpu_lowering_passes, lower_for_gpu
from tvm.tirx.compilation_pipeline import tirx_passes
from tvm.tirx.gpu_simulator import simulate_prim_func
from tvm.tirx.interpreter import run_prim_func

TARGET = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})


def _workloads(m=100, n=90, kk=70):
    A = te.placeholder((8, 100), name="A")
    X = te.placeholder((m, kk), name="X")
    W = te.placeholder((kk, n), name="W")
    k = te.reduce_axis((0, kk), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(X[i, k] * W[k, j], axis=k), name="C")
    B = te.compute((8, 100), lambda i, j: A[i, j] * 2.0 + 1.0, name="B")
    return {
        "softmax": (te.create_prim_func([A, topi.nn.softmax(A, axis=1)]),
                    dl.gpu.GeneralReduction()),
        "matmul": (te.create_prim_func([X, W, C]), dl.gpu.Matmul()),
        "scale": (te.create_prim_func([A, B]), dl.gpu.Fallback()),
    }


def _scheduled(name, func, rule):
    mod = tvm.IRModule({name: func.with_attr("global_symbol", name)})
    with TARGET:
        return dl.ApplyDefaultSchedule(rule)(mod)


@pytest.mark.parametrize("name", ["softmax", "matmul", "scale"])
def test_simulated_after_storage_rewrite(name):
    func, rule = _workloads(20, 12, 36)[name]  # a small matmul: the simulator is slow
    # Up to StorageRewrite (before the host/device split): buffers flattened and merged.
    before_split = [p for p in tirx_passes(TARGET)
                    if p.info.name not in ("tirx.AnnotateEntryFunc", "tirx.SplitHostDevice",
                                           "tirx.MakePackedAPI")]
    mod = Sequential(gpu_lowering_passes() + before_split)(_scheduled(name, func, rule))
    rng = np.random.default_rng(0)
    args = [rng.uniform(-1, 1, [int(s) for s in func.buffer_map[p].shape]).astype("float32")
            for p in func.params]
    ref = [a.copy() for a in args]
    got = [a.copy() for a in args]
    run_prim_func(func, ref)
    simulate_prim_func(mod[name], got)
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_cuda_source_compiles_with_nvcc():
    from tvm.backend.cuda.module import build_cuda, lower_for_cuda
    from tvm.backend.cuda.nvcc import compile_cuda

    sources = []
    for name, (func, rule) in _workloads().items():
        lowered = lower_for_gpu(_scheduled(name, func, rule))
        _, device = lower_for_cuda(lowered, TARGET)
        src = build_cuda(device, TARGET).inspect_source()
        if name == "softmax":
            assert "__shfl_down_sync" in src and "__syncthreads()" in src
        if name == "matmul":
            assert "__shared__" in src and "__launch_bounds__(256)" in src
        sources.append(src if not sources else src.split("#endif", 1)[1])
    cubin = compile_cuda("\n".join(sources), "sm_90a", "cubin")
    assert len(cubin) > 0
