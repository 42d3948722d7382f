"""blockize."""

import pytest

from tvm import s_tir


def _tile(sch):
    c = sch.get_sblock("C")
    i, j, k = sch.get_loops(c)
    io, ii = sch.split(i, [None, 4])
    jo, ji = sch.split(j, [None, 4])
    ko, ki = sch.split(k, [None, 4])
    sch.reorder(io, jo, ko, ii, ji, ki)
    return ii


def test_blockize_of_a_reduction_tile_matches_tvm(wl):
    sch = s_tir.Schedule(wl.matmul(16, 12, 8))
    outer = sch.blockize(_tile(sch))
    wl.assert_tvm_output(sch, "blockize_gemm")
    assert sch.get(outer).name_hint == "C_o"
    # The original handle now names the inner block.
    assert sch.get(sch.get_sblock("C")).iter_vars[0].var.name == "v_i_i"


def test_blockize_of_an_elementwise_tile_matches_tvm(wl):
    sch = s_tir.Schedule(wl.elemwise(8, 6))
    _, j = sch.get_loops(sch.get_sblock("B"))
    _, ji = sch.split(j, [None, 3])
    sch.blockize(ji)
    assert wl.script(sch) == wl.tvm_output("blockize_elemwise")[0]


@pytest.mark.parametrize("at", [0, 3, 5])
def test_blockize_computes_the_same(wl, at):
    func = wl.matmul(8, 12, 8)
    sch = s_tir.Schedule(func)
    _tile(sch)
    loops = sch.get_loops(sch.get_sblock("C"))
    sch.blockize(loops[at])
    inputs = [wl.rand(8, 8), wl.rand(12, 8, seed=1)]
    wl.assert_same_result(func, sch, inputs, (8, 12))
    wl.assert_replays(sch, func)


def test_blockize_errors(wl):
    sch = s_tir.Schedule(wl.matmul(6, 4, 3), error_render_level="fast")
    c = sch.get_sblock("C")
    i, j, _ = sch.get_loops(c)
    f = sch.fuse(i, j)
    _, fi = sch.split(f, [None, 5])  # 24 = 5 * 5 - 1: predicated
    with pytest.raises(s_tir.ScheduleError, match="has a predicate"):
        sch.blockize(fi)
    sch2 = s_tir.Schedule(wl.matmul(6, 4, 3), error_render_level="fast")
    i, j, _ = sch2.get_loops(sch2.get_sblock("C"))
    f = sch2.fuse(i, j)
    _, fi = sch2.split(f, [None, 3])
    with pytest.raises(s_tir.ScheduleError, match="mixes loops inside and outside"):
        sch2.blockize(fi)
    sch3 = s_tir.Schedule(wl.chain(), error_render_level="fast")
    sch3.compute_at(sch3.get_sblock("B"), sch3.get_loops(sch3.get_sblock("C"))[0])
    with pytest.raises(s_tir.ScheduleError, match="single chain down to one block"):
        sch3.blockize(sch3.get_loops(sch3.get_sblock("C"))[0])
