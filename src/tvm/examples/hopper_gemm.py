"""A Hopper (sm_90a) fp16 GEMM written in TIRx: ``python -m tvm.examples.hopper_gemm``.

``C[M, N] = A[M, K] @ B[N, K]^T`` with fp16 inputs, fp32 accumulation and fp16 output (both
inputs K-major, as an ``nn.Linear`` weight; ``torch.matmul(a, b.T)`` is the same product).
The kernel is :func:`hopper_gemm`; it is the structure every fast Hopper GEMM shares:

* **TMA into swizzled shared memory.** One thread of a *producer* warpgroup copies each
  ``128 x 64`` tile of A and ``256 x 64`` tile of B with ``cp.async.bulk.tensor.2d``; the
  tensor maps use the 128-byte swizzle, so 16-byte chunk ``c`` of row ``r`` lands at chunk
  ``c ^ (r % 8)`` and the tensor cores read shared memory without bank conflicts.
* **An mbarrier pipeline** of ``stages`` slots (default 4, 48 KB each): ``full[s]`` completes
  when the TMA bytes of slot ``s`` have landed (``mbarrier.arrive.expect_tx`` +
  ``complete_tx``), ``empty[s]`` when both consumers are done reading it. Waits use the
  phase parity, so the producer's first pass over the slots does not block.
* **wgmma.** Two *consumer* warpgroups each own 64 rows of the ``128 x 256`` output tile and
  issue ``wgmma.mma_async.m64n256k16.f32.f16.f16`` from shared-memory descriptors (128-byte
  swizzle, 1024-byte stride between 8-row groups; the descriptor's start address moves 32
  bytes per k16 step); accumulators stay in 128 registers per thread. Each consumer keeps
  one wgmma group in flight (``wgmma.wait_group 1``) and frees the previous slot.
* **Warp specialisation.** 384 threads: warpgroup 0 produces and gives registers back
  (``setmaxnreg.dec 40``), warpgroups 1 and 2 consume (``setmaxnreg.inc 232``).
* The epilogue packs pairs of accumulators into ``f16x2`` words (``cvt.rn.f16x2.f32``) and
  stores them straight to global memory, 4 bytes per store.

Tensor maps: ``tvm.compile`` cannot yet encode TMA descriptors in the host function
(``T.call_packed("runtime.cuTensorMapEncodeTiled", ...)`` into a ``T.tvm_stack_alloca``
buffer is not supported by our MakePackedAPI / LLVM host yet), so the kernel reads the two
128-byte descriptors from a small device buffer (``tensor_maps``, A's at byte 0, B's at 128),
which :func:`encode_tensor_maps` fills on the host. ``cp.async.bulk.tensor`` accepts a tensor
map in global memory as well as in a kernel parameter.

Status: the kernel compiles end to end (``tvm.compile(..., tir_pipeline="tirx")`` then nvcc
for sm_90a; ``tests/examples/test_hopper_gemm.py``). **No GPU run has happened yet**: its
results and speed are unmeasured. ``tests/gpu/test_hopper_gemm_gpu.py`` checks it against
``torch.matmul`` and ``benchmarks/gpu_kernels.py`` times it when a Hopper GPU is present.
"""

from __future__ import annotations

import argparse
import sys

__all__ = [
    "BLOCK_K",
    "BLOCK_M",
    "BLOCK_N",
    "HopperGemm",
    "encode_tensor_maps",
    "hopper_gemm",
    "smem_descriptor",
]

BLOCK_M, BLOCK_N, BLOCK_K = 128, 256, 64
_CONSUMERS = 2  # consumer warpgroups, 64 output rows each
_ROW_BYTES = BLOCK_K * 2  # one K-row of a tile: 64 fp16 = 128 bytes = the swizzle span
_SWIZZLE_ATOM = 8 * _ROW_BYTES  # 8 rows x 128 B: the repeat of the 128-byte swizzle
_GROUP_M = 8  # CTAs walk the output in groups of 8 row-tiles (L2 reuse of B)

# wgmma shared-memory matrix descriptor (PTX ISA 9.7.15.5.1): start address >> 4 in bits
# 0-13, leading-dimension byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45,
# layout type in 62-63 (1 = 128-byte swizzle on sm_90).
_LAYOUT_SW128 = 1
_DESC_HIGH = (_LAYOUT_SW128 << 62) | ((_SWIZZLE_ATOM >> 4) << 32) | (1 << 16)


def smem_descriptor(address, leading_bytes: int = 16, stride_bytes: int = _SWIZZLE_ATOM,
                    swizzle: str = "128B"):
    """The 64-bit wgmma descriptor of a K-major operand at shared-window ``address``.

    ``address`` is a ``uint32`` PrimExpr (or an int); the result is a ``uint64`` PrimExpr
    (an int for an int). ``swizzle`` is ``"128B"``, ``"64B"``, ``"32B"`` or ``"none"``
    (interleaved 8x16-byte core matrices); ``leading_bytes`` / ``stride_bytes`` are the
    descriptor's leading- and stride-dimension byte offsets (multiples of 16).
    """
    layout = {"none": 0, "128B": 1, "64B": 2, "32B": 3}.get(swizzle)
    if layout is None:
        raise ValueError(f"smem_descriptor: swizzle must be none, 32B, 64B or 128B, got "
                         f"{swizzle!r}")
    for what, value in (("leading_bytes", leading_bytes), ("stride_bytes", stride_bytes)):
        if value % 16 or not 0 <= value >> 4 < 1 << 14:
            raise ValueError(f"smem_descriptor: {what} must be a multiple of 16 below 256 KB, "
                             f"got {value}")
    high = (layout << 62) | ((stride_bytes >> 4) << 32) | ((leading_bytes >> 4) << 16)
    if isinstance(address, int):
        return high | ((address & 0x3FFFF) >> 4)
    from ..tirx import expr as E  # lazy: tvm.examples sits above every layer

    low = E.Cast("uint64", (address & E.IntImm("uint32", 0x3FFFF)) >> E.IntImm("uint32", 4))
    return E.IntImm("uint64", high) | low


def hopper_gemm(M: int, N: int, K: int, stages: int = 4):
    """The TIRx PrimFunc of ``C = A @ B^T`` (module docstring) for fixed sizes.

    ``M`` must be a multiple of 128, ``N`` of 256 and ``K`` of 64 (no edge handling yet).
    Parameters of the PrimFunc: ``tensor_maps`` (256 ``uint8``: the TMA descriptors of A and
    B from :func:`encode_tensor_maps`) and ``C`` (``M x N`` float16).
    """
    from ..script import tirx as T  # lazy: tvm.examples sits above every layer

    for name, value, block in (("M", M, BLOCK_M), ("N", N, BLOCK_N), ("K", K, BLOCK_K)):
        if value <= 0 or value % block:
            raise ValueError(f"hopper_gemm: {name}={value} must be a positive multiple of "
                             f"{block} (edge tiles are not supported yet)")
    if not 2 <= stages <= 4:
        raise ValueError(f"hopper_gemm: stages must be 2..4 (48 KB of shared memory each), "
                         f"got {stages}")
    tiles_m, tiles_n, k_tiles = M // BLOCK_M, N // BLOCK_N, K // BLOCK_K
    group_m = _GROUP_M if tiles_m % _GROUP_M == 0 else 1
    a_bytes, b_bytes = BLOCK_M * _ROW_BYTES, BLOCK_N * _ROW_BYTES
    stage_bytes = a_bytes + b_bytes
    smem_bytes = stages * stage_bytes + 1024  # + room to align the tiles to 1024 bytes
    acc_regs = BLOCK_N // 2  # m64n256 f32: 128 accumulators per thread
    k_steps = BLOCK_K // 16
    wgmma = T.ptx["wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"]
    tma = T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                ".mbarrier::complete_tx::bytes"]

    def desc(address):
        return smem_descriptor(address)

    def accumulators(acc):
        return [acc[i] for i in range(acc_regs)]

    @T.prim_func
    def gemm(tensor_maps: T.Buffer((256,), "uint8"), C: T.Buffer((M, N), "float16")):
        T.func_attr({"global_symbol": "hopper_gemm"})
        T.device_entry()
        T.attr({"tirx.launch_bounds_min_blocks_per_sm": 1})
        bx = T.cta_id([tiles_m * tiles_n])
        wg = T.warpgroup_id([3])
        tid = T.thread_id([384])
        smem = T.alloc_buffer((smem_bytes,), "uint8", scope="shared.dyn")
        full = T.alloc_shared((stages,), "uint64")
        empty = T.alloc_shared((stages,), "uint64")
        # grouped tile order: 8 row-tiles share each column-tile of B while it is in L2
        group = bx // (group_m * tiles_n)
        tile_m = group * group_m + bx % group_m
        tile_n = (bx % (group_m * tiles_n)) // group_m
        base = ((T.cuda.cvta_generic_to_shared(T.address_of(smem[0])) + T.uint32(1023))
                & T.uint32(0xFFFFFC00))
        if tid == 0:
            for s in range(stages):
                T.ptx.mbarrier.init.shared__cta.b64(T.address_of(full[s]), 1)
                T.ptx.mbarrier.init.shared__cta.b64(T.address_of(empty[s]), _CONSUMERS)
            T.ptx.fence.mbarrier_init.release.cluster()
        T.cuda.cta_sync()
        if wg == 0:
            # producer: one thread issues every TMA copy
            T.ptx.setmaxnreg.dec.sync.aligned.u32(40)
            if tid == 0:
                for k in T.serial(k_tiles):
                    s = k % stages
                    T.cuda.mbarrier_wait(T.address_of(empty[s]), ((k // stages) % 2) ^ 1)
                    T.ptx.mbarrier.arrive.expect_tx.shared__cta.b64(T.address_of(full[s]),
                                                                    stage_bytes)
                    a_tile = base + T.Cast("uint32", s * stage_bytes)
                    bar = T.cuda.cvta_generic_to_shared(T.address_of(full[s]))
                    tma(a_tile, T.address_of(tensor_maps[0]), k * BLOCK_K, tile_m * BLOCK_M, bar)
                    tma(a_tile + T.uint32(a_bytes), T.address_of(tensor_maps[128]), k * BLOCK_K,
                        tile_n * BLOCK_N, bar)
        else:
            # consumers: warpgroup 1 takes output rows 0-63 of the tile, warpgroup 2 rows 64-127
            T.ptx.setmaxnreg.inc.sync.aligned.u32(232)
            acc = T.alloc_local((acc_regs,), "float32")
            for i in T.unroll(acc_regs):
                acc[i] = T.float32(0)
            for i in T.unroll(acc_regs):
                T.cuda.wgmma.noop_barrier(acc[i])
            for k in T.serial(k_tiles):
                s = k % stages
                T.cuda.mbarrier_wait(T.address_of(full[s]), (k // stages) % 2)
                a_tile = base + T.Cast("uint32", s * stage_bytes + (wg - 1) * 64 * _ROW_BYTES)
                b_tile = base + T.Cast("uint32", s * stage_bytes + a_bytes)
                T.ptx.wgmma.fence.sync.aligned()
                for kk in T.unroll(k_steps):
                    # scale-d 1 (accumulate), scale-a/b 1, A and B not transposed (K-major)
                    wgmma(*accumulators(acc), desc(a_tile + T.uint32(kk * 32)),
                          desc(b_tile + T.uint32(kk * 32)), T.int32(1), 1, 1, 0, 0)
                T.ptx.wgmma.commit_group.sync.aligned()
                # the group of k - 1 is done: its slot can be refilled
                T.ptx.wgmma.wait_group.sync.aligned(1)
                if k > 0 and tid % 128 == 0:
                    T.ptx.mbarrier.arrive.shared__cta.b64(
                        T.address_of(empty[(k + stages - 1) % stages]))
            T.ptx.wgmma.wait_group.sync.aligned(0)
            for i in T.unroll(acc_regs):
                T.cuda.wgmma.noop_barrier(acc[i])
            # m64nNk16 accumulator fragment: register 4j+r of thread t holds row
            # 16*(t//32) + (t%32)//4 + 8*(r//2), column 8j + 2*(t%4) + r%2
            # each pair (c = 0, 1) is packed into one f16x2 word (cvt puts its first source in
            # the upper half) and stored with one 4-byte store through a uint32 view of C
            row = tile_m * BLOCK_M + (wg - 1) * 64 + (tid % 128) // 32 * 16 + (tid % 32) // 4
            word = row * (N // 2) + tile_n * (BLOCK_N // 2) + tid % 4  # columns 2 * (tid % 4)
            C_words = T.decl_buffer((M * N // 2,), "uint32", data=C.data)
            packed = T.alloc_local((2,), "uint32")
            for j in T.unroll(acc_regs // 4):
                T.ptx["cvt.rn.f16x2.f32"](packed[0], acc[j * 4 + 1], acc[j * 4])
                T.ptx["cvt.rn.f16x2.f32"](packed[1], acc[j * 4 + 3], acc[j * 4 + 2])
                C_words[word + j * 4] = packed[0]
                C_words[word + 4 * N + j * 4] = packed[1]  # row + 8

    return gemm


def encode_tensor_maps(a_address: int, b_address: int, M: int, N: int, K: int) -> bytes:
    """The 256 bytes of :func:`hopper_gemm`'s ``tensor_maps``: TMA descriptors of A
    (``M x K`` fp16 at device address ``a_address``, box 64 x 128) and B (``N x K``, box
    64 x 256), both with the 128-byte swizzle. Needs the CUDA driver."""
    from ..backend.cuda import tensormap  # lazy: only with a GPU

    a_map = tensormap.encode_tiled("float16", a_address, [K, M], [K * 2], [BLOCK_K, BLOCK_M],
                                   swizzle="128B", l2_promotion="256B")
    b_map = tensormap.encode_tiled("float16", b_address, [K, N], [K * 2], [BLOCK_K, BLOCK_N],
                                   swizzle="128B", l2_promotion="256B")
    return a_map + b_map


class HopperGemm:
    """:func:`hopper_gemm` compiled for one size; ``gemm(a, b, c)`` runs ``c = a @ b.T``.

    ``a``, ``b``, ``c`` are ``tvm.runtime.Tensor`` on ``tvm.cuda()`` (fp16, ``M x K``,
    ``N x K``, ``M x N``). Building it compiles the kernel (``tvm.compile`` with the tirx
    pipeline, for sm_90a); calling it needs a Hopper GPU.
    """

    def __init__(self, M: int, N: int, K: int, stages: int = 4):
        import tvm  # lazy: tvm.examples sits above every layer

        self.shape = (M, N, K)
        self.func = hopper_gemm(M, N, K, stages)
        self.executable = tvm.compile(self.func, target={"kind": "cuda", "arch": "sm_90a"},
                                      tir_pipeline="tirx")
        self._maps = {}

    def source(self) -> str:
        """The generated CUDA source."""
        return self.executable.mod.imports[0].inspect_source()

    def tensor_maps(self, a, b):
        """The device buffer of the descriptors of ``a`` and ``b`` (cached per address)."""
        import numpy as np

        import tvm

        key = (int(a.data_ptr()), int(b.data_ptr()))
        maps = self._maps.get(key)
        if maps is None:
            raw = encode_tensor_maps(key[0], key[1], *self.shape)
            maps = tvm.runtime.tensor(np.frombuffer(raw, dtype="uint8").copy(), a.device)
            self._maps[key] = maps
        return maps

    def __call__(self, a, b, c):
        self.executable["hopper_gemm"](self.tensor_maps(a, b), c)


def main(argv=None) -> int:
    """Compile the kernel; with a Hopper GPU, run and check it against NumPy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096, help="M = N = K (default 4096)")
    parser.add_argument("--print-source", action="store_true", help="print the CUDA source")
    args = parser.parse_args(argv)
    n = args.size
    gemm = HopperGemm(n, n, n)
    if args.print_source:
        print(gemm.source())
    from ..backend.cuda.nvcc import compile_many, find_nvcc

    if find_nvcc() is not None:
        cubin = compile_many([gemm.source()], "sm_90a")
        print(f"hopper_gemm {n}^3: CUDA source compiled by nvcc for sm_90a ({len(cubin)} bytes)")
    import tvm
    from tvm.testing import env

    if not env.has_cuda() or tvm.cuda(0).compute_version != "9.0":
        print("hopper_gemm: no Hopper GPU here: compiled only (no GPU run)")
        return 0
    import numpy as np

    dev = tvm.cuda(0)
    rng = np.random.default_rng(0)
    a_np = rng.uniform(-1, 1, (n, n)).astype("float16")
    b_np = rng.uniform(-1, 1, (n, n)).astype("float16")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.empty((n, n), "float16", dev)
    gemm(a, b, c)
    ref = a_np.astype("float32") @ b_np.astype("float32").T
    got = c.numpy().astype("float32")
    err = float(np.abs(got - ref).max())
    ok = bool(np.allclose(got, ref, rtol=2e-3, atol=2e-2))
    print(f"hopper_gemm {n}^3: max abs error {err:.3g} against NumPy: {'ok' if ok else 'WRONG'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
