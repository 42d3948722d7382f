"""``tvm.tirx.exec_context``: active sets, filters and scope switches of TIRx kernels."""

import pytest

from tvm.tirx.exec_context import (
    CLUSTER,
    CTA,
    LANE_CTA_THREAD,
    LANE_FLAT,
    LANE_W_INNER,
    LANE_WG_OUTER,
    LANE_WG_THREAD,
    THREAD,
    WARP,
    WARPGROUP,
    AxisRange,
    ExecContext,
    ExecContextError,
    LaneBinding,
    filter_modulo,
    filter_narrow,
    initial_A,
    scope_switch,
)

WARPS = LaneBinding("warpid", LANE_FLAT, 8)
LANES = LaneBinding("laneid", LANE_FLAT, 32)
CTAS = LaneBinding("cta_id", LANE_FLAT, 2)
WGS = LaneBinding("warpid", LANE_WG_OUTER, 2)
WARP_IN_WG = LaneBinding("warpid", LANE_W_INNER, 4)
CTA_THREADS = LaneBinding("thread", LANE_CTA_THREAD, 256)
WG_THREADS = LaneBinding("thread", LANE_WG_THREAD, 128)


def test_kernel_entry_covers_every_thread():
    A = initial_A(warp_ext=8, cta_ext=2)
    assert (A.laneid, A.warpid, A.cta_id) == (AxisRange(32, 0), AxisRange(8, 0), AxisRange(2, 0))
    assert A.size == 32 * 8 * 2
    ctx = ExecContext.at_kernel_entry(8, 2)
    assert ctx.scope_kind == CLUSTER and ctx.inter == {}


@pytest.mark.parametrize("kappa,inter", [
    (THREAD, {"laneid", "warpid", "cta_id"}),
    (WARP, {"warpid", "cta_id"}),
    (WARPGROUP, {"wgid", "cta_id"}),
    (CTA, {"cta_id"}),
    (CLUSTER, set()),
])
def test_each_scope_splits_the_axes(kappa, inter):
    split = scope_switch(initial_A(8), kappa)
    assert set(split.inter) == inter
    # Every axis is on exactly one side (warpid is factored at warpgroup scope).
    sides = set(split.inter) | set(split.intra)
    assert sides == ({"laneid", "wgid", "wid_in_wg", "cta_id"} if kappa == WARPGROUP
                     else {"laneid", "warpid", "cta_id"})


def test_warpgroup_factoring():
    # Whole warpgroups 1..2.
    split = scope_switch(filter_narrow(initial_A(12), WARPS, 4, 12), WARPGROUP)
    assert split.inter["wgid"] == AxisRange(2, 1)
    assert split.intra["wid_in_wg"] == AxisRange(4, 0)
    # Warps 5..6: inside warpgroup 1.
    split = scope_switch(filter_narrow(initial_A(12), WARPS, 5, 7), WARPGROUP)
    assert split.inter["wgid"] == AxisRange(1, 1)
    assert split.intra["wid_in_wg"] == AxisRange(2, 1)
    # Warps 3..4 straddle warpgroups 0 and 1.
    with pytest.raises(ExecContextError, match="crosses warpgroup boundary"):
        scope_switch(filter_narrow(initial_A(12), WARPS, 3, 5), WARPGROUP)


def test_role_branches_of_a_specialised_kernel():
    root = ExecContext.at_kernel_entry(8).with_scope_switch(CTA)
    producer = root.with_filter(WARPS, 0, 1).with_scope_switch(WARP)
    assert producer.inter == {"warpid": AxisRange(1, 0), "cta_id": AxisRange(1, 0)}
    consumers = root.with_filter(WARPS, 4, 8).with_scope_switch(WARPGROUP)
    assert consumers.inter["wgid"] == AxisRange(1, 1)
    elected = producer.with_filter(LANES, 0, 1)
    assert elected.intra == {"laneid": AxisRange(1, 0)} and elected.A.size == 1
    assert root.A.warpid == AxisRange(8, 0)  # the parent context is untouched


def test_modulo_filter_keeps_a_stride():
    A = filter_modulo(initial_A(4, cta_ext=6), "cta_id", 3, 1)
    assert A.cta_id == AxisRange(2, 1, 3)
    assert filter_narrow(A, CTAS, 2, 6).cta_id == AxisRange(1, 4, 3)


def test_thread_index_filters():
    A = initial_A(8)
    assert filter_narrow(A, CTA_THREADS, 64, 128).warpid == AxisRange(2, 2)
    one_warp = filter_narrow(A, CTA_THREADS, 100, 104)
    assert (one_warp.warpid, one_warp.laneid) == (AxisRange(1, 3), AxisRange(4, 4))
    second_wg = filter_narrow(A, WGS, 1, 2)
    assert filter_narrow(second_wg, WG_THREADS, 0, 32).warpid == AxisRange(1, 4)
    assert filter_narrow(second_wg, WARP_IN_WG, 2, 4).warpid == AxisRange(2, 6)
    assert filter_narrow(A, WG_THREADS, 0, 128) == A


@pytest.mark.parametrize("binding,lo,hi,message", [
    (WARPS, 3, 3, "empty or inverted"),
    (CTA_THREADS, 16, 48, "non-rectangular"),
    (WG_THREADS, 0, 32, "multiple warpgroups"),
    (WARP_IN_WG, 0, 1, "spans multiple warpgroups"),
    (LaneBinding("rowid"), 0, 1, "unknown axis"),
])
def test_filter_errors(binding, lo, hi, message):
    with pytest.raises(ExecContextError, match=message):
        filter_narrow(initial_A(8), binding, lo, hi)


def test_filter_errors_after_narrowing():
    A = filter_narrow(initial_A(8), WARPS, 1, 3)
    with pytest.raises(ExecContextError, match="aligned to WG_SIZE"):
        filter_narrow(A, WGS, 0, 1)
    with pytest.raises(ExecContextError, match="empty range"):
        filter_narrow(A, WARPS, 4, 8)
    with pytest.raises(ExecContextError, match="Unknown scope"):
        scope_switch(A, "grid")
