"""copy_async variant dsmem (src/tvm/backend/cuda/tile_primitive/copy_async/dsmem.py): shared
memory -> another CTA's shared memory with cp.async.bulk over mapa addresses.

The gpu_simulator does not run cp.async.bulk or clusters, so the numbers are checked with a
model: each bulk copy of the lowered kernel moves its bytes from the source buffer to the
destination buffer, and the destination must then hold every element where its layout
(``Layout.apply``) puts it. The kernels are compiled by nvcc (sm_90a) in one call."""

import sys
from pathlib import Path

import pytest
from tvm.script.tirx import tile as Tx

from tvm.backend.cuda.nvcc import compile_many, find_nvcc
from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout
from tvm.tirx.operator.tile_primitive.dispatcher import TileDispatchError
from tvm.tirx.stmt_functor import post_order_visit

sys.path.insert(0, str(Path(__file__).parent))
import dsmem_kernels as D
import tma_kernels as K

EXPECTED_COPIES = {"contiguous_2d": 1, "contiguous_1d": 1, "stride_gap": 8,
                   "different_strides": 8}


def _bulk_copies(func):
    """``[(dst offset, src offset, bytes)]`` of the lowered kernel's bulk copies."""
    out = []

    def visit(node):
        if getattr(getattr(node, "op", None), "name", "") != "tirx.cuda.func_call":
            return
        if node.args[0].value != "tvm_builtin_dsmem_bulk_copy":
            return
        dst, src, nbytes, _mbar, cta = node.args[1:6]
        offsets = [int(a.args[0].args[0].indices[0]) for a in (dst, src)]
        assert int(cta.value) == 1
        out.append((offsets[0], offsets[1], int(nbytes.value)))

    post_order_visit(func.body, visit)
    return out


@pytest.mark.parametrize("name", list(D.CASES))
def test_bulk_copies_move_every_element(name):
    shape, _dtype, src_spec, dst_spec = D.CASES[name]
    _, dev = K.split(D.dsmem_kernel(name, *D.CASES[name]))
    copies = _bulk_copies(next(iter(dev.functions.values())))
    assert len(copies) == EXPECTED_COPIES[name]
    src_layout, dst_layout = TileLayout(src_spec), TileLayout(dst_spec)
    count = 1
    for e in shape:
        count *= e
    src_mem = {int(src_layout.apply(f)["m"]): f for f in range(count)}
    dst_mem = {}
    for d, s, nbytes in copies:
        for i in range(nbytes // 2):
            dst_mem[d + i] = src_mem.get(s + i)
    assert {f: dst_mem.get(int(dst_layout.apply(f)["m"])) for f in range(count)} == \
        {f: f for f in range(count)}


def _kernel_with(dst_spec, src_spec, shape=(4, 64)):
    r = tuple(slice(0, s) for s in shape)

    @T.prim_func
    def k(A: T.Buffer((1,), "float16")):
        T.device_entry()
        T.cta_id_in_cluster([2])
        T.cta_id([2])
        tid = T.thread_id([32])
        bar = T.alloc_shared((1,), "uint64")
        a = T.alloc_shared((512,), "float16")
        b = T.alloc_shared((512,), "float16")
        src = T.decl_buffer(shape, "float16", a.data, scope="shared",
                            layout=TileLayout(src_spec))
        dst = T.decl_buffer(shape, "float16", b.data, scope="shared",
                            layout=TileLayout(dst_spec))
        if tid == 0:
            Tx.copy_async(dst[r], src[r], dispatch="dsmem", mbar=bar.ptr_to([0]),
                          remote_cta_id=1)

    return k


def test_refuses_row_major_against_column_major():
    k = _kernel_with(S[(4, 64):(1, 4)], S[4, 64])
    with pytest.raises(TileDispatchError, match="cp.async.bulk moves multiples of 16 bytes"):
        K.split(k)


def test_needs_remote_cta_id():
    @T.prim_func
    def k(A: T.Buffer((1,), "float16")):
        T.device_entry()
        T.cta_id_in_cluster([2])
        T.cta_id([2])
        tid = T.thread_id([32])
        bar = T.alloc_shared((1,), "uint64")
        a = T.alloc_shared((64,), "float16")
        b = T.alloc_shared((64,), "float16")
        if tid == 0:
            Tx.copy_async(b[:], a[:], dispatch="dsmem", mbar=bar.ptr_to([0]))

    with pytest.raises(TileDispatchError, match="dsmem needs remote_cta_id="):
        K.split(k)


@pytest.mark.skipif(find_nvcc() is None, reason="nvcc is not installed")
def test_kernels_compile_with_nvcc():
    sources = [K.device_source(D.dsmem_kernel(name, *case)) for name, case in D.CASES.items()]
    assert compile_many(sources, "sm_90a")
    assert all("cp.async.bulk.shared::cluster.shared::cta" in s for s in sources)
