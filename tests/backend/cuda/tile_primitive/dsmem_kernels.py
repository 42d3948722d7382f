
"""Cluster kernels for the dsmem copy_async variant: CTA 0 of a 2-CTA cluster loads a tile
into shared memory and copies it into CTA 1's shared buffer, which writes it out."""

from tvm.script.tirx import tile as Tx

from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout


def span(layout):
    return 1 + sum(int(it.stride) * (int(it.extent) - 1) for it in layout.shard)


def dsmem_kernel(name, shape, dtype, src_spec, dst_spec):
    src_layout, dst_layout = TileLayout(src_spec), TileLayout(dst_spec)
    nbytes = 1
    for e in shape:
        nbytes *= e
    nbytes *= 2 if dtype in ("float16", "bfloat16") else 4
    r = tuple(slice(0, s) for s in shape)

    @T.prim_func
    def kernel(A: T.Buffer(shape, dtype), B: T.Buffer(shape, dtype)):
        T.device_entry()
        cbx = T.cta_id_in_cluster([2])
        T.cta_id([2])
        tid = T.thread_id([32])
        src_raw = T.alloc_shared((span(src_layout),), dtype)
        dst_raw = T.alloc_shared((span(dst_layout),), dtype)
        src = T.decl_buffer(shape, dtype, src_raw.data, scope="shared", layout=src_layout)
        dst = T.decl_buffer(shape, dtype, dst_raw.data, scope="shared", layout=dst_layout)
        bar = T.alloc_shared((1,), "uint64")
        if tid == 0:
            T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
        T.cuda.cluster_sync()
        if tid == 0:
            if cbx == 0:
                Tx.copy(src[r], A[r])
                T.ptx.fence.proxy.async_.shared__cta()
                Tx.copy_async(dst[r], src[r], dispatch="dsmem", mbar=bar.ptr_to([0]),
                              remote_cta_id=T.int32(1))
            else:
                T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32(nbytes))
                T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
                Tx.copy(B[r], dst[r])

    return kernel.with_attr("global_symbol", name)


CASES = {
    "contiguous_2d": ((128, 64), "float16", S[128, 64], S[128, 64]),
    "contiguous_1d": ((256,), "float16", S[256], S[256]),
    "stride_gap": ((8, 128), "float16", S[(8, 128):(256, 1)], S[(8, 128):(256, 1)]),
    "different_strides": ((8, 128), "float16", S[(8, 128):(256, 1)], S[(8, 128):(512, 1)]),
}
