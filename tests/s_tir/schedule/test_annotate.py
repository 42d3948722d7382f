"""annotate and unannotate."""

import pytest

from tvm import s_tir


def test_annotate_and_unannotate_match_tvm(wl):
    sch = s_tir.Schedule(wl.chain())
    i, _ = sch.get_loops(sch.get_sblock("B"))
    sch.annotate(i, "pragma_x", 1)
    sch.annotate(sch.get_sblock("B"), "meta", "s")
    sch.unannotate(i, "pragma_x")
    wl.assert_tvm_output(sch, "annot")


def test_annotations_are_stored_and_compute_the_same(wl):
    func = wl.elemwise()
    sch = s_tir.Schedule(func)
    b = sch.get_sblock("C")
    i, _ = sch.get_loops(b)
    sch.annotate(i, "pragma_auto_unroll_max_step", 16)
    sch.annotate(b, "tags", ["a", 2])
    assert dict(sch.get(i).annotations) == {"pragma_auto_unroll_max_step": 16}
    assert "tags" in dict(sch.get(b).annotations)
    assert 'T.serial(7, annotations={"pragma_auto_unroll_max_step": 16})' in wl.script(sch)
    wl.assert_same_result(func, sch, [wl.rand(7, 5)], (7, 5))
    wl.assert_replays(sch, func)


def test_annotate_errors(wl):
    sch = s_tir.Schedule(wl.chain(), error_render_level="fast")
    b = sch.get_sblock("B")
    with pytest.raises(s_tir.ScheduleError, match="The annotation 'x' is not present"):
        sch.unannotate(b, "x")
    with pytest.raises(TypeError, match="ann_key must be a str"):
        sch.annotate(b, 1, 2)
    with pytest.raises(TypeError, match="unsupported annotation value"):
        sch.annotate(b, "k", object())
