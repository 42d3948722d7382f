# ruff: noqa: F841
"""Allocation pools (``T.SMEMPool``, ``TMEMPool``) and warp roles (``WarpRole``,
``WarpgroupRole``): printed as Apache TVM 0.27 prints the same kernels (checked against
0.27), round trips, and the pool errors."""

import pytest
from tvm.tirx.cuda.lang.alloc_pool import _validate_mma_alloc_shape

import tvm
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T
from tvm.tirx.lang.alloc_pool import TMEMPool
from tvm.tirx.lang.warp_role import WarpgroupRole, WarpRole
from tvm.tirx.layout import SwizzleMode


def _round_trip(func):
    code = func.script()
    again = tvm.script.from_source(code)
    assert again.script() == code
    assert_structural_equal(func, again)
    return code


def test_smem_and_tmem_pools_print_as_0_27():
    @T.prim_func
    def f(a: T.handle) -> None:
        A = T.match_buffer(a, (128,), "float32")
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([128])
        pool = T.SMEMPool()
        X = pool.alloc((64,), "float16")
        Y = pool.alloc((16, 16), "float32", align=128)
        Z = pool.alloc_tcgen05_mma_AB((128, 64), "float16")
        tm = TMEMPool(pool)
        D = tm.alloc((128, 64), "float32")
        pool.commit()
        tm.commit()
        X[0] = T.float16(0)
        Y[0, 0] = D[0, 0]
        Z[0, 0] = T.float16(1)
        tm.dealloc()

    code = _round_trip(f)
    body = code.split("tx = T.thread_id([128])\n")[1]
    assert body == '''\
    pool_buf = T.alloc_buffer((0,), "uint8", scope="shared.dyn")
    X = T.decl_buffer((64,), "float16", data=pool_buf.data, scope="shared.dyn")
    Y = T.decl_buffer((16, 16), data=pool_buf.data, elem_offset=32, scope="shared.dyn", align=128)
    Z = T.decl_buffer((128, 64), "float16", data=pool_buf.data, elem_offset=1024, scope="shared.dyn", align=1024, layout=T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[8192:1])))
    tm__addr_buf = T.decl_buffer((1,), "uint32", data=pool_buf.data, elem_offset=4608, scope="shared.dyn", align=4)
    D = T.decl_buffer((128, 64), scope="tmem", layout=T.TileLayout(T.S[(128, 64):(1 @ Axis.TLane, 1 @ Axis.TCol)]), allocated_addr=0)
    with T.attr({"tirx.dyn_smem_bytes": T.int64(18436)}):
        T.evaluate(0)
    v = T.warp_id()
    if v == 0:
        T.ptx.tcgen05(T.cuda.cvta_generic_to_shared(T.address_of(tm__addr_buf[0])), T.uint32(512), "alloc", "cta_group::1", "sync", "aligned", "shared::cta", "b32", "")
        T.cuda.warp_sync()
    X[0] = T.float16(0.0)
    Y[0, 0] = D[0, 0]
    Z[0, 0] = T.float16(1.0)
    v_1 = T.warp_id()
    if v_1 == 0:
        T.ptx.tcgen05("relinquish_alloc_permit", "cta_group::1", "sync", "aligned", "")
        T.ptx.tcgen05(tm__addr_buf[0], T.uint32(512), "dealloc", "cta_group::1", "sync", "aligned", "b32", "")'''


def test_warp_roles_print_as_0_27():
    @T.prim_func
    def f(A_ptr: T.handle) -> None:
        A = T.match_buffer(A_ptr, (128,), "float32", scope="global")
        T.device_entry()
        cta_id = T.cta_id([1])
        wg_id = T.warpgroup_id([4])
        warp_id = T.warp_id_in_wg([4])
        lane_id = T.lane_id([32])
        with WarpRole(warp_id, 1, regs=48):
            A[0] = T.float32(0)
        with WarpRole(warp_id, 2):
            A[2] = T.float32(1)
        with WarpgroupRole(wg_id, 2, regs=200, increase=True):
            A[3] = T.float32(0)
        with WarpgroupRole(wg_id, (0, 2)):
            A[4] = T.float32(0)

    code = _round_trip(f)
    body = code.split("lane_id = T.lane_id([32])\n")[1]
    assert body == '''\
    if warp_id == 1:
        T.ptx.setmaxnreg(48, "dec", "sync", "aligned", "u32", "")
        A[0] = T.float32(0.0)
    if warp_id == 2:
        A[2] = T.float32(1.0)
    if wg_id == 2:
        T.ptx.setmaxnreg(200, "inc", "sync", "aligned", "u32", "")
        A[3] = T.float32(0.0)
    if wg_id >= 0 and wg_id < 2:
        A[4] = T.float32(0.0)'''


def test_pool_errors():
    with pytest.raises(ValueError, match=r"64B rows.*128B swizzle atom.*SWIZZLE_64B_ATOM"):
        _validate_mma_alloc_shape((128, 32), "bfloat16", SwizzleMode.SWIZZLE_128B_ATOM)
    with pytest.raises(ValueError, match=r"shape\[-2\]=12.*multiple of 8"):
        _validate_mma_alloc_shape((12, 64), "bfloat16", SwizzleMode.SWIZZLE_128B_ATOM)
    _validate_mma_alloc_shape((3, 5), "bfloat16", SwizzleMode.SWIZZLE_NONE)
    with pytest.raises(tvm.error.DiagnosticError, match="TMEM overflow"):
        @T.prim_func
        def f() -> None:
            T.device_entry()
            pool = T.SMEMPool()
            tm = TMEMPool(pool, 64)
            D = tm.alloc((128, 128), "float32")
            pool.commit()
    with pytest.raises(ValueError, match="multiple of 8"):
        WarpRole(tvm.tirx.Var("w", "int32"), 0, regs=100)
