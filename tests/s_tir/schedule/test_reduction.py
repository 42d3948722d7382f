"""decompose_reduction and rfactor."""

import pytest

import tvm
from tvm import s_tir


def _loops(sch, name):
    return sch.get_loops(sch.get_sblock(name))


def test_decompose_reduction_at_the_reduction_loop_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    _, k = _loops(sch, "C")
    init = sch.decompose_reduction(sch.get_sblock("C"), k)
    wl.assert_tvm_output(sch, "decomp_k")
    assert sch.get(init).name_hint == "C_init"


def test_decompose_reduction_at_the_outer_loop_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    i, _ = _loops(sch, "C")
    sch.decompose_reduction(sch.get_sblock("C"), i)
    wl.assert_tvm_output(sch, "decomp_i")


def test_decompose_reduction_renames_and_keeps_handles(wl):
    func = wl.matmul(9, 7, 5)
    sch = s_tir.Schedule(func)
    c = sch.get_sblock("C")
    _i, j, k = sch.get_loops(c)
    ko, _ki = sch.split(k, [None, 2])
    sch.reorder(ko, j)
    init = sch.decompose_reduction(c, ko)
    # The handle follows the renamed update block.
    assert sch.get(c).name_hint == "C_update"
    assert sch.get(c).init is None
    assert [sch.get(lp).loop_var.name for lp in sch.get_loops(init)] == ["i", "j_init"]
    inputs = [wl.rand(9, 5), wl.rand(7, 5, seed=1)]
    wl.assert_same_result(func, sch, inputs, (9, 7))
    wl.assert_replays(sch, func)


def test_decompose_reduction_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    bi, _ = _loops(sch, "B")
    with pytest.raises(s_tir.ScheduleError, match="The block 'B' has no init statement"):
        sch.decompose_reduction(sch.get_sblock("B"), bi)
    with pytest.raises(s_tir.ScheduleError, match="The loop i is not an ancestor of block 'C'"):
        sch.decompose_reduction(sch.get_sblock("C"), bi)
    ci, ck = _loops(sch, "C")
    fused = sch.fuse(ci, ck)
    with pytest.raises(s_tir.ScheduleError, match="drives both spatial and reduction"):
        sch.decompose_reduction(sch.get_sblock("C"), fused)


def test_rfactor_matches_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    _, k = _loops(sch, "C")
    _, ki = sch.split(k, [None, 4])
    rf = sch.rfactor(ki, 0)
    wl.assert_tvm_output(sch, "rfactor")
    assert sch.get(rf).name_hint == "C_rf"


@pytest.mark.parametrize("factor_axis", [0, 1, -1])
def test_rfactor_computes_the_same(wl, factor_axis):
    func = wl.matmul(5, 3, 7)
    sch = s_tir.Schedule(func)
    _i, _j, k = _loops(sch, "C")
    ko, _ki = sch.split(k, [None, 3])  # 9 > 7: the rf block is predicated
    sch.rfactor(ko, factor_axis)
    inputs = [wl.rand(5, 7), wl.rand(3, 7, seed=1)]
    wl.assert_same_result(func, sch, inputs, (5, 3))
    wl.assert_replays(sch, func)


def test_rfactor_of_a_max_reduction(wl):
    from tvm import te

    A = te.placeholder((6, 9), name="A")
    k = te.reduce_axis((0, 9), name="k")
    B = te.compute((6,), lambda i: te.max(A[i, k], axis=k), name="B")
    func = te.create_prim_func([A, B])
    sch = s_tir.Schedule(func)
    _, k = _loops(sch, "B")
    _, ki = sch.split(k, [None, 3])
    sch.rfactor(ki, 1)
    assert "B_rf = T.sblock_alloc_buffer((6, 3))" in wl.script(sch)
    wl.assert_same_result(func, sch, [wl.rand(6, 9)], (6,))


def test_rfactor_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    ci, ck = _loops(sch, "C")
    with pytest.raises(s_tir.ScheduleError,
                       match="The loop i must drive only reduction iteration variables"):
        sch.rfactor(ci, 0)
    bi, _ = _loops(sch, "B")
    with pytest.raises(s_tir.ScheduleError, match="'B' is not a reduction block"):
        sch.rfactor(bi, 0)
    with pytest.raises(s_tir.ScheduleError, match="factor_axis 5 is out of range"):
        sch.rfactor(ck, 5)


def test_decompose_reduction_below_a_reduction_loop_is_refused(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    c = sch.get_sblock("C")
    i, k = sch.get_loops(c)
    sch.reorder(k, i)
    with pytest.raises(s_tir.ScheduleError, match="The loop k above loop i drives a reduction "
                       "iteration variable of block 'C'"):
        sch.decompose_reduction(c, i)
    sch.decompose_reduction(c, k)


def _rowsum(init_value, par=False, write_k=False, swap=False):
    """A row sum in TVMScript text with one precondition of rfactor broken on request."""
    loop = "T.parallel(0, 8)" if par else "range(8)"
    out = "B[vi, vk]" if write_k else "B[vi, 0]"
    upd = "B[vi, vk]" if write_k else ("B[0, vi]" if swap else "B[vi, 0]")
    text = f"""
@T.prim_func(s_tir=True)
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32")):
    for i in range(8):
        for k in {loop}:
            with T.sblock("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    {out} = T.float32({init_value})
                {upd} = {upd} + A[vi, vk]
"""
    return tvm.script.from_source(text)


@pytest.mark.parametrize("kwargs,message", [
    ({"init_value": 1}, "is not the identity element"),
    ({"init_value": 0, "par": True}, "must be a serial loop, but it is parallel"),
    ({"init_value": 0, "write_k": True}, "uses a reduction iteration variable"),
    ({"init_value": 0, "swap": True}, "must be a single BufferStore to the element"),
])
def test_rfactor_preconditions(kwargs, message):
    sch = s_tir.Schedule(_rowsum(**kwargs), error_render_level="fast")
    _, k = sch.get_loops(sch.get_sblock("B"))
    with pytest.raises(s_tir.ScheduleError, match=message):
        sch.rfactor(k, 0)


def test_rfactor_accepts_the_identity_init():
    sch = s_tir.Schedule(_rowsum(init_value=0))
    _, k = sch.get_loops(sch.get_sblock("B"))
    sch.rfactor(k, 0)
    assert "B_rf" in sch.mod.script()
