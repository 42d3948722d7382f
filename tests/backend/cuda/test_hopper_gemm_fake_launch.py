"""The Hopper GEMM example's launch path (tvm.examples.hopper_gemm.HopperGemm) through the fake
CUDA driver (fake_driver.py): the host function encodes A's and B's TMA descriptors
(``cuTensorMapEncodeTiled``) on each call and passes them by value, with C's pointer, to a
persistent grid of 384-thread CTAs.

The fake kernel body does what the kernel's instructions do with those descriptors: each CTA
walks its tiles in the scheduler's order, loads the ``128 x 64`` / ``256 x 64`` TMA boxes of
A and B at the coordinates the kernel uses, and stores ``A_tile @ B_tile^T`` to C. The product
then matches NumPy only if every descriptor field (address, dims, row stride, box) describes
the tensors the kernel was called with. Edge tiles: the model reads a box past the tensor as
zeros (what TMA's out-of-bounds fill does) and clips the stores (the direct epilogue's
predicates, the TMA store's own clipping); with ``cluster=2`` each CTA of a pair loads one
half of the B tile. The instructions themselves are checked on the lowered kernel
(tests/examples/test_hopper_gemm.py); the tensor-core arithmetic runs only on a GPU
(tests/gpu/test_hopper_gemm_gpu.py, benchmarks/gpu_check.py)."""

import struct

import numpy as np
import pytest

import tvm
from tvm.examples import hopper_gemm as hg


def _box(fake, tmap, c0, c1):
    """What a 2-D fp16 TMA load reads at (c0 innermost, c1): a (box1, box0) array, zeros
    where the box runs past the tensor (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE fills zeros)."""
    (b0, b1), (d0, d1), (s1,) = tmap["box"], tmap["dims"], tmap["strides"]
    assert c0 >= 0 and c1 >= 0 and c0 % b0 == 0, (c0, c1, tmap)
    out = np.zeros((b1, b0), "float16")
    cols = max(0, min(b0, d0 - c0))
    for r in range(min(b1, max(0, d1 - c1)) if cols else 0):
        raw = fake.read(tmap["address"] + (c1 + r) * s1 + c0 * 2, cols * 2)
        out[r, :cols] = np.frombuffer(raw, "float16")
    return out


def _store_box(fake, tmap, c0, c1, tile):
    """A 2-D fp16 TMA store of ``tile`` at (c0, c1): the part past the tensor is dropped."""
    (b0, b1), (d0, d1), (s1,) = tmap["box"], tmap["dims"], tmap["strides"]
    assert tile.shape == (b1, b0)
    cols = max(0, min(b0, d0 - c0))
    for r in range(min(b1, max(0, d1 - c1)) if cols else 0):
        fake.write(tmap["address"] + (c1 + r) * s1 + c0 * 2, tile[r, :cols].tobytes())


def _group_major(tiles_m, tiles_n, group=8):
    """Tile (m, n) of each work index: groups of ``group`` row-tiles, rows fastest."""
    order = []
    for g0 in range(0, tiles_m, group):
        rows = min(group, tiles_m - g0)
        order += [(g0 + i % rows, i // rows) for i in range(rows * tiles_n)]
    return order


def _model_kernel(fake_driver_module, M, N, K, epilogue="direct", cluster=1):
    """What the kernel does, tile by tile, through the descriptors it was launched with."""
    bm, bn, bk = hg.BLOCK_M, hg.BLOCK_N, hg.BLOCK_K

    def body(fake, launch):
        maps = [fake_driver_module.decode_fake_tensor_map(p) for p in launch["params"]
                if len(p) == 128]
        a_map, b_map = maps[:2]
        if epilogue == "direct":
            c_ptr = struct.unpack("<Q", launch["params"][0])[0]
        else:
            c_map = maps[2]
            assert c_map["box"] == [64, 64]  # 64 x 64 boxes of the 64 x 256 half-tiles
        ctas = launch["grid"][0]
        tiles_m, tiles_n = -(-M // bm), -(-N // bn)
        # work item w of the scheduler: patch w // cluster, row-tile w % cluster in it
        order = _group_major(-(-tiles_m // cluster), tiles_n)
        for cta in range(ctas):
            rank, cid = cta % cluster, cta // cluster
            work = cid * cluster + rank
            while work < len(order) * cluster:
                pm, n = order[work // cluster]
                m = pm * cluster + work % cluster
                acc = np.zeros((bm, bn), "float32")
                for k in range(0, K, bk):
                    a = _box(fake, a_map, k, m * bm).astype("float32")
                    # with a cluster each CTA loads (and multicasts) one half of the B tile
                    b = np.concatenate([_box(fake, b_map, k, n * bn + r * (bn // cluster))
                                        for r in range(cluster)]).astype("float32")
                    acc += a @ b.T
                out = acc.astype("float16")
                if epilogue == "direct":  # predicated stores: rows < M, columns < N
                    cols = max(0, min(bn, N - n * bn))
                    for r in range(max(0, min(bm, M - m * bm))):
                        fake.write(c_ptr + ((m * bm + r) * N + n * bn) * 2,
                                   out[r, :cols].tobytes())
                else:  # each consumer's 64 x 256 half in four 64-column boxes
                    for half in range(2):
                        for q in range(4):
                            _store_box(fake, c_map, n * bn + 64 * q, m * bm + 64 * half,
                                       out[64 * half:64 * half + 64, 64 * q:64 * q + 64])
                work += ctas

    return body


def _run(fake_cuda, fake_driver_module, M, N, K, **kwargs):
    gemm = hg.HopperGemm(M, N, K, **kwargs)
    n_maps = 3 if gemm.epilogue == "tma" else 2
    sizes = ([] if gemm.epilogue == "tma" else [8]) + [128] * n_maps
    (cuda_mod,) = gemm.executable.mod.imports
    # the fake driver cannot load a cubin: a fake image with the kernel's parameters
    cuda_mod.impl.set_binary(fake_driver_module.make_image({"hopper_gemm_kernel": sizes}))
    fake_cuda.kernels["hopper_gemm_kernel"] = _model_kernel(
        fake_driver_module, M, N, K, gemm.epilogue, gemm.cluster)
    dev = tvm.cuda(0)
    rng = np.random.default_rng(0)
    a_np = rng.uniform(-1, 1, (M, K)).astype("float16")
    b_np = rng.uniform(-1, 1, (N, K)).astype("float16")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.tensor(np.full((M, N), np.nan, "float16"), dev)  # NaN: unwritten
    gemm(a, b, c)
    ref = a_np.astype("float32") @ b_np.astype("float32").T
    np.testing.assert_allclose(c.numpy().astype("float32"), ref, rtol=2e-3, atol=2e-2)
    return gemm, a, b, c


@pytest.mark.parametrize(("M", "N", "K", "kwargs"), [
    (200, 300, 72, {"stages": 2}),  # partial tiles in M, N and K (zero-filled K tail)
    (130, 257, 64, {"stages": 3, "num_ctas": 2}),  # odd N: 2-byte stores
    (300, 264, 136, {"epilogue": "tma"}),  # TMA store clipping rows and columns
    (640, 520, 128, {"cluster": 2, "num_ctas": 6}),  # an odd number of row-tiles: the
    # second CTA of the last pair gets a tile wholly below M
    (300, 264, 200, {"cluster": 2, "epilogue": "tma", "num_ctas": 4}),
])
def test_edge_tiles_epilogues_and_clusters(fake_cuda, fake_driver_module, M, N, K, kwargs):
    gemm, _a, _b, c = _run(fake_cuda, fake_driver_module, M, N, K, **kwargs)
    (launch,) = fake_cuda.launches
    assert launch["grid"] == (gemm.num_ctas, 1, 1)
    cluster = kwargs.get("cluster", 1)
    if cluster == 2:
        assert ("CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION", (2, 1, 1)) in launch["attrs"]
        assert gemm.num_ctas % 2 == 0
    maps = [fake_driver_module.decode_fake_tensor_map(p) for p in launch["params"]
            if len(p) == 128]
    # the descriptors describe the real extents; the boxes run past them at the edges
    assert maps[0]["dims"] == [K, M] and maps[0]["box"] == [64, 128]
    assert maps[1]["dims"] == [K, N] and maps[1]["box"] == [64, 256 // cluster]
    if gemm.epilogue == "tma":
        assert maps[2]["dims"] == [N, M] and maps[2]["strides"] == [N * 2]
        assert maps[2]["address"] == c.data_ptr() and maps[2]["swizzle"] == 3


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
    ((0, 256, 64), "M must be an int >= 1"),
    ((128, 256, 60), "K=60 must be a multiple of 8"),
    ((128, 256, 64, 5), "stages must be 2..4"),
    ((128, 256, 64, 4, 0), "num_ctas must be an int >= 1"),
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
