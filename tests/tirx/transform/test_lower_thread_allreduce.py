"""LowerThreadAllreduce: shuffles within warps, shared memory across warps; run in the SIMT
simulator against NumPy. The allreduce calls come from real schedules (a reduction loop
bound to threadIdx.x, lowered by LowerCrossThreadReduction and the block lowering)."""

import numpy as np
import pytest

import tvm
from tvm import s_tir, te
from tvm.s_tir.transform import LowerCrossThreadReduction, lower_sblocks
from tvm.tirx.gpu_simulator import simulate_prim_func
from tvm.tirx.stmt_functor import post_order_visit
from tvm.tirx.transform import LowerThreadAllreduce, ThreadSync


def _allreduce_func(rows, k, threads, kind="sum", row_axis="blockIdx.x", split=True):
    A = te.placeholder((rows, k), name="A")
    r = te.reduce_axis((0, k), name="r")
    op = {"sum": te.sum, "max": te.max}[kind]
    B = te.compute((rows,), lambda i: op(A[i, r], axis=r), name="B")
    sch = s_tir.Schedule(te.create_prim_func([A, B]))
    i, kk = sch.get_loops(sch.get_sblock("B"))
    sch.bind(i, row_axis)
    if split:
        _, kk = sch.split(kk, [None, threads])
    sch.bind(kk, "threadIdx.x")
    mod = LowerCrossThreadReduction()(sch.mod)
    return lower_sblocks(mod["main"])


def _lower(func):
    mod = tvm.IRModule({"main": func})
    return ThreadSync("shared")(LowerThreadAllreduce()(mod))["main"]


def _calls(func):
    out = []

    def visit(node):
        if type(node).__name__ == "Call":
            out.append(node.op.name.rsplit(".", 1)[-1])

    post_order_visit(func.body, visit)
    return out


@pytest.mark.parametrize("threads", [8, 32, 64, 256, 100, 7])
def test_row_sum(threads):
    func = _allreduce_func(3, 90, threads)
    assert "tvm_thread_allreduce" in _calls(func)
    lowered = _lower(func)
    calls = _calls(lowered)
    assert "tvm_thread_allreduce" not in calls
    if threads & (threads - 1) == 0:
        # log2(warp part) shuffles, then log2(number of warps) more across warps.
        expect = int(np.log2(min(threads, 32))) + (int(np.log2(threads // 32))
                                                   if threads > 32 else 0)
        assert calls.count("tvm_warp_shuffle_down") == expect
    else:
        assert "tvm_warp_shuffle_down" not in calls  # a shared-memory tree
        assert calls.count("tvm_storage_sync") >= int(np.ceil(np.log2(threads)))
    a = np.random.default_rng(threads).uniform(-1, 1, (3, 90)).astype("float32")
    b = np.zeros(3, "float32")
    simulate_prim_func(lowered, [a, b])
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_max_without_serial_part_uses_the_block_predicate():
    # All 50 reduction iterations bound to 50 threads: the value goes into the allreduce
    # directly (no in-thread buffer).
    func = _allreduce_func(2, 50, None, kind="max", split=False)
    assert "in_thread_B" not in func.script()
    a = np.random.default_rng(5).uniform(-1, 1, (2, 50)).astype("float32")
    b = np.zeros(2, "float32")
    simulate_prim_func(_lower(func), [a, b])
    np.testing.assert_allclose(b, a.max(axis=1), rtol=1e-6)


def test_groups_along_threadidx_y():
    func = _allreduce_func(4, 40, 16, row_axis="threadIdx.y")
    lowered = _lower(func)
    a = np.random.default_rng(6).uniform(-1, 1, (4, 40)).astype("float32")
    b = np.zeros(4, "float32")
    simulate_prim_func(lowered, [a, b])
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-6)


def test_lowered_text_has_tvm_shape():
    text = _lower(_allreduce_func(2, 64, 64)).script()
    # Shapes checked against Apache TVM 0.27's LowerThreadAllreduce output.
    assert "T.tvm_warp_activemask()" in text
    assert "T.tvm_warp_shuffle_down(mask, red_buf0, 16, 32, 32)" in text
    assert 'T.tvm_storage_sync("shared")' in text
    assert "T.alloc_shared((2,))" in text  # one staging slot per warp


def test_reduction_over_threadidx_y_is_not_supported():
    A = te.placeholder((1, 16), name="A")
    r = te.reduce_axis((0, 16), name="r")
    B = te.compute((1,), lambda i: te.sum(A[i, r], axis=r), name="B")
    sch = s_tir.Schedule(te.create_prim_func([A, B]))
    _, kk = sch.get_loops(sch.get_sblock("B"))
    sch.bind(kk, "threadIdx.y")
    func = lower_sblocks(LowerCrossThreadReduction()(sch.mod)["main"])
    with pytest.raises(ValueError, match="only threadIdx.x is supported"):
        _lower(func)
