# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)
"""Kernels for the tmem<->local copy_async variant (sm_100a): a warpgroup stores a
(128, n) float32 tile into tensor memory and loads it back."""

from tvm.script.tirx import tile as Tx

from tvm.script import tirx as T
from tvm.tirx.layout import S, TCol, TileLayout, TLane, tid_in_wg


def tmem_round_trip(n, col0=0, name=None):
    width = max(32, 1 << (n + col0 - 1).bit_length())  # power of two >= 32 columns

    @T.prim_func
    def kernel(A: T.Buffer((128, n), "float32"), B: T.Buffer((128, n), "float32")):
        T.device_entry()
        warp = T.warp_id([4])
        T.cta_id([1])
        wg = T.warpgroup_id([1])
        T.warp_id_in_wg([4])
        T.lane_id([32])
        tid = T.thread_id([128])
        tmem_addr = T.alloc_shared([1], "uint32")
        if warp == 0:
            T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(
                T.address_of(tmem_addr), T.uint32(width))
        T.cuda.cta_sync()
        tmem = T.decl_buffer((128, width), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                             layout=TileLayout(S[(128, width):(1 @ TLane, 1 @ TCol)]))
        reg = T.alloc_local((n,), "float32")
        frag = reg.view(128, n, layout=TileLayout(S[(128, n):(1 @ tid_in_wg, 1)]))
        for k in range(n):
            reg[k] = A[tid, k]
        Tx.wg.copy_async(tmem[0:128, col0:col0 + n], frag[:, :])
        T.ptx.tcgen05.wait__st.sync.aligned()
        for k in range(n):
            reg[k] = T.float32(0)
        Tx.wg.copy_async(frag[:, :], tmem[0:128, col0:col0 + n])
        T.ptx.tcgen05.wait__ld.sync.aligned()
        for k in range(n):
            B[tid, k] = reg[k]
        T.cuda.cta_sync()
        if warp == 0:
            T.ptx.tcgen05.relinquish_alloc_permit.cta_group__1.sync.aligned()
            T.ptx.tcgen05.dealloc.cta_group__1.sync.aligned.b32(tmem_addr[0], T.uint32(width))

    return kernel.with_attr("global_symbol", name or f"tmem_round_trip_{n}_{col0}")
