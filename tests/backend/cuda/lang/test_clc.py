
"""Cluster launch control: ``query_cancel_first_ctaid_x`` and the
``ClusterLaunchControlScheduler`` built on it, from TVMScript to CUDA."""

import pytest

import tvm
from tvm.backend.cuda import nvcc
from tvm.backend.cuda.lang.clc import NO_CTA, query_cancel_first_ctaid_x
from tvm.script import tirx as T
from tvm.tirx.lang.tile_scheduler import ClusterLaunchControlScheduler

_TRY_CANCEL = ("clusterlaunchcontrol.try_cancel.async.shared::cta"
               ".mbarrier::complete_tx::bytes.multicast::cluster::all.b128")


def source_of(func):
    target = tvm.target.Target({"kind": "cuda", "arch": "sm_100a"})
    with target:
        ex = tvm.compile(tvm.IRModule({"main": func}), target=target, tir_pipeline="tirx")
    return ex.mod.imports[0].inspect_source()


@T.prim_func
def steal(A: T.Buffer((2,), "uint32")):
    T.device_entry()
    tx = T.thread_id([32])
    if tx == 0:
        bar = T.alloc_buffer((1,), "uint64", scope="shared", align=16)
        response = T.alloc_buffer((4,), "uint32", scope="shared", align=16)
        T.ptx[_TRY_CANCEL](response.ptr_to([0]), bar.ptr_to([0]))
        T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
        nxt = T.local_scalar("uint32")
        query_cancel_first_ctaid_x(nxt, response.ptr_to([0]))
        A[0] = nxt
        query_cancel_first_ctaid_x(nxt, response.ptr_to([0]), use_ld_acquire=False)
        A[1] = nxt


def test_query_cancel_statements():
    text = steal.script()
    assert text.count('"b128", "")') >= 2
    assert '"acquire", "cta", "shared"' in text  # ld.acquire.cta.shared.b128 first
    assert text.count(f"nxt = T.uint32({NO_CTA})") == 2
    assert 'T.ptx.clusterlaunchcontrol(granted, resp, "query_cancel", "is_canceled", "pred", ' \
        '"b128", "")' in text
    # get_first_ctaid is guarded by the grant (pred=granted), as Apache TVM 0.27 writes it
    assert ('"get_first_ctaid::x", "b32", "b128", "pred")' in text
            and "(nxt, resp, granted, " in text)
    assert text.count('T.ptx.fence("proxy", "async", "shared::cta", "")') == 2
    assert tvm.ir.structural_equal(tvm.script.from_source(text), steal)


def test_query_cancel_cuda():
    src = source_of(steal)
    for text in ("ld.acquire.cta.shared.b128", "ld.shared.b128",
                 "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128",
                 "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128",
                 "fence.proxy.async.shared::cta", _TRY_CANCEL, "__uint128_t resp_ptr[1];"):
        assert text in src, text


@pytest.mark.skipif(nvcc.find_nvcc() is None, reason="nvcc is not installed")
def test_query_cancel_compiles():
    assert nvcc.compile_cuda(source_of(steal), "sm_100a")[:4] == b"\x7fELF"


@T.prim_func
def clc_gemm_skeleton(A: T.Buffer((16,), "int32")):
    T.device_entry()
    cid = T.cluster_id([16])
    cbx = T.cta_id_in_cluster([2])
    wg = T.warpgroup_id([2])
    warp = T.warp_id_in_wg([4])
    lane = T.lane_id([32])
    pool = T.SMEMPool()
    clc = ClusterLaunchControlScheduler(pool, 4, 4, 2, 2, 2)
    pool.commit()
    if wg == 0:
        if warp == 0:
            clc.run_scheduler(cbx)
    else:
        w = clc.worker("w")
        w.init(cid)
        while w.valid():
            if lane == 0:
                A[w.m_idx * 4 + w.n_idx] = 1
            w.consume_wg(wg, warp, lane)
            w.advance_coords()
            w.mark_done_if_drained()


def test_cluster_launch_control_scheduler():
    text = clc_gemm_skeleton.script()
    assert "while w__done == 0:" in text
    assert "T.cuda.warpgroup_sync(wg + 1)" in text
    assert f"if w__next != T.uint32({NO_CTA}):" in text
    # 4 x uint32 response at byte 32, after the two barrier pairs.
    assert 'T.decl_buffer((4,), "uint32", data=pool_buf.data, elem_offset=8' in text
    src = source_of(clc_gemm_skeleton)
    for piece in (_TRY_CANCEL, "mbarrier.arrive.expect_tx.shared.b64",
                  "mapa.shared::cluster.u32", "mbarrier.arrive.shared::cluster.b64",
                  # wg = warp_id_in_cta // 4, substituted by the simplifier (as in 0.27)
                  "tvm_builtin_cuda_warpgroup_sync(((warp_id_in_cta >> 2) + 1));"):
        assert piece in src, piece
