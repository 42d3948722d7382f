"""The s_tir GPU lowering passes: LowerCrossThreadReduction, PlanAndUpdateBufferAllocation-
Location, CompactBufferAllocation, DefaultGPUSchedule, and the default pipeline for GPU
targets."""

import numpy as np
import pytest

import tvm
from tvm import s_tir, te
from tvm.s_tir.transform import (
    CompactBufferAllocation,
    ConvertBlocksToOpaque,
    DefaultGPUSchedule,
    LowerCrossThreadReduction,
    LowerInitBlock,
    PlanAndUpdateBufferAllocationLocation,
    lower_for_gpu,
)
from tvm.tirx.gpu_simulator import simulate_prim_func
from tvm.tirx.stmt_functor import post_order_visit


def _row_sum_bound(rows=4, n=100, threads=64):
    A = te.placeholder((rows, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((rows,), lambda i: te.sum(A[i, k], axis=k), name="B")
    sch = s_tir.Schedule(te.create_prim_func([A, B]))
    i, kk = sch.get_loops(sch.get_sblock("B"))
    _, ki = sch.split(kk, [None, threads])
    sch.bind(i, "blockIdx.x")
    sch.bind(ki, "threadIdx.x")
    return sch.mod


def test_cross_thread_reduction_matches_tvm_shape():
    text = LowerCrossThreadReduction()(_row_sum_bound())["main"].script()
    # The stages of Apache TVM 0.27's output: in-thread init and loop, the allreduce under
    # reduce_scope, and the write-back from thread 0.
    for piece in (
        'T.sblock("B_in_thread_init")',
        "in_thread_B[0] = T.float32(0.0)",
        'T.sblock("B_in_thread")',
        "in_thread_B[0] = in_thread_B[0] + A[v_i, v_k]",
        ('with T.attr(T.comm_reducer(lambda x0, y0: x0 + y0, [T.float32(0.0)]), '
        '"reduce_scope", 0):'),
        ("T.tvm_thread_allreduce(T.uint32(1), in_thread_B[0], T.bool(True), "
        "cross_thread_B[0], k_1)"),
        'T.sblock("B_write_back")',
        "T.where(k_1 == 0)",
        "B[v_i] = cross_thread_B[0]",
    ):
        assert piece in text, piece
    # The thread loop now encloses the serial part of the reduction.
    assert text.index("for k_1 in T.thread_binding") < text.index("for k_0 in range(2)")


def test_cross_thread_reduction_leaves_other_functions_alone():
    A = te.placeholder((4, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    mod = tvm.IRModule({"main": te.create_prim_func([A, B])})
    assert LowerCrossThreadReduction()(mod)["main"] is mod["main"]


def test_cross_thread_reduction_rejects_unknown_reducers():
    A = te.placeholder((4, 32), name="A")
    k = te.reduce_axis((0, 32), name="k")
    sub = te.comm_reducer(lambda x, y: x - y, lambda t: tvm.tirx.const(0, t), name="sub")
    B = te.compute((4,), lambda i: sub(A[i, k], axis=k), name="B")
    sch = s_tir.Schedule(te.create_prim_func([A, B]))
    _, kk = sch.get_loops(sch.get_sblock("B"))
    sch.bind(kk, "threadIdx.x")
    with pytest.raises(ValueError, match="op in \\+, \\*, max, min"):
        LowerCrossThreadReduction()(sch.mod)


def _allocs(func):
    out = {}

    def visit(node):
        if type(node).__name__ == "SBlock":
            for b in node.alloc_buffers:
                out[b.name] = (node.name_hint, tuple(int(d) for d in b.shape))

    post_order_visit(func.body, visit)
    return out


def _tiled_copy():
    """A 2-stage copy through a shared tile per CTA and a local value per thread."""
    A = te.placeholder((64, 64), name="A")
    B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
    sch = s_tir.Schedule(te.create_prim_func([A, B]))
    blk = sch.get_sblock("B")
    i, j = sch.get_loops(blk)
    io, ii = sch.split(i, [None, 16])
    jo, ji = sch.split(j, [None, 16])
    sch.reorder(io, jo, ii, ji)
    sch.bind(io, "blockIdx.y")
    sch.bind(jo, "blockIdx.x")
    sch.bind(ii, "threadIdx.y")
    sch.bind(ji, "threadIdx.x")
    shared = sch.cache_read(blk, 0, "shared")
    sch.compute_at(shared, jo)
    loops = sch.get_loops(shared)[2:]
    fy, fx = loops
    sch.bind(fy, "threadIdx.y")
    sch.bind(fx, "threadIdx.x")
    local = sch.cache_write(blk, 0, "local")
    sch.reverse_compute_at(local, ji)
    return sch.mod


def test_plan_moves_onchip_buffers_and_compact_shrinks_them():
    mod = _tiled_copy()
    assert _allocs(mod["main"])["A_shared"] == ("root", (64, 64))
    planned = PlanAndUpdateBufferAllocationLocation()(LowerInitBlock()(mod))
    allocs = _allocs(planned["main"])
    assert allocs["A_shared"][0] != "root" and allocs["B_local"][0] != "root"
    compact = CompactBufferAllocation()(ConvertBlocksToOpaque()(planned))
    allocs = _allocs(compact["main"])
    assert allocs["A_shared"][1] == (16, 16)  # the CTA's tile
    assert allocs["B_local"][1] == (1, 1)  # one element per thread
    a = np.random.default_rng(0).uniform(size=(64, 64)).astype("float32")
    b = np.zeros_like(a)
    simulate_prim_func(lower_for_gpu(mod)["main"], [a, b])
    np.testing.assert_allclose(b, a * 2)


def test_global_buffers_stay_in_the_root_block():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    mod = tvm.IRModule({"main": te.create_prim_func([A, C])})
    planned = PlanAndUpdateBufferAllocationLocation()(mod)
    assert _allocs(planned["main"])["B"][0] == "root"


def test_default_gpu_schedule_binds_unscheduled_gpu_functions():
    A = te.placeholder((4, 100), name="A")
    B = te.compute((4, 100), lambda i, j: A[i, j] + 1.0, name="B")
    f = te.create_prim_func([A, B])
    cuda = DefaultGPUSchedule()(tvm.IRModule({"main": f.with_attr("target",
                                                                  tvm.target.Target("cuda"))}))
    text = cuda["main"].script()
    assert 'thread="blockIdx.x"' in text and 'thread="threadIdx.x"' in text
    assert bool(cuda["main"].attrs["tirx.is_scheduled"])
    cpu = tvm.IRModule({"main": f.with_attr("target", tvm.target.Target("llvm"))})
    assert DefaultGPUSchedule()(cpu)["main"] is cpu["main"]
    with tvm.target.Target("cuda"):
        ctx = DefaultGPUSchedule()(tvm.IRModule({"main": f}))
    a = np.random.default_rng(1).uniform(size=(4, 100)).astype("float32")
    b = np.zeros_like(a)
    simulate_prim_func(lower_for_gpu(ctx)["main"], [a, b])
    np.testing.assert_allclose(b, a + 1)


def test_default_pipeline_lowers_gpu_schedules_for_gpu_targets():
    mod = _row_sum_bound()
    from tvm.tirx.compilation_pipeline import get_tir_pipeline

    passes = [p.info.name for p in get_tir_pipeline("default")(tvm.target.Target("cuda")).passes]
    assert passes[:3] == ["s_tir.LowerCrossThreadReduction", "s_tir.LowerInitBlock",
                          "s_tir.PlanAndUpdateBufferAllocationLocation"]
    assert "tirx.LowerThreadAllreduce" in passes and "tirx.ThreadSync" in passes
    cpu = [p.info.name for p in get_tir_pipeline("default")(tvm.target.Target("llvm")).passes]
    assert "tirx.LowerThreadAllreduce" not in cpu
    lowered = lower_for_gpu(mod)["main"]
    a = np.random.default_rng(2).uniform(size=(4, 100)).astype("float32")
    b = np.zeros(4, "float32")
    simulate_prim_func(lowered, [a, b])
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5)
