"""CUDA copy_async variant ldgsts (src/tvm/backend/cuda/tile_primitive/copy_async.py):
cp.async of the widest allowed size per thread in an unrolled loop; completion left to the
caller."""

# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.script import tirx as T
from tvm.tirx.operator.tile_primitive import list_registered_schedules
from tvm.tirx.stmt import For, ForKind
from tvm.tirx.stmt_functor import post_order_visit

TARGET = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")


def lower(func):
    mod = tvm.IRModule({"main": func.with_attr("target", TARGET)})
    return tvm.tirx.transform.TilePrimitiveDispatch()(mod)["main"]


def cp_calls(func):
    out = []
    post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, tvm.tirx.Call)
                     and n.op.name == "tirx.ptx.cp" else None)
    return out


def test_registered():
    assert list_registered_schedules()["tirx.tile.copy_async"]["cuda"][0] == "ldgsts"


def test_cta_tile_16_byte_cg_unrolled():
    @T.prim_func
    def k(A: T.Buffer((64, 64), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([128])
        S = T.alloc_buffer((64, 64), "float16", scope="shared")
        Tx.cta.copy_async(S, A, dispatch="ldgsts")

    out = lower(k)
    text = out.script()
    loops = []
    post_order_visit(out.body, lambda n: loops.append(n) if isinstance(n, For) else None)
    assert [(lp.extent.value, lp.kind) for lp in loops] == [(4, ForKind.UNROLLED)]
    # the line Apache TVM 0.27 prints for this call
    assert ('T.ptx.cp(T.cuda.cvta_generic_to_shared(s_ptr), g_ptr, 16, "async", "cg", "shared",'
            ' "global", "", "", "")') in text
    assert "g_lin: T.int32 = f * 1024 + tx * 8" in text


def test_strided_window_uses_8_byte_ca():
    @T.prim_func
    def k(B: T.Buffer((64, 6), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        S = T.alloc_buffer((64, 4), "float32", scope="shared")
        Tx.warp.copy_async(S, B[0:64, 2:6])

    (cp,) = cp_calls(lower(k))
    assert cp.args[2].value == 8
    assert [a.value for a in cp.args[3:7]] == ["async", "ca", "shared", "global"]


def test_rejections_name_the_reason():
    @T.prim_func
    def k(A: T.Buffer((64,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        S = T.alloc_buffer((64,), "float32", scope="shared")
        Tx.cta.copy_async(A, S)

    with pytest.raises(RuntimeError, match="cp.async copies global -> shared; this copy is "
                                           "shared -> global"):
        lower(k)

    @T.prim_func
    def k2(A: T.Buffer((64,), "float16")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([32])
        S = T.alloc_buffer((32,), "float16", scope="shared")
        Tx.cta.copy_async(S, A[1:33])

    with pytest.raises(RuntimeError, match="4B: the first element is not aligned to 4 bytes"):
        lower(k2)
