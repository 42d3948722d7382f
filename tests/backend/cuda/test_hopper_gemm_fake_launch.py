"""The Hopper GEMM example's launch path (tvm.examples.hopper_gemm.HopperGemm) through the fake
CUDA driver (fake_driver.py): the tensor maps it encodes and uploads, and the launch
configuration. No kernel code runs; tests/gpu/test_hopper_gemm_gpu.py checks the numbers on a
GPU."""

import struct

import numpy as np

import tvm
from tvm.examples import hopper_gemm as hg


def test_hopper_gemm_launch(fake_cuda, fake_driver_module):
    M, N, K = 256, 512, 128
    gemm = hg.HopperGemm(M, N, K, stages=3)
    (cuda_mod,) = gemm.executable.mod.imports
    # the fake driver cannot load a cubin: a fake image with the kernel's two pointer params
    cuda_mod.impl.set_binary(fake_driver_module.make_image({"hopper_gemm_kernel": [8, 8]}))
    dev = tvm.cuda(0)
    a = tvm.runtime.tensor(np.zeros((M, K), "float16"), dev)
    b = tvm.runtime.tensor(np.zeros((N, K), "float16"), dev)
    c = tvm.runtime.empty((M, N), "float16", dev)
    gemm(a, b, c)
    (launch,) = fake_cuda.launches
    assert launch["grid"] == (2 * 2, 1, 1)  # (256 / 128) x (512 / 256) output tiles
    assert launch["block"] == (384, 1, 1)  # producer + 2 consumer warpgroups
    assert launch["shared_mem_bytes"] == 3 * (128 + 256) * 64 * 2 + 1024
    attrs = fake_cuda.function_attributes["hopper_gemm_kernel"]
    assert attrs["CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"] == launch["shared_mem_bytes"]
    maps_ptr, c_ptr = (struct.unpack("<Q", p)[0] for p in launch["params"][:2])
    assert c_ptr == c.data_ptr()
    raw = fake_cuda.read(maps_ptr, 256)
    a_map = fake_driver_module.decode_fake_tensor_map(raw[:128])
    b_map = fake_driver_module.decode_fake_tensor_map(raw[128:])
    for tmap, tensor, rows, box_rows in ((a_map, a, M, 128), (b_map, b, N, 256)):
        assert tmap["address"] == tensor.data_ptr()
        assert tmap["dims"] == [K, rows] and tmap["strides"] == [K * 2]
        assert tmap["box"] == [64, box_rows]
        assert tmap["swizzle"] == 3  # CU_TENSOR_MAP_SWIZZLE_128B
        assert tmap["data_type"] == 6  # CU_TENSOR_MAP_DATA_TYPE_FLOAT16
    # a second call with the same tensors reuses the uploaded maps
    gemm(a, b, c)
    assert struct.unpack("<Q", fake_cuda.launches[1]["params"][0])[0] == maps_ptr
