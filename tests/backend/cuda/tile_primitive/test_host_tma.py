# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)
"""The host half of a TMA copy: ``tvm.compile(f, target=cuda sm_90a, tir_pipeline="tirx")``
of a kernel whose Tx.copy_async uses TMA gives a host function that encodes each
``CUtensorMap`` with ``runtime.cuTensorMapEncodeTiled`` (on a 64-byte aligned stack buffer)
and passes its 128 bytes to the kernel by value (``arg_extra_tags`` 1).

Runs on the fake ``cuda.bindings.driver`` (tests/backend/cuda/fake_driver.py): its
descriptor records every field, and a Python kernel body reads them back to do what the
TMA instructions of the kernel do (box copies at the kernel's coordinates), so the result
checks that the descriptors describe the tensors the kernel was called with."""

import ctypes
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

import tvm
from tvm.backend.cuda.tensormap import encode_tiled
from tvm.script import tirx as T

sys.path.insert(0, str(Path(__file__).parent))
import tma_kernels as K

TARGET = {"kind": "cuda", "arch": "sm_90a"}


def _fake_image(ex, fake_driver_module, sizes):
    (cuda_mod,) = ex.mod.imports
    cuda_mod.impl.set_binary(fake_driver_module.make_image(sizes))
    return cuda_mod


def _box_read(fake, tmap, coords):
    """What a 2-D TMA load reads at ``coords`` (innermost first): a (box1, box0) array."""
    elem = tmap["elem_bytes"]
    (b0, b1), (d0, d1), (s1,) = tmap["box"], tmap["dims"], tmap["strides"]
    c0, c1 = coords
    assert 0 <= c0 and c0 + b0 <= d0 and 0 <= c1 and c1 + b1 <= d1
    rows = [fake.read(tmap["address"] + (c1 + r) * s1 + c0 * elem, b0 * elem)
            for r in range(b1)]
    return b"".join(rows)


def _box_write(fake, tmap, coords, data):
    elem = tmap["elem_bytes"]
    (b0, b1), (s1,) = tmap["box"], tmap["strides"]
    c0, c1 = coords
    for r in range(b1):
        fake.write(tmap["address"] + (c1 + r) * s1 + c0 * elem,
                   data[r * b0 * elem:(r + 1) * b0 * elem])


def test_host_encodes_descriptors_and_launch_passes_them(fake_cuda, fake_driver_module):
    ex = tvm.compile(K.tma_swizzled_tiles, target=TARGET, tir_pipeline="tirx")
    cuda_mod = _fake_image(ex, fake_driver_module, {"tma_swizzled_tiles_kernel": [128, 128]})
    info = cuda_mod.impl.function_info["tma_swizzled_tiles_kernel"]
    assert info["arg_extra_tags"] == [1, 1]
    src = cuda_mod.inspect_source()
    assert ("tma_swizzled_tiles_kernel(const __grid_constant__ CUtensorMap A_tensormap, "
            "const __grid_constant__ CUtensorMap B_tensormap_1)") in src

    def body(fake, launch):
        # the kernel's instructions: per CTA (bx, by), two 64 x 64 boxes at columns
        # by*128 and by*128+64, rows bx*64, loaded from A and stored to B
        maps = [fake_driver_module.decode_fake_tensor_map(p) for p in launch["params"]]
        for m in maps:
            m["elem_bytes"] = 2
        gx, gy, _ = launch["grid"]
        for bx in range(gx):
            for by in range(gy):
                for half in range(2):
                    coords = (by * 128 + half * 64, bx * 64)
                    _box_write(fake, maps[1], coords, _box_read(fake, maps[0], coords))

    fake_cuda.kernels["tma_swizzled_tiles_kernel"] = body
    dev = tvm.cuda(0)
    a_np = np.random.default_rng(0).standard_normal((256, 512)).astype("float16")
    a = tvm.runtime.tensor(a_np, dev)
    b = tvm.runtime.tensor(np.zeros((256, 512), "float16"), dev)
    ex(a, b)

    encodes = [args for name, args in fake_cuda.calls if name == "cuTensorMapEncodeTiled"]
    assert len(encodes) == 2
    (launch,) = fake_cuda.launches
    assert launch["grid"] == (4, 4, 1) and launch["block"] == (128, 1, 1)
    desc_a, desc_b = (fake_driver_module.decode_fake_tensor_map(p) for p in launch["params"])
    assert desc_a == {
        "data_type": 6, "rank": 2, "address": a.data_ptr(), "dims": [512, 256],
        "strides": [1024], "box": [64, 64], "element_strides": [1, 1], "interleave": 0,
        "swizzle": 3, "l2_promotion": 2, "oob_fill": 0,
    }
    assert desc_b["address"] == b.data_ptr()
    assert {k: v for k, v in desc_b.items() if k != "address"} == \
        {k: v for k, v in desc_a.items() if k != "address"}
    np.testing.assert_array_equal(b.numpy(), a_np)


def test_descriptor_follows_the_tensor_of_each_call(fake_cuda, fake_driver_module):
    ex = tvm.compile(K.tma_rowmajor, target=TARGET, tir_pipeline="tirx")
    _fake_image(ex, fake_driver_module, {"tma_rowmajor_kernel": [8, 128]})
    fake_cuda.kernels["tma_rowmajor_kernel"] = lambda fake, launch: None
    dev = tvm.cuda(0)
    tensors = [tvm.runtime.tensor(np.zeros((64, 64), "float16"), dev) for _ in range(3)]
    ex(tensors[0], tensors[1])
    ex(tensors[2], tensors[1])
    first, second = fake_cuda.launches
    # B's pointer first (a plain pointer parameter), then A's descriptor by value
    assert struct.unpack("<Q", first["params"][0])[0] == tensors[1].data_ptr()
    addresses = [fake_driver_module.decode_fake_tensor_map(launch["params"][1])["address"]
                 for launch in (first, second)]
    assert addresses == [tensors[0].data_ptr(), tensors[2].data_ptr()]


@T.prim_func
def tma_from_param(A_map: T.TensorMap(), B: T.Buffer((64,), "float16")):
    """A kernel taking an already encoded descriptor (T.TensorMap() parameter)."""
    T.func_attr({"global_symbol": "tma_from_param"})
    T.device_entry()
    bx = T.cta_id([1])
    tid = T.thread_id([128])
    bar = T.alloc_shared((1,), "uint64")
    As = T.alloc_shared((64, 64), "float16")
    if tid == 0:
        T.ptx.mbarrier.init.shared__cta.b64(T.address_of(bar[0]), 1)
        T.ptx.mbarrier.arrive.expect_tx.shared__cta.b64(T.address_of(bar[0]), 8192)
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"](
            T.address_of(As[0, 0]), T.address_of(A_map), 0, 0, T.address_of(bar[0]))
    T.cuda.mbarrier_wait(T.address_of(bar[0]), 0)
    B[tid % 64] = As[0, tid % 64]


def test_tensor_map_parameter_is_passed_by_value(fake_cuda, fake_driver_module):
    ex = tvm.compile(tma_from_param, target=TARGET, tir_pipeline="tirx")
    # the kernel takes B first (buffers before the descriptor, as SplitHostDevice orders them)
    _fake_image(ex, fake_driver_module, {"tma_from_param_kernel": [8, 128]})
    fake_cuda.kernels["tma_from_param_kernel"] = lambda fake, launch: None
    dev = tvm.cuda(0)
    a = tvm.runtime.tensor(np.zeros((64, 64), "float16"), dev)
    b = tvm.runtime.tensor(np.zeros((64,), "float16"), dev)
    desc = encode_tiled("float16", a.data_ptr(), [64, 64], [128], [64, 64])
    host = ctypes.create_string_buffer(desc, 128)
    ex(ctypes.c_void_p(ctypes.addressof(host)), b)
    (launch,) = fake_cuda.launches
    assert launch["params"][1] == desc
    assert struct.unpack("<Q", launch["params"][0])[0] == b.data_ptr()
    with pytest.raises(TypeError, match="expected void\\* \\(an opaque pointer\\), got int"):
        ex(5, b)


def test_multicast_kernel_launches_as_a_cluster(fake_cuda, fake_driver_module):
    ex = tvm.compile(K.tma_staged_multicast, target=TARGET, tir_pipeline="tirx")
    _fake_image(ex, fake_driver_module, {"tma_staged_multicast_kernel": [128]})
    fake_cuda.kernels["tma_staged_multicast_kernel"] = lambda fake, launch: None
    a = tvm.runtime.empty((4, 128, 64), "bfloat16", tvm.cuda(0))
    ex(a)
    (launch,) = fake_cuda.launches
    assert launch["grid"] == (4, 1, 1) and launch["block"] == (128, 1, 1)
    assert launch["attrs"] == [("CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", (2, 1, 1))]
    desc = fake_driver_module.decode_fake_tensor_map(launch["params"][0])
    assert desc["data_type"] == 9  # bfloat16
    assert (desc["dims"], desc["strides"], desc["box"], desc["swizzle"]) == \
        ([64, 128, 4], [128, 16384], [32, 32, 1], 2)
    assert desc["address"] == a.data_ptr()
