"""The Hopper GEMM example's launch path (tvm.examples.hopper_gemm.HopperGemm) through the fake
CUDA driver (fake_driver.py): the host function encodes A's and B's TMA descriptors
(``cuTensorMapEncodeTiled``) on each call and passes them by value, with C's pointer, to a
persistent grid of 384-thread CTAs.

The fake kernel body does what the kernel's instructions do with those descriptors: each CTA
walks its tiles in the scheduler's order, loads the ``128 x 64`` / ``256 x 64`` TMA boxes of
A and B at the coordinates the kernel uses, and stores ``A_tile @ B_tile^T`` to C. The product
then matches NumPy only if every descriptor field (address, dims, row stride, box) describes
the tensors the kernel was called with. The tensor-core arithmetic itself runs only on a GPU
(tests/gpu/test_hopper_gemm_gpu.py, benchmarks/gpu_check.py)."""

import struct

import numpy as np
import pytest

import tvm
from tvm.examples import hopper_gemm as hg


def _box(fake, tmap, c0, c1):
    """What a 2-D fp16 TMA load reads at (c0 innermost, c1): a (box1, box0) array."""
    (b0, b1), (d0, d1), (s1,) = tmap["box"], tmap["dims"], tmap["strides"]
    assert 0 <= c0 and c0 + b0 <= d0 and 0 <= c1 and c1 + b1 <= d1, (c0, c1, tmap)
    raw = b"".join(fake.read(tmap["address"] + (c1 + r) * s1 + c0 * 2, b0 * 2)
                   for r in range(b1))
    return np.frombuffer(raw, "float16").reshape(b1, b0)


def _group_major(tiles_m, tiles_n, group=8):
    """Tile (m, n) of each work index: groups of ``group`` row-tiles, rows fastest."""
    order = []
    for g0 in range(0, tiles_m, group):
        rows = min(group, tiles_m - g0)
        order += [(g0 + i % rows, i // rows) for i in range(rows * tiles_n)]
    return order


def _model_kernel(fake_driver_module, M, N, K):
    def body(fake, launch):
        c_ptr = struct.unpack("<Q", launch["params"][0])[0]
        a_map, b_map = (fake_driver_module.decode_fake_tensor_map(p)
                        for p in launch["params"][1:])
        ctas = launch["grid"][0]
        order = _group_major(M // hg.BLOCK_M, N // hg.BLOCK_N)
        for cta in range(ctas):
            for m, n in order[cta::ctas]:  # ClusterPersistentScheduler2D: stride = #CTAs
                acc = np.zeros((hg.BLOCK_M, hg.BLOCK_N), "float32")
                for k in range(0, K, hg.BLOCK_K):
                    a = _box(fake, a_map, k, m * hg.BLOCK_M).astype("float32")
                    b = _box(fake, b_map, k, n * hg.BLOCK_N).astype("float32")
                    acc += a @ b.T
                out = acc.astype("float16")
                for r in range(hg.BLOCK_M):
                    fake.write(c_ptr + ((m * hg.BLOCK_M + r) * N + n * hg.BLOCK_N) * 2,
                               out[r].tobytes())

    return body


@pytest.mark.parametrize(("M", "N", "K", "stages", "num_ctas"), [
    (256, 512, 128, 3, None),  # 4 tiles < 132 SMs: one tile per CTA
    (1152, 512, 64, 2, 5),  # 18 tiles over 5 persistent CTAs, a partial group of 1 row-tile
])
def test_hopper_gemm_launch(fake_cuda, fake_driver_module, M, N, K, stages, num_ctas):
    gemm = hg.HopperGemm(M, N, K, stages=stages, num_ctas=num_ctas)
    (cuda_mod,) = gemm.executable.mod.imports
    # the fake driver cannot load a cubin: a fake image with the kernel's parameters
    # (C's pointer, then the two 128-byte descriptors by value)
    cuda_mod.impl.set_binary(fake_driver_module.make_image({"hopper_gemm_kernel":
                                                            [8, 128, 128]}))
    fake_cuda.kernels["hopper_gemm_kernel"] = _model_kernel(fake_driver_module, M, N, K)
    dev = tvm.cuda(0)
    rng = np.random.default_rng(0)
    a_np = rng.uniform(-1, 1, (M, K)).astype("float16")
    b_np = rng.uniform(-1, 1, (N, K)).astype("float16")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.empty((M, N), "float16", dev)
    gemm(a, b, c)

    (launch,) = fake_cuda.launches
    tiles = (M // 128) * (N // 256)
    assert launch["grid"] == (min(tiles, num_ctas or 132), 1, 1)  # 132 SMs on the fake H200
    assert launch["block"] == (384, 1, 1)  # producer + 2 consumer warpgroups
    # the stages' A and B tiles, then 2 x stages mbarriers
    assert launch["shared_mem_bytes"] == stages * (128 + 256) * 64 * 2 + 2 * stages * 8
    attrs = fake_cuda.function_attributes["hopper_gemm_kernel"]
    assert attrs["CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"] == launch["shared_mem_bytes"]
    encodes = [args for name, args in fake_cuda.calls if name == "cuTensorMapEncodeTiled"]
    assert len(encodes) == 2
    a_map, b_map = (fake_driver_module.decode_fake_tensor_map(p) for p in launch["params"][1:])
    for tmap, tensor, rows, box_rows in ((a_map, a, M, 128), (b_map, b, N, 256)):
        assert tmap["address"] == tensor.data_ptr()
        assert tmap["dims"] == [K, rows] and tmap["strides"] == [K * 2]
        assert tmap["box"] == [64, box_rows]
        assert tmap["swizzle"] == 3  # CU_TENSOR_MAP_SWIZZLE_128B
        assert tmap["data_type"] == 6  # CU_TENSOR_MAP_DATA_TYPE_FLOAT16
    ref = a_np.astype("float32") @ b_np.astype("float32").T
    np.testing.assert_allclose(c.numpy().astype("float32"), ref, rtol=2e-3, atol=2e-2)


def test_descriptors_follow_each_call(fake_cuda, fake_driver_module):
    gemm = hg.HopperGemm(128, 256, 64, stages=2)
    (cuda_mod,) = gemm.executable.mod.imports
    cuda_mod.impl.set_binary(fake_driver_module.make_image({"hopper_gemm_kernel":
                                                            [8, 128, 128]}))
    fake_cuda.kernels["hopper_gemm_kernel"] = lambda fake, launch: None
    dev = tvm.cuda(0)
    a1, a2 = (tvm.runtime.empty((128, 64), "float16", dev) for _ in range(2))
    b = tvm.runtime.empty((256, 64), "float16", dev)
    c = tvm.runtime.empty((128, 256), "float16", dev)
    gemm(a1, b, c)
    gemm(a2, b, c)
    addresses = [fake_driver_module.decode_fake_tensor_map(launch["params"][1])["address"]
                 for launch in fake_cuda.launches]
    assert addresses == [a1.data_ptr(), a2.data_ptr()]


@pytest.mark.parametrize(("args", "match"), [
    ((100, 256, 64), "M=100 must be a positive multiple of 128"),
    ((128, 256, 64, 5), "stages must be 2..4"),
    ((128, 256, 64, 4, 0), "num_ctas must be a positive int"),
])
def test_bad_sizes_are_rejected(args, match):
    with pytest.raises(ValueError, match=match):
        hg.hopper_gemm(*args)


def test_time_evaluator_times_launches_with_fresh_descriptors(fake_cuda, fake_driver_module):
    # benchmarks/gpu_kernels.py times the GEMM this way: each timed call runs the host
    # function, which encodes both descriptors and launches once
    gemm = hg.HopperGemm(128, 256, 64, stages=2)
    (cuda_mod,) = gemm.executable.mod.imports
    cuda_mod.impl.set_binary(fake_driver_module.make_image({"hopper_gemm_kernel":
                                                            [8, 128, 128]}))
    fake_cuda.kernels["hopper_gemm_kernel"] = lambda fake, launch: None
    dev = tvm.cuda(0)
    a = tvm.runtime.empty((128, 64), "float16", dev)
    b = tvm.runtime.empty((256, 64), "float16", dev)
    c = tvm.runtime.empty((128, 256), "float16", dev)
    result = gemm.executable.time_evaluator("hopper_gemm", dev, number=3, repeat=2)(a, b, c)
    # the fake's event clock advances 0.5 ms per launch: the CUDA events timed the launches
    assert result.results == pytest.approx([0.5e-3, 0.5e-3])
    launches = len(fake_cuda.launches)
    assert launches == 1 + 3 * 2  # one warm-up call
    encodes = [name for name, _ in fake_cuda.calls if name == "cuTensorMapEncodeTiled"]
    assert len(encodes) == 2 * launches
