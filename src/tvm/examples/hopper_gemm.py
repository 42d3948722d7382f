"""A Hopper (sm_90a) fp16 GEMM written in TIRx: ``python -m tvm.examples.hopper_gemm``.

``C[M, N] = A[M, K] @ B[N, K]^T`` with fp16 inputs, fp32 accumulation and fp16 output (both
inputs K-major, as an ``nn.Linear`` weight; ``torch.matmul(a, b.T)`` is the same product).
The kernel is :func:`hopper_gemm`; it is written with the TIRx tile primitives and the
``tvm.tirx.lang`` helpers, in the structure every fast Hopper GEMM shares:

* **TMA into swizzled shared memory** (``Tx.copy_async(..., dispatch="tma_auto")``): one
  thread of a *producer* warpgroup copies each ``128 x 64`` tile of A and ``256 x 64`` tile
  of B into tiles laid out by ``mma_shared_layout`` (128-byte swizzle). The host function
  that ``tvm.compile`` builds encodes the two ``CUtensorMap`` descriptors with
  ``cuTensorMapEncodeTiled`` on every call and passes them by value
  (``const __grid_constant__ CUtensorMap`` kernel parameters).
* **An mbarrier pipeline** (``tvm.tirx.lang.pipeline.Pipeline``) of ``stages`` slots (default
  4, 48 KB each): ``full`` is a TMA barrier (``mbarrier.arrive.expect_tx`` + the copies'
  ``complete_tx``), ``empty`` completes when both consumer warpgroups are done reading a slot;
  ``PipelineState`` tracks slot and phase parity.
* **wgmma** (``Tx.wg.gemm_async``): two *consumer* warpgroups each own 64 rows of the
  ``128 x 256`` output tile; the variant emits ``wgmma.fence``, four
  ``wgmma.mma_async.m64n256k16.f32.f16.f16`` from shared-memory descriptors and
  ``wgmma.commit_group``. Accumulators stay in 128 registers per thread (a ``(64, 256)``
  local buffer with ``wgmma_accumulator_layout``). Each consumer keeps one wgmma group in
  flight (``wgmma.wait_group 1``) and frees the previous slot.
* **Warp specialisation** (``WarpgroupRole``): 384 threads; warpgroup 0 produces and gives
  registers back (``setmaxnreg.dec 40``), warpgroups 1 and 2 consume (``setmaxnreg.inc 232``).
* **A persistent tile scheduler** (``ClusterPersistentScheduler2D``): ``num_ctas`` CTAs (by
  default one per SM) walk the output tiles in L2-friendly groups of 8 row-tiles; the
  producer runs ahead into the next tile while the consumers store the previous one.
* The epilogue packs pairs of accumulators into ``f16x2`` words (``cvt.rn.f16x2.f32``) and
  stores them straight to global memory, 4 bytes per store (no TMA store yet).

Shared memory: the tiles come from ``T.SMEMPool`` (dynamic shared memory, the kernel has no
static shared buffer) at 1024-byte aligned offsets (the 128-byte swizzle repeats every 1024
bytes of address, and TMA and the wgmma descriptors both read it from the address bits); the
generated ``extern __shared__ __align__(1024)`` array makes the dynamic shared memory itself
start 1024-byte aligned.

Status: the kernel compiles end to end (``tvm.compile(..., tir_pipeline="tirx")`` then nvcc
for sm_90a with no spills; ``tests/examples/test_hopper_gemm.py``), and its host function
encodes the descriptors and launches on the fake driver
(``tests/backend/cuda/test_hopper_gemm_fake_launch.py``). **No GPU run has happened yet**:
its results and speed are unmeasured. ``benchmarks/gpu_check.py`` (one script) checks it
against ``torch.matmul`` and times it when a Hopper GPU is present.
"""

from __future__ import annotations

import argparse
import sys

__all__ = [
    "BLOCK_K",
    "BLOCK_M",
    "BLOCK_N",
    "DEFAULT_NUM_CTAS",
    "HopperGemm",
    "hopper_gemm",
]

BLOCK_M, BLOCK_N, BLOCK_K = 128, 256, 64
#: Persistent CTAs when no GPU is there to ask (H100 SXM and H200 have 132 SMs).
DEFAULT_NUM_CTAS = 132
_CONSUMERS = 2  # consumer warpgroups, 64 output rows each
_GROUP_M = 8  # the scheduler walks the output in groups of 8 row-tiles (L2 reuse of B)
_PRODUCER_REGS, _CONSUMER_REGS = 40, 232  # setmaxnreg: 40 * 128 + 232 * 256 <= 64K


def hopper_gemm(M: int, N: int, K: int, stages: int = 4, num_ctas: int | None = None):
    """The TIRx PrimFunc of ``C = A @ B^T`` (module docstring) for fixed sizes.

    Parameters
    ----------
    M, N, K : int
        Sizes; ``M`` must be a multiple of 128, ``N`` of 256 and ``K`` of 64 (no edge
        tiles yet).
    stages : int
        Pipeline slots, 2..4 (48 KB of shared memory each).
    num_ctas : int, optional
        Persistent CTAs (the grid); default :data:`DEFAULT_NUM_CTAS`, never more than the
        number of output tiles.

    Returns
    -------
    PrimFunc
        ``hopper_gemm(A, B, C)`` over ``float16`` buffers ``M x K``, ``N x K`` and ``M x N``.
    """
    # lazy imports: tvm.examples sits above every layer and `import tvm` must stay fast
    from ..backend.cuda.tile_primitive.gemm_async import wgmma_accumulator_layout
    from ..script import tirx as T
    from ..script.tirx import tile as Tx
    from ..tirx.lang.pipeline import Pipeline, PipelineState
    from ..tirx.lang.tile_scheduler import ClusterPersistentScheduler2D
    from ..tirx.lang.warp_role import WarpgroupRole
    from ..tirx.layout import SwizzleMode, mma_shared_layout

    for name, value, block in (("M", M, BLOCK_M), ("N", N, BLOCK_N), ("K", K, BLOCK_K)):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0 or value % block:
            raise ValueError(f"hopper_gemm: {name}={value!r} must be a positive multiple of "
                             f"{block} (edge tiles are not supported yet)")
    if isinstance(stages, bool) or not isinstance(stages, int) or not 2 <= stages <= 4:
        raise ValueError(f"hopper_gemm: stages must be 2..4 (48 KB of shared memory each), "
                         f"got {stages!r}")
    tiles_m, tiles_n, k_tiles = M // BLOCK_M, N // BLOCK_N, K // BLOCK_K
    num_ctas = DEFAULT_NUM_CTAS if num_ctas is None else num_ctas
    if isinstance(num_ctas, bool) or not isinstance(num_ctas, int) or num_ctas < 1:
        raise ValueError(f"hopper_gemm: num_ctas must be a positive int, got {num_ctas!r}")
    num_ctas = min(num_ctas, tiles_m * tiles_n)
    stage_bytes = (BLOCK_M + BLOCK_N) * BLOCK_K * 2
    acc_regs = BLOCK_N // 2  # m64n256 f32: 128 accumulators per thread
    acc_layout = wgmma_accumulator_layout(BLOCK_N)
    half_m = BLOCK_M // _CONSUMERS
    # K-major tiles in 128-byte swizzle atoms (8 rows x 64 fp16), what TMA writes with
    # CU_TENSOR_MAP_SWIZZLE_128B and what the wgmma descriptors read
    a_layout = mma_shared_layout("float16", SwizzleMode.SWIZZLE_128B_ATOM,
                                 (stages, BLOCK_M, BLOCK_K))
    b_layout = mma_shared_layout("float16", SwizzleMode.SWIZZLE_128B_ATOM,
                                 (stages, BLOCK_N, BLOCK_K))

    @T.prim_func
    def gemm(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
        T.func_attr({"global_symbol": "hopper_gemm", "hopper_gemm.num_ctas": num_ctas})
        A = T.match_buffer(A_ptr, (M, K), "float16")
        B = T.match_buffer(B_ptr, (N, K), "float16")
        C = T.match_buffer(C_ptr, (M, N), "float16")
        T.device_entry()
        T.attr({"tirx.launch_bounds_min_blocks_per_sm": 1})
        bx = T.cta_id([num_ctas])
        wg = T.warpgroup_id([1 + _CONSUMERS])
        tid = T.thread_id_in_wg([128])
        pool = T.SMEMPool()
        As = pool.alloc((stages, BLOCK_M, BLOCK_K), "float16", align=1024, layout=a_layout)
        Bs = pool.alloc((stages, BLOCK_N, BLOCK_K), "float16", align=1024, layout=b_layout)
        # full: one expect_tx arrive + the TMA bytes; empty: one arrive per consumer, and it
        # starts "free" (phase offset 1: the producer's first pass does not wait)
        pipe = Pipeline(pool, stages, full="tma", empty="mbar", init_full=1,
                        init_empty=_CONSUMERS, empty_phase_offset=1)
        pool.commit()
        T.ptx.fence.mbarrier_init.release.cluster()
        T.cuda.cta_sync()
        with WarpgroupRole(wg, 0, regs=_PRODUCER_REGS):
            if tid == 0:  # one thread issues every TMA copy
                st = PipelineState(stages, 0)
                sched = ClusterPersistentScheduler2D(
                    "sched", num_m_tiles=tiles_m, num_n_tiles=tiles_n, num_clusters=num_ctas,
                    l2_group_size=_GROUP_M)
                sched.init(bx)
                while sched.valid():
                    m0: T.let = sched.m_idx * BLOCK_M
                    n0: T.let = sched.n_idx * BLOCK_N
                    for k in T.serial(k_tiles):
                        pipe.empty.wait(st.stage, st.phase)
                        pipe.full.arrive(st.stage, tx_count=stage_bytes)
                        Tx.copy_async(As[st.stage, :, :],
                                      A[m0:m0 + BLOCK_M, k * BLOCK_K:k * BLOCK_K + BLOCK_K],
                                      dispatch="tma_auto", mbar=pipe.full.ptr_to([st.stage]))
                        Tx.copy_async(Bs[st.stage, :, :],
                                      B[n0:n0 + BLOCK_N, k * BLOCK_K:k * BLOCK_K + BLOCK_K],
                                      dispatch="tma_auto", mbar=pipe.full.ptr_to([st.stage]))
                        st.advance()
                    sched.next_tile()
        with WarpgroupRole(wg, (1, 1 + _CONSUMERS), regs=_CONSUMER_REGS, increase=True):
            acc = T.alloc_buffer((64, BLOCK_N), "float32", scope="local", layout=acc_layout)
            st = PipelineState(stages, 0)  # the slot to read next
            rel = PipelineState(stages, 0)  # the slot to release next
            sched = ClusterPersistentScheduler2D(
                "sched", num_m_tiles=tiles_m, num_n_tiles=tiles_n, num_clusters=num_ctas,
                l2_group_size=_GROUP_M)
            sched.init(bx)
            while sched.valid():
                # this consumer's rows of the tile (a meta_var: the wgmma variant proves it a multiple of 8)
                row0 = T.meta_var((wg - 1) * half_m)
                for k in T.serial(k_tiles):
                    pipe.full.wait(st.stage, st.phase)
                    # k > 0 accumulates; the first K tile of an output tile overwrites
                    Tx.wg.gemm_async(acc, As[st.stage, row0:row0 + half_m, :],
                                     Bs[st.stage, :, :], False, False, k > 0, dispatch="wgmma")
                    # the group of k - 1 is done: its slot can be refilled
                    T.ptx.wgmma.wait_group.sync.aligned(1)
                    if k > 0:
                        if tid == 0:
                            pipe.empty.arrive(rel.stage)
                        rel.advance()
                    st.advance()
                T.ptx.wgmma.wait_group.sync.aligned(0)
                if tid == 0:
                    pipe.empty.arrive(rel.stage)
                rel.advance()
                regs = acc.local(acc_regs)
                for i in T.unroll(acc_regs):
                    T.cuda.wgmma.noop_barrier(regs[i])
                # m64nNk16 accumulator fragment: register 4j+r of thread t holds row
                # 16*(t//32) + (t%32)//4 + 8*(r//2), column 8j + 2*(t%4) + r%2; each pair
                # (r = 0, 1) is packed into one f16x2 word (cvt puts its first source in the
                # upper half) and stored with one 4-byte store through a uint32 view of C
                row: T.let = (sched.m_idx * BLOCK_M + row0 + tid // 32 * 16 + tid % 32 // 4)
                word: T.let = row * (N // 2) + sched.n_idx * (BLOCK_N // 2) + tid % 4
                C_words = T.decl_buffer((M * N // 2,), "uint32", data=C.data)
                packed = T.alloc_local((2,), "uint32")
                for j in T.unroll(acc_regs // 4):
                    T.ptx["cvt.rn.f16x2.f32"](packed[0], regs[j * 4 + 1], regs[j * 4])
                    T.ptx["cvt.rn.f16x2.f32"](packed[1], regs[j * 4 + 3], regs[j * 4 + 2])
                    C_words[word + j * 4] = packed[0]
                    C_words[word + 4 * N + j * 4] = packed[1]  # row + 8
                sched.next_tile()

    return gemm


def _device_num_ctas(default: int = DEFAULT_NUM_CTAS) -> int:
    """The SM count of ``tvm.cuda(0)`` when a GPU answers, else ``default``."""
    import tvm  # lazy: tvm.examples sits above every layer

    try:
        dev = tvm.cuda(0)
        if dev.exist:
            return int(dev.multi_processor_count)
    except (RuntimeError, OSError, ValueError):
        pass
    return default


class HopperGemm:
    """:func:`hopper_gemm` compiled for one size; ``gemm(a, b, c)`` runs ``c = a @ b.T``.

    ``a``, ``b``, ``c`` are ``tvm.runtime.Tensor`` on ``tvm.cuda()`` (fp16, ``M x K``,
    ``N x K``, ``M x N``). Building it compiles the kernel (``tvm.compile`` with the tirx
    pipeline, for sm_90a); calling it needs a Hopper GPU. ``num_ctas`` defaults to the SM
    count of ``tvm.cuda(0)`` (:data:`DEFAULT_NUM_CTAS` without a GPU).
    """

    def __init__(self, M: int, N: int, K: int, stages: int = 4, num_ctas: int | None = None):
        import tvm  # lazy: tvm.examples sits above every layer

        self.shape = (M, N, K)
        self.func = hopper_gemm(M, N, K, stages,
                                _device_num_ctas() if num_ctas is None else num_ctas)
        # the grid: one persistent CTA per SM, never more than the output tiles
        self.num_ctas = int(self.func.attrs["hopper_gemm.num_ctas"])
        self.executable = tvm.compile(self.func, target={"kind": "cuda", "arch": "sm_90a"},
                                      tir_pipeline="tirx")

    def source(self) -> str:
        """The generated CUDA source."""
        return self.executable.mod.imports[0].inspect_source()

    def __call__(self, a, b, c):
        self.executable["hopper_gemm"](a, b, c)


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
