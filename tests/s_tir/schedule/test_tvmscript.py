"""Before/After tests in TVMScript: each schedule applied to a parsed function gives the
parsed expected function (structural equality). The expected functions are what Apache TVM
0.27 prints for the same schedules."""

import pytest

from tvm import s_tir
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T

# ruff: noqa: F841 - TVMScript blocks define axes they do not use, as TVM prints them.


@T.prim_func(s_tir=True)
def elemwise(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    B = T.sblock_alloc_buffer((16, 12))
    for i, j in T.grid(16, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(16, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)


@T.prim_func(s_tir=True)
def matmul(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vj, vk])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


@T.prim_func(s_tir=True)
def rowsum(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16,), "float32")):
    B = T.sblock_alloc_buffer((16, 12))
    for i, j in T.grid(16, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, k in T.grid(16, 12):
        with T.sblock("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(B[vi, vk])
            T.writes(C[vi])
            with T.init():
                C[vi] = T.float32(0.0)
            C[vi] = C[vi] + B[vi, vk]


@T.prim_func(s_tir=True)
def transpose(A: T.Buffer((16, 12), "float32"), C: T.Buffer((12, 16), "float32")):
    B = T.sblock_alloc_buffer((16, 12))
    for i, j in T.grid(16, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(12, 16):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vj, vi])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vj, vi] + T.float32(1.0)


@T.prim_func(s_tir=True)
def padded(A: T.Buffer((4, 9), "float32"), C: T.Buffer((4, 11), "float32")):
    P = T.sblock_alloc_buffer((4, 11))
    for i, j in T.grid(4, 11):
        with T.sblock("P"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj - 1])
            T.writes(P[vi, vj])
            P[vi, vj] = T.if_then_else(1 <= vj < 10, A[vi, vj - 1], T.float32(0.0))
    for i, j in T.grid(4, 11):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(P[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = P[vi, vj] * T.float32(2.0)


@T.prim_func(s_tir=True)
def stencil(A: T.Buffer((18,), "float32"), C: T.Buffer((16,), "float32")):
    B = T.sblock_alloc_buffer((18,))
    for i in range(18):
        with T.sblock("B"):
            vi = T.axis.spatial(18, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] * T.float32(2.0)
    for i in range(16):
        with T.sblock("C"):
            vi = T.axis.spatial(16, i)
            T.reads(B[vi:vi + 3])
            T.writes(C[vi])
            C[vi] = B[vi] + B[vi + 1] + B[vi + 2]


@T.prim_func(s_tir=True)
def expected_compute_inline(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    for i, j in T.grid(16, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_reverse_compute_inline(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    for i, j in T.grid(16, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_split_reorder(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    # with T.sblock("root"):
    for i_0, j, i_1, k in T.grid(4, 128, 32, 128):
        with T.sblock("C"):
            vi = T.axis.spatial(128, i_0 * 32 + i_1)
            vj, vk = T.axis.remap("SR", [j, k])
            T.reads(A[vi, vk], B[vj, vk])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


@T.prim_func(s_tir=True)
def expected_fuse_split(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    for i_j_fused_0, i_j_fused_1 in T.grid(39, 5):
        with T.sblock("B"):
            vi = T.axis.spatial(16, (i_j_fused_0 * 5 + i_j_fused_1) // 12)
            vj = T.axis.spatial(12, (i_j_fused_0 * 5 + i_j_fused_1) % 12)
            T.where(i_j_fused_0 * 5 + i_j_fused_1 < 192)
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(16, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_compute_at(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    for i in range(16):
        for ax0 in range(12):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, ax0])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for k in range(12):
            with T.sblock("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(B[vi, vk])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(0.0)
                C[vi] = C[vi] + B[vi, vk]


@T.prim_func(s_tir=True)
def expected_reverse_compute_at(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    for i_0 in range(4):
        for i_1, j in T.grid(4, 12):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i_0 * 4 + i_1)
                vj = T.axis.spatial(12, j)
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for ax0, ax1 in T.grid(4, 12):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i_0 * 4 + ax0)
                vj = T.axis.spatial(12, ax1)
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_cache_read_write(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    B_shared = T.sblock_alloc_buffer((16, 12), scope="shared")
    C_local = T.sblock_alloc_buffer((16,), scope="local")
    for i, j in T.grid(16, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for ax0, ax1 in T.grid(16, 12):
        with T.sblock("B_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(B[v0, v1])
            T.writes(B_shared[v0, v1])
            B_shared[v0, v1] = B[v0, v1]
    for i, k in T.grid(16, 12):
        with T.sblock("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(B_shared[vi, vk])
            T.writes(C_local[vi])
            with T.init():
                C_local[vi] = T.float32(0.0)
            C_local[vi] = C_local[vi] + B_shared[vi, vk]
    for ax0 in range(16):
        with T.sblock("C_local"):
            v0 = T.axis.spatial(16, ax0)
            T.reads(C_local[v0])
            T.writes(C[v0])
            C[v0] = C_local[v0]


@T.prim_func(s_tir=True)
def expected_decompose_reduction(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    # with T.sblock("root"):
    for i, j in T.grid(128, 128):
        with T.sblock("C_init"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads()
            T.writes(C[vi, vj])
            C[vi, vj] = T.float32(0.0)
        for k in range(128):
            with T.sblock("C_update"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(C[vi, vj], A[vi, vk], B[vj, vk])
                T.writes(C[vi, vj])
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


@T.prim_func(s_tir=True)
def expected_rfactor(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    C_rf = T.sblock_alloc_buffer((16, 4))
    for i, j in T.grid(16, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, k_0, k_1 in T.grid(16, 3, 4):
        with T.sblock("C_rf"):
            vk_1, vi, vk_0 = T.axis.remap("SSR", [k_1, i, k_0])
            T.reads(B[vi, vk_0 * 4 + vk_1])
            T.writes(C_rf[vi, vk_1])
            with T.init():
                C_rf[vi, vk_1] = T.float32(0.0)
            C_rf[vi, vk_1] = C_rf[vi, vk_1] + B[vi, vk_0 * 4 + vk_1]
    for i, k_1 in T.grid(16, 4):
        with T.sblock("C"):
            vk_1, vi = T.axis.remap("RS", [k_1, i])
            T.reads(C_rf[vi, vk_1])
            T.writes(C[vi])
            with T.init():
                C[vi] = T.float32(0.0)
            C[vi] = C[vi] + C_rf[vi, vk_1]


@T.prim_func(s_tir=True)
def expected_blockize(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    # with T.sblock("root"):
    for i_0, j_0 in T.grid(8, 8):
        with T.sblock("C_o"):
            vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
            vk_o = T.axis.reduce(1, 0)
            T.reads(A[vi_o * 16:vi_o * 16 + 16, 0:128], B[vj_o * 16:vj_o * 16 + 16, 0:128])
            T.writes(C[vi_o * 16:vi_o * 16 + 16, vj_o * 16:vj_o * 16 + 16])
            with T.init():
                for i_1, j_1 in T.grid(16, 16):
                    with T.sblock("C_init"):
                        vi_i_init, vj_i_init = T.axis.remap("SS", [i_1, j_1])
                        T.reads()
                        T.writes(C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init])
                        C[vi_o * 16 + vi_i_init, vj_o * 16 + vj_i_init] = T.float32(0.0)
            for i_1, j_1, k in T.grid(16, 16, 128):
                with T.sblock("C"):
                    vi_i, vj_i, vk_i = T.axis.remap("SSR", [i_1, j_1, k])
                    T.reads(C[vi_o * 16 + vi_i, vj_o * 16 + vj_i], A[vi_o * 16 + vi_i, vk_i], B[vj_o * 16 + vj_i, vk_i])
                    T.writes(C[vi_o * 16 + vi_i, vj_o * 16 + vj_i])
                    C[vi_o * 16 + vi_i, vj_o * 16 + vj_i] = C[vi_o * 16 + vi_i, vj_o * 16 + vj_i] + A[vi_o * 16 + vi_i, vk_i] * B[vj_o * 16 + vj_i, vk_i]


@T.prim_func(s_tir=True)
def expected_loop_kinds(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    for i in T.parallel(16):
        for j in T.vectorized(12):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i in T.thread_binding(16, thread="blockIdx.x"):
        for j in T.thread_binding(12, thread="threadIdx.x"):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_merge(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    for i_m in range(16):
        for j in range(12):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i_m, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for j in range(12):
            with T.sblock("C"):
                vi, vj = T.axis.remap("SS", [i_m, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_storage(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    B_shared = T.sblock_alloc_buffer((16, 12), "float16", scope="shared")
    for i, j in T.grid(16, 12):
        with T.sblock("B"):
            vj, vi = T.axis.remap("SS", [j, i])
            T.reads(A[vi, vj])
            T.writes(B_shared[vi, vj])
            T.sblock_attr({"buffer_dim_align": [[0, 0, 16, 1]]})
            B_shared[vi, vj] = T.Cast("float16", A[vi, vj] * T.float32(2.0))
    for i, k in T.grid(16, 12):
        with T.sblock("C"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(B_shared[vi, vk])
            T.writes(C[vi])
            with T.init():
                C[vi] = T.float32(0.0)
            C[vi] = C[vi] + T.Cast("float32", B_shared[vi, vk])


@T.prim_func(s_tir=True)
def expected_annotate_unit_loop(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    for i in T.serial(16, annotations={"pragma_auto_unroll_max_step": 16}):
        for j, u in T.grid(12, 1):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                T.sblock_attr({"meta_schedule.tiling_structure": "SSRSRS"})
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(16, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_nested_cache_read(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    B_local = T.sblock_alloc_buffer((16, 12), scope="local")
    for i in range(16):
        for ax0 in range(12):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, ax0])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for ax0, ax1 in T.grid(1, 12):
            with T.sblock("B_local"):
                v0 = T.axis.spatial(16, i + ax0)
                v1 = T.axis.spatial(12, ax1)
                T.reads(B[v0, v1])
                T.writes(B_local[v0, v1])
                B_local[v0, v1] = B[v0, v1]
        for k in range(12):
            with T.sblock("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(B_local[vi, vk])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(0.0)
                C[vi] = C[vi] + B_local[vi, vk]


@T.prim_func(s_tir=True)
def expected_gemm(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    # with T.sblock("root"):
    A_shared = T.sblock_alloc_buffer((128, 128), scope="shared")
    B_shared = T.sblock_alloc_buffer((128, 128), scope="shared")
    C_local = T.sblock_alloc_buffer((128, 128), scope="local")
    for i_0 in T.thread_binding(4, thread="blockIdx.x"):
        for j_0 in T.thread_binding(4, thread="threadIdx.y"):
            for i_1_init, j_1_init in T.grid(32, 32):
                with T.sblock("C_init"):
                    vi = T.axis.spatial(128, i_0 * 32 + i_1_init)
                    vj = T.axis.spatial(128, j_0 * 32 + j_1_init)
                    T.reads()
                    T.writes(C_local[vi, vj])
                    C_local[vi, vj] = T.float32(0.0)
            for k_0 in range(8):
                for ax0, ax1 in T.grid(32, 16):
                    with T.sblock("A_shared"):
                        v0 = T.axis.spatial(128, i_0 * 32 + ax0)
                        v1 = T.axis.spatial(128, k_0 * 16 + ax1)
                        T.reads(A[v0, v1])
                        T.writes(A_shared[v0, v1])
                        A_shared[v0, v1] = A[v0, v1]
                for ax0, ax1 in T.grid(128, 16):
                    with T.sblock("B_shared"):
                        v0 = T.axis.spatial(128, ax0)
                        v1 = T.axis.spatial(128, k_0 * 16 + ax1)
                        T.reads(B[v0, v1])
                        T.writes(B_shared[v0, v1])
                        B_shared[v0, v1] = B[v0, v1]
                for i_1, j_1, k_1 in T.grid(32, 32, 16):
                    with T.sblock("C_update"):
                        vi = T.axis.spatial(128, i_0 * 32 + i_1)
                        vj = T.axis.spatial(128, j_0 * 32 + j_1)
                        vk = T.axis.reduce(128, k_0 * 16 + k_1)
                        T.reads(C_local[vi, vj], A_shared[vi, vk], B_shared[vj, vk])
                        T.writes(C_local[vi, vj])
                        C_local[vi, vj] = C_local[vi, vj] + A_shared[vi, vk] * B_shared[vj, vk]
            for ax0, ax1 in T.grid(32, 32):
                with T.sblock("C_local"):
                    v0 = T.axis.spatial(128, i_0 * 32 + ax0)
                    v1 = T.axis.spatial(128, j_0 * 32 + ax1)
                    T.reads(C_local[v0, v1])
                    T.writes(C[v0, v1])
                    C[v0, v1] = C_local[v0, v1]


@T.prim_func(s_tir=True)
def expected_split_fuse_unit(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    for i_0, i_1_i_2_j_fused in T.grid(1, 192):
        with T.sblock("B"):
            vi = T.axis.spatial(16, i_1_i_2_j_fused // 12)
            vj = T.axis.spatial(12, i_1_i_2_j_fused % 12)
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j in T.grid(16, 12):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = B[vi, vj] + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_rinline_transpose(A: T.Buffer((16, 12), "float32"), C: T.Buffer((12, 16), "float32")):
    # with T.sblock("root"):
    for i, j in T.grid(16, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(C[vj, vi])
            C[vj, vi] = A[vi, vj] * T.float32(2.0) + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_decompose_padding(A: T.Buffer((4, 9), "float32"), C: T.Buffer((4, 11), "float32")):
    # with T.sblock("root"):
    P = T.sblock_alloc_buffer((4, 11))
    for i in range(4):
        for j in range(11):
            with T.sblock("P_pad_const"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads()
                T.writes(P[vi, vj])
                P[vi, vj] = T.float32(0.0)
        for j in range(9):
            with T.sblock("P"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(P[vi, vj + 1])
                P[vi, vj + 1] = A[vi, vj]
    for i, j in T.grid(4, 11):
        with T.sblock("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(P[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = P[vi, vj] * T.float32(2.0)


@T.prim_func(s_tir=True)
def expected_stencil_compute_at(A: T.Buffer((18,), "float32"), C: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((18,))
    for i_0 in range(4):
        for ax0 in range(6):
            with T.sblock("B"):
                vi = T.axis.spatial(18, i_0 * 4 + ax0)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2.0)
        for i_1 in range(4):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i_0 * 4 + i_1)
                T.reads(B[vi:vi + 3])
                T.writes(C[vi])
                C[vi] = B[vi] + B[vi + 1] + B[vi + 2]


@T.prim_func(s_tir=True)
def expected_rfactor_matmul(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    # with T.sblock("root"):
    C_rf = T.sblock_alloc_buffer((16, 128, 128))
    for i, j, k_0, k_1 in T.grid(128, 128, 16, 8):
        with T.sblock("C_rf"):
            vk_0, vi, vj, vk_1 = T.axis.remap("SSSR", [k_0, i, j, k_1])
            T.reads(A[vi, vk_0 * 8 + vk_1], B[vj, vk_0 * 8 + vk_1])
            T.writes(C_rf[vk_0, vi, vj])
            with T.init():
                C_rf[vk_0, vi, vj] = T.float32(0.0)
            C_rf[vk_0, vi, vj] = C_rf[vk_0, vi, vj] + A[vi, vk_0 * 8 + vk_1] * B[vj, vk_0 * 8 + vk_1]
    for i, j, k_0 in T.grid(128, 128, 16):
        with T.sblock("C"):
            vk_0, vi, vj = T.axis.remap("RSS", [k_0, i, j])
            T.reads(C_rf[vk_0, vi, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + C_rf[vk_0, vi, vj]


@T.prim_func(s_tir=True)
def expected_fuse3(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    # with T.sblock("root"):
    for k, i_j_fused_2, i_j_fused_1, i_j_fused_0 in T.grid(128, 4, 8, 512):
        with T.sblock("C"):
            vi = T.axis.spatial(128, (i_j_fused_0 * 32 + i_j_fused_1 * 4 + i_j_fused_2) // 128)
            vj = T.axis.spatial(128, (i_j_fused_0 * 32 + i_j_fused_1 * 4 + i_j_fused_2) % 128)
            vk = T.axis.reduce(128, k)
            T.reads(A[vi, vk], B[vj, vk])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vj, vk]


@T.prim_func(s_tir=True)
def expected_cross_thread(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    for i in T.thread_binding(16, thread="blockIdx.x"):
        for k in T.thread_binding(12, thread="threadIdx.x"):
            with T.sblock("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(0.0)
                C[vi] = C[vi] + A[vi, vk] * T.float32(2.0)


@T.prim_func(s_tir=True)
def expected_blockize_elem(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    for i, j in T.grid(16, 12):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vi, vj] * T.float32(2.0)
    for i, j_0 in T.grid(16, 3):
        with T.sblock("C_o"):
            vi_o, vj_o = T.axis.remap("SS", [i, j_0])
            T.reads(B[vi_o, vj_o * 4:vj_o * 4 + 4])
            T.writes(C[vi_o, vj_o * 4:vj_o * 4 + 4])
            for j_1 in range(4):
                with T.sblock("C"):
                    vj_i = T.axis.spatial(4, j_1)
                    T.reads(B[vi_o, vj_o * 4 + vj_i])
                    T.writes(C[vi_o, vj_o * 4 + vj_i])
                    C[vi_o, vj_o * 4 + vj_i] = B[vi_o, vj_o * 4 + vj_i] + T.float32(1.0)


@T.prim_func(s_tir=True)
def expected_cache_write_tile(A: T.Buffer((16, 12), "float32"), C: T.Buffer((16, 12), "float32")):
    # with T.sblock("root"):
    B = T.sblock_alloc_buffer((16, 12))
    B_local = T.sblock_alloc_buffer((16, 12), scope="local")
    for i_0 in range(4):
        for ax0, ax1 in T.grid(4, 12):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i_0 * 4 + ax0)
                vj = T.axis.spatial(12, ax1)
                T.reads(A[vi, vj])
                T.writes(B_local[vi, vj])
                B_local[vi, vj] = A[vi, vj] * T.float32(2.0)
        for ax0, ax1 in T.grid(4, 12):
            with T.sblock("B_local"):
                v0 = T.axis.spatial(16, i_0 * 4 + ax0)
                v1 = T.axis.spatial(12, ax1)
                T.reads(B_local[v0, v1])
                T.writes(B[v0, v1])
                B[v0, v1] = B_local[v0, v1]
        for i_1, j in T.grid(4, 12):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i_0 * 4 + i_1)
                vj = T.axis.spatial(12, j)
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)


def _compute_inline(sch):
    sch.compute_inline(sch.get_sblock("B"))


def _reverse_compute_inline(sch):
    sch.reverse_compute_inline(sch.get_sblock("C"))


def _split_reorder(sch):
    i, j, _k = sch.get_loops(sch.get_sblock("C"))
    io, ii = sch.split(i, [None, 32])
    sch.reorder(io, j, ii)


def _fuse_split(sch):
    i, j = sch.get_loops(sch.get_sblock("B"))
    f = sch.fuse(i, j)
    sch.split(f, [None, 5])


def _compute_at(sch):
    sch.compute_at(sch.get_sblock("B"), sch.get_loops(sch.get_sblock("C"))[0])


def _reverse_compute_at(sch):
    i, _j = sch.get_loops(sch.get_sblock("B"))
    io, _ii = sch.split(i, [None, 4])
    sch.reverse_compute_at(sch.get_sblock("C"), io)


def _cache_read_write(sch):
    sch.cache_read(sch.get_sblock("C"), 0, "shared")
    sch.cache_write(sch.get_sblock("C"), 0, "local")


def _decompose_reduction(sch):
    _i, _j, k = sch.get_loops(sch.get_sblock("C"))
    sch.decompose_reduction(sch.get_sblock("C"), k)


def _rfactor(sch):
    _i, k = sch.get_loops(sch.get_sblock("C"))
    _ko, ki = sch.split(k, [None, 4])
    sch.rfactor(ki, 1)


def _blockize(sch):
    i, j, _k = sch.get_loops(sch.get_sblock("C"))
    io, ii = sch.split(i, [None, 16])
    jo, ji = sch.split(j, [None, 16])
    sch.reorder(io, jo, ii, ji)
    sch.blockize(ii)


def _parallel_vectorize_bind(sch):
    i, j = sch.get_loops(sch.get_sblock("B"))
    sch.parallel(i)
    sch.vectorize(j)
    i, j = sch.get_loops(sch.get_sblock("C"))
    sch.bind(i, "blockIdx.x")
    sch.bind(j, "threadIdx.x")


def _merge(sch):
    sch.merge(sch.get_loops(sch.get_sblock("B"))[0], sch.get_loops(sch.get_sblock("C"))[0])


def _storage(sch):
    b = sch.get_sblock("B")
    sch.set_scope(b, 0, "shared")
    sch.reorder_block_iter_var(b, [1, 0])
    sch.storage_align(b, 0, axis=0, factor=16, offset=1)
    sch.unsafe_set_dtype(b, 0, "float16")


def _annotate_unit_loop(sch):
    b = sch.get_sblock("B")
    i, _j = sch.get_loops(b)
    sch.annotate(i, "pragma_auto_unroll_max_step", 16)
    sch.annotate(b, "meta_schedule.tiling_structure", "SSRSRS")
    sch.add_unit_loop(b)


def _nested_cache_read(sch):
    sch.compute_at(sch.get_sblock("B"), sch.get_loops(sch.get_sblock("C"))[0])
    sch.cache_read(sch.get_sblock("C"), 0, "local")


def _gemm(sch):
    c = sch.get_sblock("C")
    i, j, k = sch.get_loops(c)
    io, ii = sch.split(i, [None, 32])
    jo, ji = sch.split(j, [None, 32])
    ko, ki = sch.split(k, [None, 16])
    sch.reorder(io, jo, ko, ii, ji, ki)
    sch.bind(io, "blockIdx.x")
    sch.bind(jo, "threadIdx.y")
    a_sh = sch.cache_read(c, 0, "shared")
    b_sh = sch.cache_read(c, 1, "shared")
    sch.compute_at(a_sh, ko)
    sch.compute_at(b_sh, ko)
    cl = sch.cache_write(c, 0, "local")
    sch.reverse_compute_at(cl, jo)
    sch.decompose_reduction(c, ko)


def _split_fuse_unit(sch):
    i, j = sch.get_loops(sch.get_sblock("B"))
    _a, b, c = sch.split(i, [1, 4, None], preserve_unit_iters=False)
    sch.fuse(b, c, j, preserve_unit_iters=False)


def _rinline_transpose(sch):
    sch.reverse_compute_inline(sch.get_sblock("C"))


def _decompose_padding(sch):
    sch.decompose_padding(sch.get_sblock("P"), sch.get_loops(sch.get_sblock("P"))[1])


def _stencil_compute_at(sch):
    i, = sch.get_loops(sch.get_sblock("C"))
    io, _ii = sch.split(i, [None, 4])
    sch.compute_at(sch.get_sblock("B"), io)


def _rfactor_matmul(sch):
    _i, _j, k = sch.get_loops(sch.get_sblock("C"))
    ko, _ki = sch.split(k, [None, 8])
    sch.rfactor(ko, 0)


def _fuse3(sch):
    i, j, k = sch.get_loops(sch.get_sblock("C"))
    sch.reorder(k, i, j)
    f = sch.fuse(i, j)
    a, _b, c = sch.split(f, [None, 8, 4])
    sch.reorder(c, a)


def _cross_thread(sch):
    i, k = sch.get_loops(sch.get_sblock("C"))
    sch.bind(k, "threadIdx.x")
    sch.bind(i, "blockIdx.x")
    sch.compute_inline(sch.get_sblock("B"))


def _blockize_elem(sch):
    _i, j = sch.get_loops(sch.get_sblock("C"))
    _jo, ji = sch.split(j, [None, 4])
    sch.blockize(ji)


def _cache_write_tile(sch):
    i, _j = sch.get_loops(sch.get_sblock("C"))
    io, _ii = sch.split(i, [None, 4])
    sch.compute_at(sch.get_sblock("B"), io)
    sch.cache_write(sch.get_sblock("B"), 0, "local")



CASES = [
    ("compute_inline", elemwise, _compute_inline, expected_compute_inline),
    ("reverse_compute_inline", elemwise, _reverse_compute_inline, expected_reverse_compute_inline),
    ("split_reorder", matmul, _split_reorder, expected_split_reorder),
    ("fuse_split", elemwise, _fuse_split, expected_fuse_split),
    ("compute_at", rowsum, _compute_at, expected_compute_at),
    ("reverse_compute_at", elemwise, _reverse_compute_at, expected_reverse_compute_at),
    ("cache_read_write", rowsum, _cache_read_write, expected_cache_read_write),
    ("decompose_reduction", matmul, _decompose_reduction, expected_decompose_reduction),
    ("rfactor", rowsum, _rfactor, expected_rfactor),
    ("blockize", matmul, _blockize, expected_blockize),
    ("loop_kinds", elemwise, _parallel_vectorize_bind, expected_loop_kinds),
    ("merge", elemwise, _merge, expected_merge),
    ("storage", rowsum, _storage, expected_storage),
    ("annotate_unit_loop", elemwise, _annotate_unit_loop, expected_annotate_unit_loop),
    ("nested_cache_read", rowsum, _nested_cache_read, expected_nested_cache_read),
    ("gemm", matmul, _gemm, expected_gemm),
    ("split_fuse_unit", elemwise, _split_fuse_unit, expected_split_fuse_unit),
    ("rinline_transpose", transpose, _rinline_transpose, expected_rinline_transpose),
    ("decompose_padding", padded, _decompose_padding, expected_decompose_padding),
    ("stencil_compute_at", stencil, _stencil_compute_at, expected_stencil_compute_at),
    ("rfactor_matmul", matmul, _rfactor_matmul, expected_rfactor_matmul),
    ("fuse3", matmul, _fuse3, expected_fuse3),
    ("cross_thread", rowsum, _cross_thread, expected_cross_thread),
    ("blockize_elem", elemwise, _blockize_elem, expected_blockize_elem),
    ("cache_write_tile", elemwise, _cache_write_tile, expected_cache_write_tile),
]


def _strip(func):
    return func.without_attr("global_symbol") if func.attrs and "global_symbol" in func.attrs else func


@pytest.mark.parametrize("name, before, schedule, expected", CASES, ids=[c[0] for c in CASES])
def test_schedule_gives_the_expected_function(wl, name, before, schedule, expected):
    sch = s_tir.Schedule(before)
    schedule(sch)
    assert_structural_equal(_strip(sch.mod["main"]), _strip(expected))
    wl.assert_replays(sch, before)


@T.prim_func(s_tir=True)
def two_blocks_named_b(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    B = T.sblock_alloc_buffer((4,))
    for i in range(4):
        with T.sblock("B"):
            vi = T.axis.spatial(4, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] + T.float32(1.0)
    for i in range(4):
        with T.sblock("B"):
            vi = T.axis.spatial(4, i)
            T.reads(B[vi])
            T.writes(C[vi])
            C[vi] = B[vi] * T.float32(2.0)


def test_a_name_shared_by_two_blocks_is_reported():
    sch = s_tir.Schedule(two_blocks_named_b, error_render_level="fast")
    with pytest.raises(s_tir.ScheduleError, match="Found 2 blocks with the name: B"):
        sch.get_sblock("B")
