"""The Hopper GEMM example (``tvm.examples.hopper_gemm``) on a real sm_90 GPU: numbers against
``torch.matmul`` (NumPy when torch has no CUDA). Skipped without a compute-capability-9.0 GPU,
its driver, cuda-bindings and nvcc; tests/gpu/run_gpu_checks.sh runs it (``pytest -m gpu``).
Without a GPU, tests/examples/test_hopper_gemm.py compiles the same kernel with nvcc."""

import shutil

import numpy as np
import pytest

import tvm
from tvm.examples import hopper_gemm as hg
from tvm.testing import env

pytestmark = [
    *env.requires_cuda_driver.marks(),
    pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc"),
    pytest.mark.skipif(not env.has_cuda_compute(9, 0, exact=True),
                       reason="needs a Hopper GPU (compute capability 9.0; wgmma is sm_90a)"),
]


def _reference(a_np, b_np):
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        a, b = torch.from_numpy(a_np).cuda(), torch.from_numpy(b_np).cuda()
        return torch.matmul(a.float(), b.float().T).cpu().numpy()
    return a_np.astype("float32") @ b_np.astype("float32").T


@pytest.mark.parametrize(("M", "N", "K", "stages", "num_ctas"), [
    (128, 256, 64, 4, None),  # one tile, one K step: the pipeline's first pass only
    (256, 512, 320, 2, None),  # K steps wrap around the 2 slots, grouped order with 2 row-tiles
    (1024, 768, 1024, 4, None),  # 8-row-tile groups, 16 K steps over 4 slots
    (1152, 768, 256, 3, 5),  # 27 tiles on 5 persistent CTAs, a partial group of 1 row-tile
    (4096, 4096, 4096, 4, None),  # one CTA per SM
])
def test_hopper_gemm_matches_torch(M, N, K, stages, num_ctas):
    dev = tvm.cuda(0)
    gemm = hg.HopperGemm(M, N, K, stages, num_ctas)
    rng = np.random.default_rng(0)
    a_np = rng.uniform(-1, 1, (M, K)).astype("float16")
    b_np = rng.uniform(-1, 1, (N, K)).astype("float16")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.empty((M, N), "float16", dev)
    gemm(a, b, c)
    ref = _reference(a_np, b_np)
    # fp16 output: half an ulp of |C| (up to ~sqrt(K) here) plus fp32 summation order
    np.testing.assert_allclose(c.numpy().astype("float32"), ref, rtol=2e-3, atol=2e-2)
