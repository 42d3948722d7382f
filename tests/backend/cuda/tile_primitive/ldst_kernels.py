# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)
"""Kernels for the ldstmatrix copy variant: a 16-bit tile goes global -> shared -> registers
(``Tx.warp.copy(R, S)``, ldmatrix) or global -> registers -> shared (``stmatrix``) and back to
global, so the output equals the input when the fragment order is right."""

from tvm.script.tirx import tile as Tx

from tvm.script import tirx as T
from tvm.tirx.layout import ComposeLayout, S, TileLayout, laneid, tid_in_wg


def r_layout(num, scope):
    if scope == "warp":
        return TileLayout(S[(8, 4, num, 2):(4 @ laneid, 1 @ laneid, 2, 1)])
    return TileLayout(S[(4, 8, 4, num, 2):(32 @ tid_in_wg, 4 @ tid_in_wg, 1 @ tid_in_wg, 2, 1)])


def s_layout(num, trans, scope, swizzle=False):
    if scope == "warp":
        tile = (TileLayout(S[(8, 4, num, 2):(num * 8, 2, 8, 1)]) if not trans
                else TileLayout(S[(8, 4, num, 2):(1, 2 * num * 8, 8, num * 8)]))
    else:
        tile = (TileLayout(S[(4, 8, 4, num, 2):(64 * num, num * 8, 2, 8, 1)]) if not trans
                else TileLayout(S[(4, 8, 4, num, 2):(64 * num, 1, 16 * num, 8, 8 * num)]))
    return ComposeLayout(3, 3, 3, tile) if swizzle else tile


def warp_kernel(num, direction, trans, swizzle=False, dtype="float16"):
    """A (8, 8 * num) tile; thread (row, cp) holds elements (row, t*8 + cp*2 + w)
    (transposed: (cp*2 + w, row + t*8))."""
    rl, sl = r_layout(num, "warp"), s_layout(num, trans, "warp", swizzle)
    shape = (8, 4, num, 2)
    M, N = 8, num * 8

    def coord(row, cp, t, w):
        return (row, t * 8 + cp * 2 + w) if not trans else (cp * 2 + w, row + t * 8)

    if direction == "ld":
        @T.prim_func
        def kernel(A: T.Buffer((M, N), dtype), B: T.Buffer((M, N), dtype)):
            T.device_entry()
            T.cta_id([1])
            lane = T.lane_id([32])
            tid = T.thread_id([32])
            A_smem = T.alloc_buffer(shape, dtype, scope="shared", layout=sl)
            row = tid // 4
            cp = tid % 4
            for t in range(num):
                for w in range(2):
                    A_smem[row, cp, t, w] = A[coord(row, cp, t, w)]
            T.cuda.cta_sync()
            R = T.alloc_buffer(shape, dtype, scope="local", layout=rl)
            Tx.warp.copy(R[:, :, :, :], A_smem[:, :, :, :])
            r = R.local()
            for t in range(num):
                for w in range(2):
                    B[coord(row, cp, t, w)] = r[t * 2 + w]
    else:
        @T.prim_func
        def kernel(A: T.Buffer((M, N), dtype), B: T.Buffer((M, N), dtype)):
            T.device_entry()
            T.cta_id([1])
            lane = T.lane_id([32])
            tid = T.thread_id([32])
            A_smem = T.alloc_buffer(shape, dtype, scope="shared", layout=sl)
            row = tid // 4
            cp = tid % 4
            R = T.alloc_buffer(shape, dtype, scope="local", layout=rl)
            r = R.local()
            for t in range(num):
                for w in range(2):
                    r[t * 2 + w] = A[coord(row, cp, t, w)]
            Tx.warp.copy(A_smem[:, :, :, :], R[:, :, :, :])
            T.cuda.cta_sync()
            for t in range(num):
                for w in range(2):
                    B[coord(row, cp, t, w)] = A_smem[row, cp, t, w]
    name = f"ldst_warp_{direction}_x{num}{'_trans' if trans else ''}{'_sw' if swizzle else ''}"
    return kernel.with_attr("global_symbol", name)


def warpgroup_kernel(num, direction, trans):
    """Four warps stacked vertically: a (32, 8 * num) tile."""
    rl, sl = r_layout(num, "wg"), s_layout(num, trans, "wg")
    shape = (4, 8, 4, num, 2)
    M, N = 32, num * 8

    def coord(wid, row, cp, t, w):
        return ((wid * 8 + row, t * 8 + cp * 2 + w) if not trans
                else (wid * 8 + cp * 2 + w, row + t * 8))

    @T.prim_func
    def kernel(A: T.Buffer((M, N), "float16"), B: T.Buffer((M, N), "float16")):
        T.device_entry()
        T.cta_id([1])
        T.warpgroup_id([1])
        T.warp_id_in_wg([4])
        T.lane_id([32])
        T.thread_id_in_wg([128])
        tid = T.thread_id([128])
        A_smem = T.alloc_buffer(shape, "float16", scope="shared", layout=sl)
        wid = tid // 32
        lid = tid % 32
        row = lid // 4
        cp = lid % 4
        R = T.alloc_buffer(shape, "float16", scope="local", layout=rl)
        r = R.local()
        if direction == "ld":
            for t in range(num):
                for w in range(2):
                    A_smem[wid, row, cp, t, w] = A[coord(wid, row, cp, t, w)]
            T.cuda.cta_sync()
            Tx.wg.copy(R[:, :, :, :, :], A_smem[:, :, :, :, :])
            for t in range(num):
                for w in range(2):
                    B[coord(wid, row, cp, t, w)] = r[t * 2 + w]
        else:
            for t in range(num):
                for w in range(2):
                    r[t * 2 + w] = A[coord(wid, row, cp, t, w)]
            Tx.wg.copy(A_smem[:, :, :, :, :], R[:, :, :, :, :])
            T.cuda.cta_sync()
            for t in range(num):
                for w in range(2):
                    B[coord(wid, row, cp, t, w)] = A_smem[wid, row, cp, t, w]
    name = f"ldst_wg_{direction}_x{num}{'_trans' if trans else ''}"
    return kernel.with_attr("global_symbol", name)
