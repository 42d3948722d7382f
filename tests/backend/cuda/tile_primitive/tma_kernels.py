# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)
"""TIRx kernels using the TMA copy_async variants, shared by the tests of this folder, and
the helpers that lower them (device CUDA source, host function)."""

from tvm.script.tirx import tile as Tx

import tvm
from tvm.backend.cuda.codegen_cuda import codegen
from tvm.backend.cuda.tile_primitive.tma_utils import (
    mma_atom_layout,
    mma_atom_shape,
    mma_shared_layout,
)
from tvm.ir.transform import Sequential
from tvm.script import tirx as T
from tvm.tirx import transform as tx
from tvm.tirx.compilation_pipeline import tirx_kernel_passes

SW128_64x128 = mma_shared_layout("float16", 3, (64, 128))
SW64_2x32x64 = mma_shared_layout("bfloat16", 2, (2, 32, 64))
ATOM_16x256 = mma_atom_layout("float16", 3).tile_to((16, 256), mma_atom_shape("float16", 3))


def split(func, arch="sm_90a"):
    """Run the tirx pipeline up to SplitHostDevice: ``(host PrimFunc, device IRModule)``."""
    target = tvm.target.Target({"kind": "cuda", "arch": arch}).with_host("llvm")
    name = str(func.get_attr("global_symbol") or "main")
    mod = tx.BindTarget(target)(tvm.IRModule({name: func}))
    passes = [p for p in tirx_kernel_passes(target) if p.info.name != "tirx.MakePackedAPI"]
    mod = Sequential(passes)(mod)
    host = [f for f in mod.functions.values() if f.get_attr("calling_conv") != 2]
    kernels = {g: f for g, f in mod.functions.items() if f.get_attr("calling_conv") == 2}
    return host[0], tvm.IRModule(kernels)


def device_source(func, arch="sm_90a"):
    """The CUDA source of a kernel's device part."""
    target = tvm.target.Target({"kind": "cuda", "arch": arch}).with_host("llvm")
    _, dev = split(func, arch)
    dev = Sequential([tx.LowerWarpMemory(), tx.StmtSimplify(), tx.LowerIntrin()])(dev)
    return codegen(dev, target)


# --- kernels ---------------------------------------------------------------------------------
@T.prim_func
def tma_rowmajor(A_ptr: T.handle, B_ptr: T.handle):
    """64 x 64 fp16 global -> shared with one TMA, then copied back by the CTA."""
    T.func_attr({"global_symbol": "tma_rowmajor"})
    A = T.match_buffer(A_ptr, (64, 64), "float16")
    B = T.match_buffer(B_ptr, (64, 64), "float16")
    T.device_entry()
    bx = T.cta_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_shared((64, 64), "float16")
    bar = T.alloc_shared((1,), "uint64")
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_smem[:, :], A[:, :], dispatch="tma_auto", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32(8192))
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    T.cuda.cta_sync()
    Tx.cta.copy(B[:, :], A_smem[:, :])


@T.prim_func
def tma_swizzled_tiles(A_ptr: T.handle, B_ptr: T.handle):
    """A 64 x 128 fp16 tile of a 256 x 512 matrix into a 128-byte-swizzled shared tile (two
    64-column boxes), and back to B with an s2g TMA."""
    T.func_attr({"global_symbol": "tma_swizzled_tiles"})
    A = T.match_buffer(A_ptr, (256, 512), "float16")
    B = T.match_buffer(B_ptr, (256, 512), "float16")
    T.device_entry()
    bx, by = T.cta_id([4, 4])
    tid = T.thread_id([128])
    A_smem = T.alloc_shared((64, 128), "float16", layout=SW128_64x128)
    bar = T.alloc_shared((1,), "uint64")
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(A_smem[:, :], A[bx * 64:bx * 64 + 64, by * 128:by * 128 + 128],
                      dispatch="tma_auto", mbar=bar.ptr_to([0]))
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32(16384))
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    if tid == 0:
        Tx.copy_async(B[bx * 64:bx * 64 + 64, by * 128:by * 128 + 128], A_smem[:, :],
                      dispatch="tma_auto")
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group(0)


@T.prim_func
def tma_staged_multicast(A_ptr: T.handle):
    """Two stages of a 32 x 64 bf16 tile (64-byte swizzle) in a 3-D shared buffer, the
    second multicast to both CTAs of a cluster of 2."""
    T.func_attr({"global_symbol": "tma_staged_multicast"})
    A = T.match_buffer(A_ptr, (4, 128, 64), "bfloat16")
    T.device_entry()
    cl = T.cluster_id([2])
    cta = T.cta_id_in_cluster([2])
    tid = T.thread_id([128])
    S = T.alloc_shared((2, 32, 64), "bfloat16", layout=SW64_2x32x64)
    bar = T.alloc_shared((2,), "uint64")
    if tid == 0:
        for s in range(2):
            Tx.copy_async(S[s, :, :], A[cl, s * 32:s * 32 + 32, :], dispatch="tma_auto",
                          mbar=bar.ptr_to([s]), cta_mask=T.if_then_else(s == 1, 3, 0))


@T.prim_func
def tma_atom_tiled(A_ptr: T.handle):
    """A 16 x 256 fp16 tile in 128-byte swizzle atoms tiled over the tile (8 atoms)."""
    T.func_attr({"global_symbol": "tma_atom_tiled"})
    A = T.match_buffer(A_ptr, (64, 256), "float16")
    T.device_entry()
    bx = T.cta_id([4])
    tid = T.thread_id([32])
    S = T.alloc_shared((16, 256), "float16", layout=ATOM_16x256)
    bar = T.alloc_shared((1,), "uint64")
    if tid == 0:
        Tx.copy_async(S[:, :], A[bx * 16:bx * 16 + 16, :], dispatch="tma_auto",
                      mbar=bar.ptr_to([0]))


@T.prim_func
def tma_reduce_add(A_ptr: T.handle):
    """Each CTA adds its 64 x 64 float32 shared tile into A's rows with a TMA reduction."""
    T.func_attr({"global_symbol": "tma_reduce_add"})
    A = T.match_buffer(A_ptr, (256, 64), "float32")
    T.device_entry()
    bx = T.cta_id([4])
    tid = T.thread_id([128])
    S = T.alloc_shared((64, 32), "float32")
    if tid == 0:
        Tx.copy_async(A[bx * 64:bx * 64 + 64, 32:64], S[:, :], dispatch="tma_auto",
                      use_tma_reduce="add")
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group(0)
