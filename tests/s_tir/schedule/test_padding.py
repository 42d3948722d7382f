"""decompose_padding and can_decompose_padding."""

import pytest

from tvm import s_tir, te, tirx


def _pad(n=2, m=9, before=1, after=1):
    A = te.placeholder((n, m), name="A")
    width = m + before + after
    P = te.compute((n, width), lambda c, x: tirx.if_then_else(
        tirx.all(x >= before, x < m + before), A[c, x - before], tirx.const(0.0, "float32")),
        name="P")
    B = te.compute((n, width), lambda c, x: P[c, x] * 2.0, name="B")
    return te.create_prim_func([A, B])


@pytest.mark.parametrize("at, name", [(0, "decompose_padding_outer"),
                                      (1, "decompose_padding_inner")])
def test_decompose_padding_matches_tvm(wl, at, name):
    sch = s_tir.Schedule(_pad())
    loop = sch.get_loops("P")[at]
    assert sch.can_decompose_padding(sch.get_sblock("P"), loop)
    fill = sch.decompose_padding("P", loop)
    assert wl.script(sch) == wl.tvm_output(name)[0]
    assert sch.get(fill).name_hint == "P_pad_const"


@pytest.mark.parametrize("at", [0, 1])
def test_decompose_padding_computes_the_same(wl, at):
    func = _pad(3, 5, before=2, after=1)
    sch = s_tir.Schedule(func)
    sch.decompose_padding("P", sch.get_loops("P")[at])
    wl.assert_same_result(func, sch, [wl.rand(3, 5)], (3, 8))
    wl.assert_replays(sch, func)


def test_decompose_padding_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    b = sch.get_sblock("B")
    i, _ = sch.get_loops(b)
    assert not sch.can_decompose_padding(b, i)
    with pytest.raises(s_tir.ScheduleError, match="'B' is not a padding block"):
        sch.decompose_padding(b, i)
    pad = s_tir.Schedule(_pad(), error_render_level="fast")
    with pytest.raises(s_tir.ScheduleError, match="is not an ancestor of block 'P'"):
        pad.decompose_padding("P", pad.get_loops("B")[0])
    # A condition that is not constant bounds on the iterators.
    A = te.placeholder((6,), name="A")
    P = te.compute((6,), lambda x: tirx.if_then_else((x % 2) == 0, A[x],
                                                     tirx.const(0.0, "float32")), name="P")
    odd = s_tir.Schedule(te.create_prim_func([A, P]), error_render_level="fast")
    with pytest.raises(s_tir.ScheduleError, match="must be constant bounds"):
        odd.decompose_padding("P", odd.get_loops("P")[0])
