"""CUDA builtins as plain functions (``tvm.tirx.cuda.op``, Apache TVM 0.27"s spelling).

``cuda_<name>(...)`` returns the same ``Call`` as ``T.cuda.<name>(...)``, ``nvshmem_<name>``
as ``T.nvshmem.<name>`` (``_warp``/``_block`` for the sub-forms), ``ptx_legacy_mma`` /
``ptx_legacy_ldmatrix`` as ``T.ptx_legacy.*``, and ``mma_store`` / ``mma_fill`` build the flat
``tirx.mma_store`` / ``tirx.mma_fill`` builtins (printed ``T.cuda.mma_store(...)``). These
names are kept out of ``tvm.tirx`` and ``T`` (backend-only). 0.27"s module also has the
``timer_*`` profiling helpers and ``cuda_iket_*`` markers, which pytvm does not have yet.
"""

from ...tirx.cuda_ops import cuda as _cuda
from ...tirx.intrin_namespaces import nvshmem as _nvshmem
from ...tirx.intrin_namespaces import ptx_legacy as _ptx_legacy

__all__ = [
    "cuda_any_sync",
    "cuda_atomic_add",
    "cuda_atomic_cas",
    "cuda_ballot_sync",
    "cuda_bfloat162float",
    "cuda_bfloat1622float2",
    "cuda_clock64",
    "cuda_cluster_sync",
    "cuda_cta_max",
    "cuda_cta_min",
    "cuda_cta_reduce",
    "cuda_cta_sum",
    "cuda_cta_sync",
    "cuda_cvta_generic_to_shared",
    "cuda_elect_sync",
    "cuda_fadd2_rn",
    "cuda_fdividef",
    "cuda_ffs_u32",
    "cuda_float2_x",
    "cuda_float2_y",
    "cuda_float8tohalf8",
    "cuda_float22bfloat162_rn",
    "cuda_float22bfloat162_rn_from_float2",
    "cuda_float22half2",
    "cuda_float_as_uint",
    "cuda_fmul2_rn",
    "cuda_fp8x4_e4m3_from_float4",
    "cuda_func_call",
    "cuda_get_tmem_addr",
    "cuda_grid_sync",
    "cuda_half2float",
    "cuda_half8tofloat8",
    "cuda_hmax2",
    "cuda_hmin2",
    "cuda_ldg",
    "cuda_make_float2",
    "cuda_mbarrier_wait",
    "cuda_mbarrier_wait_acquire_cluster",
    "cuda_mov_sreg",
    "cuda_nano_sleep",
    "cuda_printf",
    "cuda_reduce_add_sync_u32",
    "cuda_reduce_min_sync_u32",
    "cuda_sm100_2sm_leader_smem_addr",
    "cuda_smem_addr_from_uint64",
    "cuda_syncthreads_and",
    "cuda_syncthreads_or",
    "cuda_thread_fence",
    "cuda_thread_rank",
    "cuda_trap_when_assert_failed",
    "cuda_uint_as_float",
    "cuda_wait_until",
    "cuda_warp_max",
    "cuda_warp_min",
    "cuda_warp_reduce",
    "cuda_warp_sum",
    "cuda_warp_sync",
    "cuda_warpgroup_sync",
    "mma_fill",
    "mma_store",
    "nvshmem_barrier_all",
    "nvshmem_fence",
    "nvshmem_getmem_nbi",
    "nvshmem_getmem_nbi_block",
    "nvshmem_getmem_nbi_warp",
    "nvshmem_my_pe",
    "nvshmem_n_pes",
    "nvshmem_putmem_nbi",
    "nvshmem_putmem_nbi_block",
    "nvshmem_putmem_nbi_warp",
    "nvshmem_putmem_signal_nbi",
    "nvshmem_putmem_signal_nbi_block",
    "nvshmem_putmem_signal_nbi_warp",
    "nvshmem_quiet",
    "nvshmem_signal_op",
    "nvshmem_wait_until",
    "ptx_legacy_ldmatrix",
    "ptx_legacy_mma",
]


def cuda_any_sync(mask, pred):
    """``T.cuda.any_sync``."""
    return _cuda.any_sync(mask, pred)


def cuda_atomic_add(res_addr, value):
    """``T.cuda.atomic_add``."""
    return _cuda.atomic_add(res_addr, value)


def cuda_atomic_cas(ptr, old_val, new_val):
    """``T.cuda.atomic_cas``."""
    return _cuda.atomic_cas(ptr, old_val, new_val)


def cuda_ballot_sync(mask, pred):
    """``T.cuda.ballot_sync``."""
    return _cuda.ballot_sync(mask, pred)


def cuda_bfloat1622float2(packed):
    """``T.cuda.bfloat1622float2``."""
    return _cuda.bfloat1622float2(packed)


def cuda_bfloat162float(src):
    """``T.cuda.bfloat162float``."""
    return _cuda.bfloat162float(src)


def cuda_clock64():
    """``T.cuda.clock64``."""
    return _cuda.clock64()


def cuda_cluster_sync():
    """``T.cuda.cluster_sync``."""
    return _cuda.cluster_sync()


def cuda_cta_max(value, num_warps, scratch):
    """``T.cuda.cta_max``."""
    return _cuda.cta_max(value, num_warps, scratch)


def cuda_cta_min(value, num_warps, scratch):
    """``T.cuda.cta_min``."""
    return _cuda.cta_min(value, num_warps, scratch)


def cuda_cta_reduce(value, op, num_warps, scratch):
    """``T.cuda.cta_reduce``."""
    return _cuda.cta_reduce(value, op, num_warps, scratch)


def cuda_cta_sum(value, num_warps, scratch):
    """``T.cuda.cta_sum``."""
    return _cuda.cta_sum(value, num_warps, scratch)


def cuda_cta_sync():
    """``T.cuda.cta_sync``."""
    return _cuda.cta_sync()


def cuda_cvta_generic_to_shared(ptr):
    """``T.cuda.cvta_generic_to_shared``."""
    return _cuda.cvta_generic_to_shared(ptr)


def cuda_elect_sync():
    """``T.cuda.elect_sync``."""
    return _cuda.elect_sync()


def cuda_fadd2_rn(a, b):
    """``T.cuda.fadd2_rn``."""
    return _cuda.fadd2_rn(a, b)


def cuda_fdividef(x, y):
    """``T.cuda.fdividef``."""
    return _cuda.fdividef(x, y)


def cuda_ffs_u32(value):
    """``T.cuda.ffs_u32``."""
    return _cuda.ffs_u32(value)


def cuda_float22bfloat162_rn(v0, v1):
    """``T.cuda.float22bfloat162_rn``."""
    return _cuda.float22bfloat162_rn(v0, v1)


def cuda_float22bfloat162_rn_from_float2(packed):
    """``T.cuda.float22bfloat162_rn_from_float2``."""
    return _cuda.float22bfloat162_rn_from_float2(packed)


def cuda_float22half2(dst, src):
    """``T.cuda.float22half2``."""
    return _cuda.float22half2(dst, src)


def cuda_float2_x(packed):
    """``T.cuda.float2_x``."""
    return _cuda.float2_x(packed)


def cuda_float2_y(packed):
    """``T.cuda.float2_y``."""
    return _cuda.float2_y(packed)


def cuda_float8tohalf8(src_addr, dst_addr):
    """``T.cuda.float8tohalf8``."""
    return _cuda.float8tohalf8(src_addr, dst_addr)


def cuda_float_as_uint(x):
    """``T.cuda.float_as_uint``."""
    return _cuda.float_as_uint(x)


def cuda_fmul2_rn(a, b):
    """``T.cuda.fmul2_rn``."""
    return _cuda.fmul2_rn(a, b)


def cuda_fp8x4_e4m3_from_float4(x, y, z, w):
    """``T.cuda.fp8x4_e4m3_from_float4``."""
    return _cuda.fp8x4_e4m3_from_float4(x, y, z, w)


def cuda_func_call(func_name, *args, source_code, return_type="void"):
    """``T.cuda.func_call``."""
    return _cuda.func_call(func_name, *args, source_code=source_code, return_type=return_type)


def cuda_get_tmem_addr(addr, row_offset, col_offset):
    """``T.cuda.get_tmem_addr``."""
    return _cuda.get_tmem_addr(addr, row_offset, col_offset)


def cuda_grid_sync():
    """``T.cuda.grid_sync``."""
    return _cuda.grid_sync()


def cuda_half2float(src):
    """``T.cuda.half2float``."""
    return _cuda.half2float(src)


def cuda_half8tofloat8(src_addr, dst_addr):
    """``T.cuda.half8tofloat8``."""
    return _cuda.half8tofloat8(src_addr, dst_addr)


def cuda_hmax2(a, b):
    """``T.cuda.hmax2``."""
    return _cuda.hmax2(a, b)


def cuda_hmin2(a, b):
    """``T.cuda.hmin2``."""
    return _cuda.hmin2(a, b)


def cuda_ldg(addr, dtype, *rest, dst=None, vec=""):
    """``T.cuda.ldg``."""
    return _cuda.ldg(addr, dtype, *rest, dst=dst, vec=vec)


def cuda_make_float2(x, y):
    """``T.cuda.make_float2``."""
    return _cuda.make_float2(x, y)


def cuda_mbarrier_wait(bar, phase):
    """``T.cuda.mbarrier_wait``."""
    return _cuda.mbarrier_wait(bar, phase)


def cuda_mbarrier_wait_acquire_cluster(bar, phase):
    """``T.cuda.mbarrier_wait_acquire_cluster``."""
    return _cuda.mbarrier_wait_acquire_cluster(bar, phase)


def mma_fill(dtype, local_size, local_ptr, offset):
    """``T.cuda.mma_fill``."""
    return _cuda.mma_fill(dtype, local_size, local_ptr, offset)


def mma_store(dtype, m, n, dst_ptr, src_ptr, src_offset, dst_stride):
    """``T.cuda.mma_store``."""
    return _cuda.mma_store(dtype, m, n, dst_ptr, src_ptr, src_offset, dst_stride)


def cuda_mov_sreg(bits, reg_name):
    """``T.cuda.mov_sreg``."""
    return _cuda.mov_sreg(bits, reg_name)


def cuda_nano_sleep(time):
    """``T.cuda.nano_sleep``."""
    return _cuda.nano_sleep(time)


def cuda_printf(fmt, *args):
    """``T.cuda.printf``."""
    return _cuda.printf(fmt, *args)


def cuda_reduce_add_sync_u32(mask, value):
    """``T.cuda.reduce_add_sync_u32``."""
    return _cuda.reduce_add_sync_u32(mask, value)


def cuda_reduce_min_sync_u32(mask, value):
    """``T.cuda.reduce_min_sync_u32``."""
    return _cuda.reduce_min_sync_u32(mask, value)


def cuda_sm100_2sm_leader_smem_addr(ptr):
    """``T.cuda.sm100_2sm_leader_smem_addr``."""
    return _cuda.sm100_2sm_leader_smem_addr(ptr)


def cuda_smem_addr_from_uint64(cluster_addr):
    """``T.cuda.smem_addr_from_uint64``."""
    return _cuda.smem_addr_from_uint64(cluster_addr)


def cuda_syncthreads_and(cond):
    """``T.cuda.syncthreads_and``."""
    return _cuda.syncthreads_and(cond)


def cuda_syncthreads_or(cond):
    """``T.cuda.syncthreads_or``."""
    return _cuda.syncthreads_or(cond)


def cuda_thread_fence():
    """``T.cuda.thread_fence``."""
    return _cuda.thread_fence()


def cuda_thread_rank():
    """``T.cuda.thread_rank``."""
    return _cuda.thread_rank()


def cuda_trap_when_assert_failed(cond):
    """``T.cuda.trap_when_assert_failed``."""
    return _cuda.trap_when_assert_failed(cond)


def cuda_uint_as_float(bits):
    """``T.cuda.uint_as_float``."""
    return _cuda.uint_as_float(bits)


def cuda_wait_until(dst, ptr, predicate, scope="gpu", space="global", ptx_type=None,
                    backoff_ns=None):
    """``T.cuda.wait_until``."""
    return _cuda.wait_until(dst, ptr, predicate, scope, space, ptx_type, backoff_ns)


def cuda_warp_max(value, width=32):
    """``T.cuda.warp_max``."""
    return _cuda.warp_max(value, width)


def cuda_warp_min(value, width=32):
    """``T.cuda.warp_min``."""
    return _cuda.warp_min(value, width)


def cuda_warp_reduce(value, op, width=32):
    """``T.cuda.warp_reduce``."""
    return _cuda.warp_reduce(value, op, width)


def cuda_warp_sum(value, width=32):
    """``T.cuda.warp_sum``."""
    return _cuda.warp_sum(value, width)


def cuda_warp_sync():
    """``T.cuda.warp_sync``."""
    return _cuda.warp_sync()


def cuda_warpgroup_sync(bar_no):
    """``T.cuda.warpgroup_sync``."""
    return _cuda.warpgroup_sync(bar_no)


def nvshmem_barrier_all(*args, **kwargs):
    """``T.nvshmem.barrier_all``."""
    return _nvshmem.barrier_all(*args, **kwargs)


def nvshmem_fence(*args, **kwargs):
    """``T.nvshmem.fence``."""
    return _nvshmem.fence(*args, **kwargs)


def nvshmem_getmem_nbi(*args, **kwargs):
    """``T.nvshmem.getmem_nbi``."""
    return _nvshmem.getmem_nbi(*args, **kwargs)


def nvshmem_getmem_nbi_warp(*args, **kwargs):
    """``T.nvshmem.getmem_nbi.warp``."""
    return _nvshmem.getmem_nbi.warp(*args, **kwargs)


def nvshmem_getmem_nbi_block(*args, **kwargs):
    """``T.nvshmem.getmem_nbi.block``."""
    return _nvshmem.getmem_nbi.block(*args, **kwargs)


def nvshmem_my_pe(*args, **kwargs):
    """``T.nvshmem.my_pe``."""
    return _nvshmem.my_pe(*args, **kwargs)


def nvshmem_n_pes(*args, **kwargs):
    """``T.nvshmem.n_pes``."""
    return _nvshmem.n_pes(*args, **kwargs)


def nvshmem_putmem_nbi(*args, **kwargs):
    """``T.nvshmem.putmem_nbi``."""
    return _nvshmem.putmem_nbi(*args, **kwargs)


def nvshmem_putmem_nbi_warp(*args, **kwargs):
    """``T.nvshmem.putmem_nbi.warp``."""
    return _nvshmem.putmem_nbi.warp(*args, **kwargs)


def nvshmem_putmem_nbi_block(*args, **kwargs):
    """``T.nvshmem.putmem_nbi.block``."""
    return _nvshmem.putmem_nbi.block(*args, **kwargs)


def nvshmem_putmem_signal_nbi(*args, **kwargs):
    """``T.nvshmem.putmem_signal_nbi``."""
    return _nvshmem.putmem_signal_nbi(*args, **kwargs)


def nvshmem_putmem_signal_nbi_warp(*args, **kwargs):
    """``T.nvshmem.putmem_signal_nbi.warp``."""
    return _nvshmem.putmem_signal_nbi.warp(*args, **kwargs)


def nvshmem_putmem_signal_nbi_block(*args, **kwargs):
    """``T.nvshmem.putmem_signal_nbi.block``."""
    return _nvshmem.putmem_signal_nbi.block(*args, **kwargs)


def nvshmem_quiet(*args, **kwargs):
    """``T.nvshmem.quiet``."""
    return _nvshmem.quiet(*args, **kwargs)


def nvshmem_signal_op(*args, **kwargs):
    """``T.nvshmem.signal_op``."""
    return _nvshmem.signal_op(*args, **kwargs)


def nvshmem_wait_until(*args, **kwargs):
    """``T.nvshmem.wait_until``."""
    return _nvshmem.wait_until(*args, **kwargs)


def ptx_legacy_ldmatrix(*args, **kwargs):
    """``T.ptx_legacy.ldmatrix``."""
    return _ptx_legacy.ldmatrix(*args, **kwargs)


def ptx_legacy_mma(*args, **kwargs):
    """``T.ptx_legacy.mma``."""
    return _ptx_legacy.mma(*args, **kwargs)
