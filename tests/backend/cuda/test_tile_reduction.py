"""CUDA reduction variants (src/tvm/backend/cuda/tile_primitive/reduction.py): warp scope
folds a strided share per lane then T.cuda.warp_reduce; CTA scope adds a shared partial per
warp. Structural checks (the interpreter has no cross-lane shuffles); the strided share is
checked to visit every reduced element once."""

# ruff: noqa: F841 - kernels name scope ids they define but do not read (as TVMScript does)

import itertools

import pytest
from tvm.script.tirx import tile as Tx

import tvm
from tvm.arith import Analyzer
from tvm.script import tirx as T
from tvm.tirx.operator.tile_primitive import list_registered_schedules
from tvm.tirx.stmt_functor import post_order_visit, substitute

TARGET = tvm.target.Target({"kind": "cuda", "arch": "sm_90a"}, host="llvm")


def lower(func):
    mod = tvm.IRModule({"main": func.with_attr("target", TARGET)})
    return tvm.tirx.transform.TilePrimitiveDispatch()(mod)["main"]


def calls(func, name):
    out = []
    post_order_visit(func.body, lambda n: out.append(n) if isinstance(n, tvm.tirx.Call)
                     and n.op.name == name else None)
    return out


def test_registered():
    table = list_registered_schedules()
    for op in ("sum", "max", "min"):
        assert table[f"tirx.tile.{op}"]["cuda"] == ["shared"]


@pytest.mark.parametrize("op", ["sum", "max", "min"])
def test_warp_row_reduction_structure(op):
    @T.prim_func
    def k(A: T.Buffer((4, 64), "float32"), B: T.Buffer((4,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        S = T.alloc_buffer((4, 64), "float32", scope="shared")
        getattr(Tx.warp, op)(B, S, [1])

    out = lower(k)
    text = out.script()
    assert f"for {op}_o in range(4):" in text
    assert f"for {op}_j in range(2):" in text
    (wr,) = calls(out, "tirx.cuda.warp_reduce")
    assert wr.args[1].value == op and wr.args[2].value == 32
    assert f"if lane == 0:\n            B[{op}_o] = {op}_acc" in text


def test_warp_share_covers_each_reduced_element_once():
    @T.prim_func
    def k(A: T.Buffer((3, 40), "float32"), B: T.Buffer((3,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        Tx.warp.sum(B, A, [1])

    out = lower(k)
    loads = []
    guards = []

    def visit(node):
        if isinstance(node, tvm.tirx.BufferLoad) and node.buffer.name == "A":
            loads.append(node)
        if isinstance(node, tvm.tirx.IfThenElse) and "sum_j" in str(node.condition):
            guards.append(node.condition)

    post_order_visit(out.body, visit)
    (load,) = loads
    (guard,) = guards  # 40 elements over 32 lanes: the second step is guarded
    free = {v.name: v for v in tvm.tirx.analysis.undefined_vars(load.indices[1])}
    j = next(v for v in tvm.tirx.analysis.undefined_vars(guard) if v.name == "sum_j")
    ana = Analyzer()
    seen = []
    for step, t in itertools.product(range(2), range(32)):
        vmap = {j: tvm.tirx.const(step, "int32"), free["lane"]: tvm.tirx.const(t, "int32")}
        if ana.simplify(substitute(guard, vmap)).value:
            seen.append(ana.simplify(substitute(load.indices[1], vmap)).value)
    assert sorted(seen) == list(range(40))


def test_cta_reduction_uses_shared_partials_and_syncs():
    @T.prim_func
    def k(A: T.Buffer((4, 64), "float32"), C: T.Buffer((1,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        tx = T.thread_id([128])
        S = T.alloc_buffer((4, 64), "float32", scope="shared")
        Tx.cta.max(C, S, [0, 1], True)

    out = lower(k)
    text = out.script()
    assert "max_partial = T.alloc_shared((4,))" in text
    assert "max_partial[tx // 32] = max_acc" in text
    assert len(calls(out, "tirx.cuda.warp_reduce")) == 2
    assert len(calls(out, "tirx.cuda.cta_sync")) == 2
    assert "if tx % 32 < 4:" in text
    assert "C[0] = T.max(C[0], max_part)" in text  # accum=True folds the old value in


def test_register_destination_every_lane_writes():
    @T.prim_func
    def k(A: T.Buffer((64,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        R = T.alloc_local((1,), "float32")
        Tx.warp.sum(R, A, [0])

    text = lower(k).script()
    assert "R_1 = sum_acc" in text and "if lane == 0" not in text  # R prints as a scalar


def test_register_source_rejected_with_reason():
    @T.prim_func
    def k(B: T.Buffer((1,), "float32")):
        T.device_entry()
        bx = T.cta_id([1])
        lane = T.lane_id([32])
        tx = T.thread_id([32])
        R = T.alloc_local((8,), "float32")
        Tx.warp.sum(B, R, [0])

    with pytest.raises(RuntimeError, match="register \\(local\\) source at warp/cta scope"):
        lower(k)
