"""The CUDA runtime on a real GPU: cubins built by nvcc, launched through pytvm.

On a machine without a GPU only ``test_kernels_compile`` runs (it needs nvcc): it checks
that the kernels the GPU tests launch are valid CUDA for sm_90a. The other tests need a CUDA
device with its driver and cuda-bindings (``tvm.testing.requires_cuda_driver``).
"""

import shutil
import subprocess

import numpy as np
import pytest

import tvm
import tvm.testing
from tvm.testing import env

KERNELS = r"""
#include <cuda.h>
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Fills out[i] with i using 64 KB of dynamic shared memory as a staging buffer.
extern "C" __global__ void iota_smem(int* out, int n) {
  extern __shared__ int stage[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) stage[i] = i;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = stage[i];
}

// Each block writes its rank inside the cluster and the cluster size.
extern "C" __global__ void cluster_rank(int* out) {
  unsigned rank, size;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = rank;
    out[2 * blockIdx.x + 1] = size;
  }
}

// Reads the first 8 bytes of a __grid_constant__ tensor map (the descriptor arrived intact).
extern "C" __global__ void tensormap_word(const __grid_constant__ CUtensorMap map,
                                          unsigned long long* out) {
  *out = reinterpret_cast<const unsigned long long*>(&map)[0];
}
"""

FUNCTION_INFO = {
    "vadd": {
        "arg_types": ["handle", "handle", "handle", "int32"],
        "launch_param_tags": ["blockIdx.x", "threadIdx.x"],
    },
    "iota_smem": {
        "arg_types": ["handle", "int32"],
        "launch_param_tags": ["blockIdx.x", "threadIdx.x", "tirx.use_dyn_shared_memory"],
    },
    "cluster_rank": {
        "arg_types": ["handle"],
        "launch_param_tags": ["blockIdx.x", "threadIdx.x", "clusterCtaIdx.x"],
    },
    "tensormap_word": {
        "arg_types": ["handle", "handle"],
        "arg_extra_tags": [1, 0],
        "launch_param_tags": ["blockIdx.x", "threadIdx.x"],
    },
}

requires_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


def build_cubin(tmp_path, arch: str) -> bytes:
    source = tmp_path / "kernels.cu"
    source.write_text(KERNELS)
    cubin = tmp_path / "kernels.cubin"
    cmd = ["nvcc", f"-arch={arch}", "-cubin", "-o", str(cubin), str(source)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return cubin.read_bytes()


@requires_nvcc
def test_kernels_compile(tmp_path):
    data = build_cubin(tmp_path, "sm_90a")
    assert data[:4] == b"\x7fELF"
    for name in FUNCTION_INFO:
        assert name.encode() in data


@pytest.fixture(scope="module")
def gpu_module(tmp_path_factory):
    from tvm.backend.cuda.runtime_module import create_cuda_module
    from tvm.backend.cuda.runtime_register import register_runtime

    register_runtime()
    major, minor = tvm.cuda(0).compute_version.split(".")
    arch = f"sm_{major}{minor}" + ("a" if major == "9" else "")
    cubin = build_cubin(tmp_path_factory.mktemp("cubin"), arch)
    return create_cuda_module(cubin, FUNCTION_INFO, source=KERNELS)


@requires_nvcc
@tvm.testing.requires_cuda_driver
def test_vadd_on_gpu(gpu_module):
    dev = tvm.cuda(0)
    n = 1000
    a_np = np.random.default_rng(0).standard_normal(n).astype("float32")
    b_np = np.random.default_rng(1).standard_normal(n).astype("float32")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.empty((n,), "float32", dev)
    gpu_module["vadd"](a, b, c, n, (n + 127) // 128, 128)
    dev.sync()
    np.testing.assert_allclose(c.numpy(), a_np + b_np)
    timer = gpu_module.time_evaluator("vadd", dev, number=20, repeat=3)
    result = timer(a, b, c, n, (n + 127) // 128, 128)
    assert all(r > 0 for r in result.results)


@requires_nvcc
@tvm.testing.requires_cuda_driver
def test_large_dynamic_shared_memory_on_gpu(gpu_module):
    dev = tvm.cuda(0)
    n = 16384  # 64 KB of ints: needs the opt-in function attribute
    out = tvm.runtime.empty((n,), "int32", dev)
    gpu_module["iota_smem"](out, n, 1, 256, 4 * n)
    np.testing.assert_array_equal(out.numpy(), np.arange(n, dtype="int32"))


@requires_nvcc
@tvm.testing.requires_cuda_driver
@pytest.mark.skipif(not env.has_cuda_compute(9), reason="clusters need sm_90")
def test_cluster_launch_on_gpu(gpu_module):
    out = tvm.runtime.empty((16,), "int32", tvm.cuda(0))
    gpu_module["cluster_rank"](out, 8, 32, 2)
    ranks = out.numpy().reshape(8, 2)
    np.testing.assert_array_equal(ranks[:, 0], np.arange(8) % 2)
    np.testing.assert_array_equal(ranks[:, 1], 2)


@requires_nvcc
@tvm.testing.requires_cuda_driver
@pytest.mark.skipif(not env.has_cuda_compute(9), reason="TMA descriptors need sm_90")
def test_tensormap_argument_on_gpu(gpu_module):
    from tvm.backend.cuda.tensormap import encode_tiled

    dev = tvm.cuda(0)
    matrix = tvm.runtime.empty((128, 64), "float16", dev)
    descriptor = encode_tiled(
        "float16", matrix.data_ptr(), [64, 128], [128], [64, 64], swizzle="128B"
    )
    assert len(descriptor) == 128 and any(descriptor)
    out = tvm.runtime.empty((1,), "uint64", dev)
    gpu_module["tensormap_word"](descriptor, out, 1, 1)
    assert int(out.numpy()[0]) == int.from_bytes(descriptor[:8], "little")


@requires_nvcc
@tvm.testing.requires_cuda_driver
@tvm.testing.requires_package("torch")
def test_dlpack_with_torch_on_gpu(gpu_module):
    import torch

    x = torch.arange(8, dtype=torch.float32, device="cuda")
    t = tvm.runtime.from_dlpack(x)
    assert t.device == tvm.cuda(0) and t.data_ptr() == x.data_ptr()
    gpu_module["vadd"](t, t, t, 8, 1, 32)
    torch.cuda.synchronize()
    assert x.tolist() == [2.0 * i for i in range(8)]
    mine = tvm.runtime.tensor(np.ones(4, "float32"), tvm.cuda(0))
    y = torch.from_dlpack(mine)
    assert y.data_ptr() == mine.data_ptr() and y.sum().item() == 4.0
