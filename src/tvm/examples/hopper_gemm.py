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
* **Epilogue** (``epilogue=``): ``"direct"`` (default) packs pairs of accumulators into
  ``f16x2`` words (``cvt.rn.f16x2.f32``) and stores them straight to global memory, 4 bytes
  per store; ``"tma"`` writes them into a 128-byte-swizzled shared ``64 x 256`` tile per
  consumer (the ``mma_shared_layout`` TMA reads), fences the async proxy
  (``fence.proxy.async.shared::cta``), syncs the warpgroup on a named barrier and has one
  thread store the tile with ``cp.async.bulk.tensor`` (``Tx.copy_async`` shared -> global,
  ``.bulk_group``); the next tile waits for the store to have read the tile
  (``cp.async.bulk.wait_group.read 0``). It needs 64 KB of shared memory, so 3 stages.
* **Edge tiles**: ``M`` and ``N`` are arbitrary, ``K`` a multiple of 8. The tensor maps
  describe the real extents: a TMA box that runs past them is filled with zeros (and still
  counts its whole size in the mbarrier's transaction bytes), so partial K tiles add zeros;
  the direct epilogue predicates its stores on ``row < M`` and ``col < N`` (2-byte stores
  when ``N`` is odd, as rows are then not 4-byte aligned), the TMA store clips by itself.
* **2-CTA clusters** (``cluster=2``): the CTAs of a cluster take vertically adjacent output
  tiles (``ClusterPersistentScheduler2D(cluster_m=2)``); each loads its own A tile and one
  half of the shared B tile, multicast into both CTAs' shared memory
  (``.multicast::cluster``, mask ``0b11``), so each B tile leaves L2 once per cluster. A
  slot's ``empty`` barrier then counts the consumers of both CTAs (each consumer arrives on
  both, through ``mapa`` and ``mbarrier.arrive.shared::cluster``), the barrier init is
  published with a cluster barrier, and a final cluster barrier keeps a CTA alive while its
  peer may still write into it.

Shared memory: the tiles come from ``T.SMEMPool`` (dynamic shared memory, the kernel has no
static shared buffer) at 1024-byte aligned offsets (the 128-byte swizzle repeats every 1024
bytes of address, and TMA and the wgmma descriptors both read it from the address bits); the
generated ``extern __shared__ __align__(1024)`` array makes the dynamic shared memory itself
start 1024-byte aligned.

Status: the kernel compiles end to end (``tvm.compile(..., tir_pipeline="tirx")`` then nvcc
for sm_90a with no spills; ``tests/examples/test_hopper_gemm.py``), and its host function
encodes the descriptors and launches on the fake driver
(``tests/backend/cuda/test_hopper_gemm_fake_launch.py``, with a NumPy model of the TMA boxes,
their out-of-bounds fill and the clipped stores). **No GPU run has happened yet**:
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
    "EPILOGUES",
    "SMEM_LIMIT",
    "HopperGemm",
    "hopper_gemm",
    "max_stages",
]

BLOCK_M, BLOCK_N, BLOCK_K = 128, 256, 64
#: Persistent CTAs when no GPU is there to ask (H100 SXM and H200 have 132 SMs).
DEFAULT_NUM_CTAS = 132
#: The epilogues: ``"direct"`` (registers -> global, 4-byte stores) and ``"tma"``
#: (registers -> swizzled shared tile -> ``cp.async.bulk.tensor`` store).
EPILOGUES = ("direct", "tma")
#: Usable dynamic shared memory per CTA on sm_90 (227 KB).
SMEM_LIMIT = 232448
_CONSUMERS = 2  # consumer warpgroups, 64 output rows each
_GROUP_M = 8  # the scheduler walks the output in groups of 8 row-tiles (L2 reuse of B)
_PRODUCER_REGS, _CONSUMER_REGS = 40, 232  # setmaxnreg: 40 * 128 + 232 * 256 <= 64K
_STAGE_BYTES = (BLOCK_M + BLOCK_N) * BLOCK_K * 2
_C_TILE_BYTES = BLOCK_M * BLOCK_N * 2  # the TMA epilogue's shared C tile


def _positive_int(name, value, minimum=1):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"hopper_gemm: {name} must be an int >= {minimum}, got {value!r}")


def max_stages(epilogue: str = "direct") -> int:
    """The most pipeline slots that fit in shared memory with ``epilogue`` (4, or 3 with the
    TMA epilogue's 64 KB C tile)."""
    extra = _C_TILE_BYTES if epilogue == "tma" else 0
    return min(4, (SMEM_LIMIT - extra) // (_STAGE_BYTES + 16))


def _check(M, N, K, stages, num_ctas, epilogue, cluster):
    """Validated ``(stages, num_ctas)``; ``ValueError`` naming the bad argument."""
    for name, value in (("M", M), ("N", N)):
        _positive_int(name, value)
    _positive_int("K", K)
    if K % 8:
        raise ValueError(f"hopper_gemm: K={K} must be a multiple of 8 (TMA needs the row "
                         "stride of A and B, K * 2 bytes, to be a multiple of 16)")
    if epilogue not in EPILOGUES:
        raise ValueError(f"hopper_gemm: epilogue must be one of {EPILOGUES}, got {epilogue!r}")
    if epilogue == "tma" and N % 8:
        raise ValueError(f"hopper_gemm: N={N} must be a multiple of 8 with the TMA epilogue "
                         "(the row stride of C, N * 2 bytes, must be a multiple of 16)")
    if cluster not in (1, 2) or isinstance(cluster, bool):
        raise ValueError(f"hopper_gemm: cluster must be 1 or 2 CTAs, got {cluster!r}")
    most = max_stages(epilogue)
    if stages is None:
        stages = most
    if isinstance(stages, bool) or not isinstance(stages, int) or not 2 <= stages <= most:
        raise ValueError(f"hopper_gemm: stages must be 2..{most} with the {epilogue} epilogue "
                         f"(48 KB of shared memory each), got {stages!r}")
    num_ctas = DEFAULT_NUM_CTAS if num_ctas is None else num_ctas
    _positive_int("num_ctas", num_ctas, cluster)
    return stages, num_ctas


def hopper_gemm(M: int, N: int, K: int, stages: int | None = None,
                num_ctas: int | None = None, epilogue: str = "direct", cluster: int = 1):
    """The TIRx PrimFunc of ``C = A @ B^T`` (module docstring) for fixed sizes.

    Parameters
    ----------
    M, N, K : int
        Sizes. Any positive ``M`` and ``N``; ``K`` a multiple of 8 (TMA's 16-byte row
        stride). Edge tiles are handled: the TMA loads fill the out-of-bounds part of a box
        with zeros, and the epilogue clips (predicated stores, or the TMA store's own
        clipping).
    stages : int, optional
        Pipeline slots (48 KB of shared memory each): 2..4, 2..3 with ``epilogue="tma"``;
        default the most that fit (:func:`max_stages`).
    num_ctas : int, optional
        Persistent CTAs (the grid); default :data:`DEFAULT_NUM_CTAS`, never more than the
        output tiles need. With ``cluster=2`` it is rounded down to an even number.
    epilogue : str
        ``"direct"``: each thread stores its accumulators to global memory (4-byte stores of
        two fp16, 2-byte stores when ``N`` is odd); ``"tma"``: each consumer writes its
        ``64 x 256`` fp16 half-tile into a 128-byte-swizzled shared tile and one thread
        stores it with ``cp.async.bulk.tensor`` (``N`` a multiple of 8).
    cluster : int
        1, or 2: clusters of two CTAs on vertically adjacent output tiles (same columns);
        each CTA loads half of the shared ``256 x 64`` B tile and multicasts it to both
        (``.multicast::cluster``), so B is read from L2 once per cluster.

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

    stages, num_ctas = _check(M, N, K, stages, num_ctas, epilogue, cluster)
    tiles_m, tiles_n = -(-M // BLOCK_M), -(-N // BLOCK_N)
    k_tiles = -(-K // BLOCK_K)
    # work items: single tiles, or (with a cluster) column-aligned pairs of row-tiles
    items = -(-tiles_m // cluster) * tiles_n
    num_clusters = min(num_ctas // cluster, items)
    num_ctas = num_clusters * cluster
    even_m, even_n = M % BLOCK_M == 0, N % BLOCK_N == 0
    acc_regs = BLOCK_N // 2  # m64n256 f32: 128 accumulators per thread
    acc_layout = wgmma_accumulator_layout(BLOCK_N)
    half_m = BLOCK_M // _CONSUMERS
    half_n = BLOCK_N // cluster  # the rows of the B tile each CTA of a cluster loads
    # K-major tiles in 128-byte swizzle atoms (8 rows x 64 fp16), what TMA writes with
    # CU_TENSOR_MAP_SWIZZLE_128B and what the wgmma descriptors read
    sw128 = SwizzleMode.SWIZZLE_128B_ATOM
    a_layout = mma_shared_layout("float16", sw128, (stages, BLOCK_M, BLOCK_K))
    b_layout = mma_shared_layout("float16", sw128, (stages, BLOCK_N, BLOCK_K))
    c_layout = mma_shared_layout("float16", sw128, (_CONSUMERS, half_m, BLOCK_N))
    c_words_at = stages * _STAGE_BYTES // 4  # the shared C tile, in 32-bit words
    # the empty barrier of a slot completes when every consumer that reads it is done:
    # with a cluster, the peer CTA's consumers too (its multicast writes this CTA's slot)
    empty_count = _CONSUMERS * cluster
    mask = (1 << cluster) - 1

    @T.prim_func
    def gemm(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
        T.func_attr({"global_symbol": "hopper_gemm", "hopper_gemm.num_ctas": num_ctas,
                     "hopper_gemm.cluster": cluster, "hopper_gemm.epilogue": epilogue})
        A = T.match_buffer(A_ptr, (M, K), "float16")
        B = T.match_buffer(B_ptr, (N, K), "float16")
        C = T.match_buffer(C_ptr, (M, N), "float16")
        T.device_entry()
        T.attr({"tirx.launch_bounds_min_blocks_per_sm": 1})
        if cluster == 1:
            bx = T.cta_id([num_ctas])
        else:
            cid = T.cluster_id([num_clusters])
            rank = T.cta_id_in_cluster([cluster])
        wg = T.warpgroup_id([1 + _CONSUMERS])
        tid = T.thread_id_in_wg([128])
        pool = T.SMEMPool()
        As = pool.alloc((stages, BLOCK_M, BLOCK_K), "float16", align=1024, layout=a_layout)
        Bs = pool.alloc((stages, BLOCK_N, BLOCK_K), "float16", align=1024, layout=b_layout)
        if epilogue == "tma":
            Cs = pool.alloc((_CONSUMERS, half_m, BLOCK_N), "float16", align=1024,
                            layout=c_layout)
        # full: one expect_tx arrive + the TMA bytes; empty: one arrive per consumer, and it
        # starts "free" (phase offset 1: the producer's first pass does not wait)
        pipe = Pipeline(pool, stages, full="tma", empty="mbar", init_full=1,
                        init_empty=empty_count, empty_phase_offset=1)
        pool.commit()
        T.ptx.fence.mbarrier_init.release.cluster()
        if cluster == 1:
            T.cuda.cta_sync()
        else:
            # the peer's barriers are initialised before any multicast or remote arrive
            T.cuda.cluster_sync()
        with WarpgroupRole(wg, 0, regs=_PRODUCER_REGS):
            if tid == 0:  # one thread issues every TMA copy
                st = PipelineState(stages, 0)
                sched = ClusterPersistentScheduler2D(
                    "sched", num_m_tiles=tiles_m, num_n_tiles=tiles_n,
                    num_clusters=num_clusters, l2_group_size=_GROUP_M, cluster_m=cluster)
                if cluster == 1:
                    sched.init(bx)
                else:
                    sched.init(cid * cluster + rank)
                while sched.valid():
                    m0: T.let = sched.m_idx * BLOCK_M
                    n0: T.let = sched.n_idx * BLOCK_N
                    for k in T.serial(k_tiles):
                        pipe.empty.wait(st.stage, st.phase)
                        # the whole box counts, its zero-filled out-of-bounds part too
                        pipe.full.arrive(st.stage, tx_count=_STAGE_BYTES)
                        Tx.copy_async(As[st.stage, :, :],
                                      A[m0:m0 + BLOCK_M, k * BLOCK_K:k * BLOCK_K + BLOCK_K],
                                      dispatch="tma_auto", mbar=pipe.full.ptr_to([st.stage]))
                        if cluster == 1:
                            Tx.copy_async(Bs[st.stage, :, :],
                                          B[n0:n0 + BLOCK_N, k * BLOCK_K:k * BLOCK_K + BLOCK_K],
                                          dispatch="tma_auto",
                                          mbar=pipe.full.ptr_to([st.stage]))
                        else:
                            # this CTA's half of the B tile, into the same slot of both CTAs
                            Tx.copy_async(Bs[st.stage, rank * half_n:rank * half_n + half_n, :],
                                          B[n0 + rank * half_n:n0 + rank * half_n + half_n,
                                            k * BLOCK_K:k * BLOCK_K + BLOCK_K],
                                          dispatch="tma_auto",
                                          mbar=pipe.full.ptr_to([st.stage]), cta_mask=mask)
                        st.advance()
                    if cluster == 1:
                        sched.next_tile()
                    else:
                        sched.next_tile_stride(num_ctas)
        with WarpgroupRole(wg, (1, 1 + _CONSUMERS), regs=_CONSUMER_REGS, increase=True):
            acc = T.alloc_buffer((64, BLOCK_N), "float32", scope="local", layout=acc_layout)
            st = PipelineState(stages, 0)  # the slot to read next
            rel = PipelineState(stages, 0)  # the slot to release next
            sched = ClusterPersistentScheduler2D(
                "sched", num_m_tiles=tiles_m, num_n_tiles=tiles_n, num_clusters=num_clusters,
                l2_group_size=_GROUP_M, cluster_m=cluster)
            if cluster == 1:
                sched.init(bx)
            else:
                sched.init(cid * cluster + rank)
            while sched.valid():
                # this consumer's rows of the tile (a meta_var: the wgmma variant proves it a
                # multiple of 8)
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
                            if cluster == 1:
                                pipe.empty.arrive(rel.stage)
                            else:
                                for r in T.unroll(cluster):
                                    pipe.empty.arrive(rel.stage, remote=r)
                        rel.advance()
                    st.advance()
                T.ptx.wgmma.wait_group.sync.aligned(0)
                if tid == 0:
                    if cluster == 1:
                        pipe.empty.arrive(rel.stage)
                    else:
                        for r in T.unroll(cluster):
                            pipe.empty.arrive(rel.stage, remote=r)
                rel.advance()
                regs = acc.local(acc_regs)
                for i in T.unroll(acc_regs):
                    T.cuda.wgmma.noop_barrier(regs[i])
                # m64nNk16 accumulator fragment: register 4j+r of thread t holds row
                # 16*(t//32) + (t%32)//4 + 8*(r//2), column 8j + 2*(t%4) + r%2; each pair
                # (r = 0, 1) is packed into one f16x2 word (cvt puts its first source in the
                # upper half)
                packed = T.alloc_local((2,), "uint32")
                if epilogue == "tma":
                    # registers -> the consumer's swizzled half of Cs. Element (r, c) of a
                    # (64, 256) mma_shared_layout tile sits at 64-column block c // 64, line r,
                    # 16-byte chunk (c % 64) // 8 XOR r % 8 (the 128-byte swizzle); word
                    # j of a thread is chunk j % 8 of block j // 8, and r % 8 = lane // 4
                    Cw = T.decl_buffer((_CONSUMERS * half_m * BLOCK_N // 2,), "uint32",
                                       data=Cs.data, elem_offset=c_words_at, scope="shared.dyn")
                    line: T.let = (wg - 1) * (half_m * BLOCK_N // 2) + (
                        tid // 32 * 16 + tid % 32 // 4) * 32 + tid % 4
                    swz: T.let = tid % 32 // 4
                    if tid == 0:  # the previous tile's store has finished reading Cs
                        T.ptx.cp.async_.bulk.wait_group.read(0)
                    T.ptx.bar.sync(wg, 128)
                    for j in T.unroll(acc_regs // 4):
                        T.ptx["cvt.rn.f16x2.f32"](packed[0], regs[j * 4 + 1], regs[j * 4])
                        T.ptx["cvt.rn.f16x2.f32"](packed[1], regs[j * 4 + 3], regs[j * 4 + 2])
                        Cw[line + j // 8 * (half_m * 32) + ((j % 8) ^ swz) * 4] = packed[0]
                        Cw[line + j // 8 * (half_m * 32) + ((j % 8) ^ swz) * 4 + 8 * 32] = \
                            packed[1]  # row + 8: same swizzle (r % 8 unchanged)
                    # the threads' shared writes become visible to the TMA engine
                    T.ptx.fence.proxy.async_.shared__cta()
                    T.ptx.bar.sync(wg, 128)
                    if tid == 0:  # TMA clips the rows and columns past M and N
                        out_row: T.let = sched.m_idx * BLOCK_M + row0
                        out_col: T.let = sched.n_idx * BLOCK_N
                        Tx.copy_async(C[out_row:out_row + half_m, out_col:out_col + BLOCK_N],
                                      Cs[wg - 1, :, :], dispatch="tma_auto")
                        T.ptx.cp.async_.bulk.commit_group()
                elif N % 2 == 0:
                    # one 4-byte store per word through a uint32 view of C; edge tiles
                    # store only the rows below M and the columns below N
                    row: T.let = (sched.m_idx * BLOCK_M + row0 + tid // 32 * 16 + tid % 32 // 4)
                    col: T.let = sched.n_idx * BLOCK_N + tid % 4 * 2
                    word: T.let = row * (N // 2) + col // 2
                    C_words = T.decl_buffer((M * N // 2,), "uint32", data=C.data)
                    for j in T.unroll(acc_regs // 4):
                        T.ptx["cvt.rn.f16x2.f32"](packed[0], regs[j * 4 + 1], regs[j * 4])
                        T.ptx["cvt.rn.f16x2.f32"](packed[1], regs[j * 4 + 3], regs[j * 4 + 2])
                        if even_m and even_n:
                            C_words[word + j * 4] = packed[0]
                            C_words[word + 4 * N + j * 4] = packed[1]  # row + 8
                        else:
                            if (row < M) & (col + j * 8 < N):
                                C_words[word + j * 4] = packed[0]
                            if (row + 8 < M) & (col + j * 8 < N):
                                C_words[word + 4 * N + j * 4] = packed[1]
                else:
                    # odd N: rows are not 4-byte aligned; one predicated fp16 store each
                    row: T.let = (sched.m_idx * BLOCK_M + row0 + tid // 32 * 16 + tid % 32 // 4)
                    col: T.let = sched.n_idx * BLOCK_N + tid % 4 * 2
                    for j in T.unroll(acc_regs // 4):
                        for h in T.unroll(2):
                            for c in T.unroll(2):
                                if (row + h * 8 < M) & (col + j * 8 + c < N):
                                    C[row + h * 8, col + j * 8 + c] = T.Cast(
                                        "float16", regs[j * 4 + h * 2 + c])
                if cluster == 1:
                    sched.next_tile()
                else:
                    sched.next_tile_stride(num_ctas)
            if epilogue == "tma" and tid == 0:  # the last store is done before the CTA exits
                T.ptx.cp.async_.bulk.wait_group(0)
        if cluster == 2:
            # no CTA exits while its peer may still multicast into it or arrive on its
            # barriers
            T.cuda.cluster_sync()

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
    count of ``tvm.cuda(0)`` (:data:`DEFAULT_NUM_CTAS` without a GPU); ``stages``,
    ``epilogue`` and ``cluster`` are :func:`hopper_gemm`'s.
    """

    def __init__(self, M: int, N: int, K: int, stages: int | None = None,
                 num_ctas: int | None = None, epilogue: str = "direct", cluster: int = 1):
        import tvm  # lazy: tvm.examples sits above every layer

        self.shape = (M, N, K)
        self.func = hopper_gemm(M, N, K, stages,
                                _device_num_ctas() if num_ctas is None else num_ctas,
                                epilogue=epilogue, cluster=cluster)
        # the grid: one persistent CTA per SM, never more than the output tiles
        self.num_ctas = int(self.func.attrs["hopper_gemm.num_ctas"])
        self.epilogue, self.cluster = epilogue, cluster
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
    parser.add_argument("--epilogue", choices=EPILOGUES, default="direct",
                        help="direct stores or a TMA store (default direct)")
    parser.add_argument("--cluster", type=int, choices=(1, 2), default=1,
                        help="CTAs per cluster; 2 multicasts B (default 1)")
    parser.add_argument("--print-source", action="store_true", help="print the CUDA source")
    args = parser.parse_args(argv)
    n = args.size
    gemm = HopperGemm(n, n, n, epilogue=args.epilogue, cluster=args.cluster)
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
