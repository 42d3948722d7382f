# ruff: noqa: F841, RUF059 - kernels name scope ids they define but do not read (as TVMScript does)
"""The execution context TilePrimitiveDispatch hands to a variant (``sctx.inter/intra``):
the active threads at a tile call, narrowed by the enclosing ``if``s on scope ids."""

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.script import tirx as T
from tvm.tirx.operator.tile_primitive import dispatcher
from tvm.tirx.operator.tile_primitive.dispatcher import register_dispatch
from tvm.tirx.transform import LowerTIRx
from tvm.tirx.transform._dispatch_exec import Rng, intersect, modulo

VARIANT = "__exec_probe__"


@pytest.fixture
def seen():
    saved = {k: list(v) for k, v in dispatcher._DISPATCH_TABLE.items()}
    calls = []

    @register_dispatch("copy", "cuda", variant=VARIANT, priority=10_000)
    def _probe(op_call, sctx):
        calls.append(sctx)

        @T.prim_func(private=True)
        def impl():
            T.evaluate(0)

        return impl

    yield calls
    dispatcher._DISPATCH_TABLE.clear()
    dispatcher._DISPATCH_TABLE.update(saved)


def lower(func):
    with tvm.target.Target("cuda"):
        LowerTIRx()(tvm.IRModule({"main": func}))


def ints(side):
    return {k: tuple(int(x) for x in v) for k, v in side.items()}


def test_flat_thread_range_inside_one_warp(seen):
    @T.prim_func(private=True)
    def k(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "float32")):
        T.device_entry()
        T.cta_id([1])
        tid = T.thread_id([256])
        if (34 <= tid) & (tid < 40):
            Tx.copy(B[0:1], A[0:1], dispatch=VARIANT)

    lower(k)
    assert ints(seen[0].inter) == {"laneid": (6, 2), "warpid": (1, 1), "cta_id": (1, 0)}
    assert seen[0].intra == {}


def test_warpgroup_scope_splits_warps(seen):
    @T.prim_func(private=True)
    def k(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "float32")):
        T.device_entry()
        T.cta_id([1])
        wg = T.warpgroup_id([2])
        tid_in_wg = T.thread_id_in_wg([128])
        if ((32 <= tid_in_wg) & (tid_in_wg < 64)) & (wg == 1):
            Tx.wg.copy(B[0:1], A[0:1], dispatch=VARIANT)

    lower(k)
    assert ints(seen[0].inter) == {"wgid": (1, 1), "cta_id": (1, 0)}
    assert ints(seen[0].intra) == {"laneid": (32, 0), "wid_in_wg": (1, 1)}


def test_cluster_axes_modulo_and_cta_pair(seen):
    @T.prim_func(private=True)
    def k(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "float32")):
        T.device_entry()
        bx = T.cta_id([8])
        cbx, cby = T.cta_id_in_cluster([4, 2])
        pair = T.cta_id_in_pair()
        T.thread_id([32])
        if cbx % 2 == 1:
            Tx.copy(B[0:1], A[0:1], dispatch=VARIANT)
        if pair == 0:
            Tx.copy(B[0:1], A[0:1], dispatch=VARIANT)
        if bx == 0:  # the grid index says nothing about the CTA in its cluster
            Tx.copy(B[0:1], A[0:1], dispatch=VARIANT)

    lower(k)
    modulo_ctx, pair_ctx, grid_ctx = (ints(s.inter) for s in seen)
    assert modulo_ctx["cbx"] == (2, 1, 2) and modulo_ctx["cby"] == (2, 0)
    assert pair_ctx["cbx"] == (2, 0, 2) and pair_ctx["cby"] == (2, 0)
    assert grid_ctx["cbx"] == (4, 0) and grid_ctx["cby"] == (2, 0)


def test_elect_sync_selects_one_lane(seen):
    @T.prim_func(private=True)
    def k(A: T.Buffer((1,), "float32"), B: T.Buffer((1,), "float32")):
        T.device_entry()
        T.cta_id([1])
        warp = T.warp_id([4])
        lane_id = T.lane_id([32])
        if (warp == 2) & T.cuda.elect_sync():
            Tx.copy(B[0:1], A[0:1], dispatch=VARIANT)

    lower(k)
    lane = seen[0].inter["laneid"]
    assert int(lane[0]) == 1
    assert lane[1].script() == "T.selector(lane_id, T.cuda.elect_sync())"
    assert ints({"w": seen[0].inter["warpid"]}) == {"w": (1, 2)}


def test_unrecognised_condition_keeps_the_set(seen):
    @T.prim_func(private=True)
    def k(A: T.Buffer((4,), "float32"), B: T.Buffer((1,), "float32")):
        T.device_entry()
        T.cta_id([1])
        warp = T.warp_id([4])
        T.lane_id([32])
        if A[warp] > T.float32(0):
            Tx.copy(B[0:1], A[0:1], dispatch=VARIANT)

    lower(k)
    assert ints(seen[0].inter) == {"laneid": (32, 0), "warpid": (4, 0), "cta_id": (1, 0)}


def test_progressions():
    assert intersect(Rng(8, 0, 2), 3, 11) == Rng(4, 4, 2)
    assert intersect(Rng(4, 0), 5, 9) is None
    assert modulo(Rng(6, 1), 3, 2) == Rng(2, 2, 3)
    assert modulo(Rng(4, 0, 2), 2, 1) is None
