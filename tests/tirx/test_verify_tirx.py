"""``verify_tirx_well_formed``: device entry, scope ids and their extents (spec D.6)."""

import pytest

from tvm.script import tirx as T
from tvm.tirx.analysis import verify_tirx_well_formed as verify


@T.prim_func(check_well_formed=False)
def consistent():
    T.device_entry()
    bx, by, bz = T.cta_id([8, 10, 12])
    cbx, cby, cbz = T.cta_id_in_cluster([2, 2, 1])
    clx, cly, clz = T.cluster_id([4, 5, 12])
    T.warp_id([4])
    T.lane_id([32])
    T.thread_id([128])
    T.evaluate(bx + by + bz + cbx + cby + cbz + clx + cly + clz)


def test_consistent_kernel_passes():
    assert verify(consistent)
    assert verify(consistent, device_func=True)


def test_deferred_extents_are_tolerated():
    @T.prim_func(check_well_formed=False)
    def deferred():
        T.device_entry()
        bx = T.cta_id()
        wg = T.warpgroup_id()
        lane = T.lane_id()
        T.warp_id([4])
        T.thread_id()
        T.evaluate(bx + wg + lane)

    assert verify(deferred)


def test_inconsistent_thread_extent_is_underlined():
    @T.prim_func(check_well_formed=False)
    def bad():
        T.device_entry()
        T.cta_id([32])
        T.warp_id([2])
        T.lane_id([32])
        T.thread_id([128])

    with pytest.raises(ValueError, match="Inconsistent extents for scope cta->thread") as info:
        verify(bad)
    lines = str(info.value).splitlines()
    row = next(i for i, line in enumerate(lines) if "T.thread_id([128])" in line)
    assert set(lines[row + 1].strip()) == {"^"}
    assert not verify(bad, assert_mode=False)


def test_inconsistent_cluster_shape():
    @T.prim_func(check_well_formed=False)
    def bad():
        T.device_entry()
        bx, by = T.cta_id([8, 10])
        cbx, cby = T.cta_id_in_cluster([2, 2])
        clx, cly = T.cluster_id([3, 5])
        T.evaluate(bx + by + cbx + cby + clx + cly)

    with pytest.raises(ValueError, match="Inconsistent extents for scope kernel->cta"):
        verify(bad)


def test_non_divisible_extents():
    @T.prim_func(check_well_formed=False)
    def bad():
        T.device_entry()
        T.warp_id([3])
        T.thread_id([128])

    with pytest.raises(ValueError, match="non-divisible extents"):
        verify(bad)


def test_twice_defined_scope_must_agree():
    @T.prim_func(check_well_formed=False)
    def bad():
        T.device_entry()
        T.warp_id([4])
        T.lane_id([32])
        T.thread_id()
        T.thread_id([64])

    with pytest.raises(ValueError, match="Inconsistent extents for scope cta->thread"):
        verify(bad)


def test_preferred_extents_size():
    @T.prim_func(check_well_formed=False)
    def bad():
        T.device_entry()
        cbx, cby = T.cta_id_in_cluster([2, 1], preferred=[2])
        T.evaluate(cbx + cby)

    with pytest.raises(ValueError, match="preferred_extents must have the same size"):
        verify(bad)


def test_scope_id_in_host_code():
    @T.prim_func(check_well_formed=False)
    def bad(A: T.Buffer((4,), "float32")):
        bx = T.cta_id([4])
        T.device_entry()
        A[bx] = T.float32(0)

    with pytest.raises(ValueError, match="defined in host code"):
        verify(bad)


def test_nested_device_entry():
    @T.prim_func(check_well_formed=False)
    def bad():
        T.device_entry()
        T.device_entry()
        T.evaluate(0)

    with pytest.raises(ValueError, match="Nested T.device_entry"):
        verify(bad)


def test_parse_time_check_runs_the_kernel_rules():
    from tvm.error import DiagnosticError

    with pytest.raises(DiagnosticError, match="Inconsistent extents"):
        @T.prim_func
        def bad():
            T.device_entry()
            T.warp_id([2])
            T.lane_id([32])
            T.thread_id([128])
