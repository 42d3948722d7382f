"""One-warpgroup wgmma tiles for the variants of ``Tx.wg.gemm_async``: tf32, fp8 (e4m3 /
e5m2) and an MN-major (``transB``) B, each ``C[64, N] = A[64, K] @ B^T`` in float32.

:func:`wgmma_tile` is one CTA of 128 threads: one thread loads A and B with TMA
(``Tx.copy_async(..., dispatch="tma_auto")``) into 128-byte-swizzled shared tiles laid out by
``mma_shared_layout``, all wait on the mbarrier, the warpgroup runs ``Tx.wg.gemm_async``
(the ``wgmma`` variant: ``k8`` for tf32, ``k32`` for fp8, ``k16`` with ``imm-trans-b = 1``
for the MN-major B) and every thread stores its accumulator fragment to C. B is ``(N, K)``
(K-major) or, with ``trans_b=True``, ``(K, N)`` (N contiguous, 16-bit dtypes only).

These kernels compile for sm_90a here (tests/examples/test_hopper_gemm_variants.py runs
them through nvcc); ``benchmarks/gpu_check.py`` runs them against ``torch.matmul`` on a
Hopper GPU. **No GPU run has happened yet.**
"""

from __future__ import annotations

__all__ = ["VARIANTS", "WgmmaTile", "wgmma_tile"]

#: The variants gpu_check runs: (name, dtype, N, K, trans_b).
VARIANTS = [
    ("tf32", "float32", 128, 64, False),
    ("fp8_e4m3", "float8_e4m3fn", 256, 256, False),
    ("fp8_e5m2", "float8_e5m2", 64, 128, False),
    ("f16_mn_major_b", "float16", 128, 128, True),
    ("bf16_mn_major_b", "bfloat16", 256, 64, True),
]


def wgmma_tile(dtype: str, N: int, K: int, trans_b: bool = False):
    """The PrimFunc ``wgmma_tile(A, B, C)`` (module docstring).

    ``K * element size`` must be a multiple of 128 bytes (whole swizzle lines), ``N`` a
    multiple of 8 in 8..256 (a multiple of the 128-byte line with ``trans_b``).
    """
    # lazy imports: tvm.examples sits above every layer and `import tvm` must stay fast
    from ..backend.cuda.tile_primitive.gemm_async import wgmma_accumulator_layout
    from ..runtime.data_type import DataType
    from ..script import tirx as T
    from ..script.tirx import tile as Tx
    from ..tirx.layout import SwizzleMode, mma_shared_layout

    eb = DataType(dtype).bits // 8
    sw = SwizzleMode.SWIZZLE_128B_ATOM
    if (K * eb) % 128 or N % 8 or not 8 <= N <= 256:
        raise ValueError(f"wgmma_tile: K={K} ({dtype}) must span whole 128-byte lines and "
                         f"N={N} be a multiple of 8 in 8..256")
    b_shape = (K, N) if trans_b else (N, K)
    if trans_b and (N * eb) % 128:
        raise ValueError(f"wgmma_tile: an MN-major B needs N={N} in whole 128-byte lines")
    a_layout = mma_shared_layout(dtype, sw, (64, K))
    b_layout = mma_shared_layout(dtype, sw, b_shape)
    acc_layout = wgmma_accumulator_layout(N)
    nbytes = (64 * K + N * K) * eb

    @T.prim_func
    def tile(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
        T.func_attr({"global_symbol": "wgmma_tile"})
        A = T.match_buffer(A_ptr, (64, K), dtype)
        B = T.match_buffer(B_ptr, b_shape, dtype)
        C = T.match_buffer(C_ptr, (64, N), "float32")
        T.device_entry()
        bx = T.cta_id([1])  # noqa: F841 - the scope id defines the grid
        wg = T.warpgroup_id([1])  # noqa: F841
        tid = T.thread_id_in_wg([128])
        pool = T.SMEMPool()
        As = pool.alloc((64, K), dtype, align=1024, layout=a_layout)
        Bs = pool.alloc(b_shape, dtype, align=1024, layout=b_layout)
        bar = pool.alloc((1,), "uint64", align=8)
        pool.commit()
        if tid == 0:
            T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.cuda.cta_sync()
        if tid == 0:
            T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32(nbytes))
            Tx.copy_async(As[:, :], A[:, :], dispatch="tma_auto", mbar=bar.ptr_to([0]))
            Tx.copy_async(Bs[:, :], B[:, :], dispatch="tma_auto", mbar=bar.ptr_to([0]))
        T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
        acc = T.alloc_buffer((64, N), "float32", scope="local", layout=acc_layout)
        if trans_b:
            Tx.wg.gemm_async(acc, As[:, :], Bs[:, :], False, True, False, dispatch="wgmma")
        else:
            Tx.wg.gemm_async(acc, As[:, :], Bs[:, :], False, False, False, dispatch="wgmma")
        T.ptx.wgmma.wait_group.sync.aligned(0)
        regs = acc.local(N // 2)
        # register 4j + 2h + c of thread t: row 16 (t // 32) + (t % 32) // 4 + 8h,
        # column 8j + 2 (t % 4) + c
        row: T.let = tid // 32 * 16 + tid % 32 // 4
        col: T.let = tid % 4 * 2
        for j in T.unroll(N // 8):
            for h in T.unroll(2):
                for c in T.unroll(2):
                    C[row + h * 8, col + j * 8 + c] = regs[j * 4 + h * 2 + c]

    return tile


class WgmmaTile:
    """:func:`wgmma_tile` compiled for sm_90a; ``tile(a, b, c)`` runs it (Hopper GPU)."""

    def __init__(self, dtype: str, N: int, K: int, trans_b: bool = False):
        import tvm  # lazy: tvm.examples sits above every layer

        self.dtype, self.N, self.K, self.trans_b = dtype, N, K, trans_b
        self.func = wgmma_tile(dtype, N, K, trans_b)
        self.executable = tvm.compile(self.func, target={"kind": "cuda", "arch": "sm_90a"},
                                      tir_pipeline="tirx")

    def source(self) -> str:
        """The generated CUDA source."""
        return self.executable.mod.imports[0].inspect_source()

    def __call__(self, a, b, c):
        self.executable["wgmma_tile"](a, b, c)
