"""tvm.tirx.layout: axes, the S/R/offset spec, printed forms, the algebra and factories.

Expected strings were checked against Apache TVM 0.27's printing of the same layouts.
"""

import pytest

import tvm
from tvm.error import InternalError
from tvm.ir import Range, assert_structural_equal
from tvm.tirx import Var
from tvm.tirx.layout import (
    Axis,
    ComposeLayout,
    Iter,
    R,
    S,
    SwizzleMode,
    TileLayout,
    laneid,
    m,
    mma_shared_layout,
    tcgen05_atom_layout,
    tid_in_wg,
    tmem_datapath_layout,
    tmem_mma_operand_layout,
    tx,
    warpid,
    wg_local_layout,
    wid_in_wg,
)
from tvm.tirx.layout import F as F_AXIS
from tvm.tirx.layout import P as P_AXIS


def ints(result):
    return {k: int(v) for k, v in result.items()}


# --- axes -----------------------------------------------------------------------------------
def test_axes_are_registered_singletons_with_scopes():
    assert Axis.get("laneid") is laneid is Axis.laneid
    assert laneid.is_thread() and not laneid.is_memory()
    assert m.is_memory() and Axis.TCol.is_memory() and Axis.get("Bank").is_memory()
    assert (laneid.get_scope().name, laneid.get_subscope().name) == ("warp", "thread")
    assert (warpid.get_scope().name, warpid.get_subscope().name) == ("cta", "warp")
    assert (Axis.cbx.get_scope().name, Axis.cbx.get_subscope().name) == ("cluster", "cta")
    assert m.get_scope() is None and m.get_subscope() is None
    assert repr(laneid) == 'tirx.Axis(name="laneid")'


def test_unknown_axes_and_direct_construction_are_rejected():
    with pytest.raises(ValueError, match="unknown layout axis 'lane'"):
        Axis.get("lane")
    with pytest.raises(TypeError, match=r"Axis\.get"):
        Axis("laneid")
    with pytest.raises(AttributeError, match="nope"):
        from tvm.tirx import layout

        layout.nope  # noqa: B018


# --- construction and printing --------------------------------------------------------------
@pytest.mark.parametrize(
    ("layout", "text"),
    [
        (TileLayout(S[8, 4]), "T.TileLayout(T.S[(8, 4):(4, 1)])"),
        (TileLayout(S[8:1]), "T.TileLayout(T.S[8:1])"),
        (TileLayout(S[(8, 4, 2):(4 @ laneid, 1 @ laneid, 1)]),
         "T.TileLayout(T.S[(8, 4, 2):(4 @ Axis.laneid, 1 @ Axis.laneid, 1)])"),
        (TileLayout(R[32 : 1 @ laneid]), "T.TileLayout(T.R[32:1 @ Axis.laneid])"),
        (TileLayout(S[8 : 4 @ laneid] + R[4 : 1 @ laneid] + 2 @ warpid + 64),
         ("T.TileLayout(T.S[8:4 @ Axis.laneid] + T.R[4:1 @ Axis.laneid] + "
         "(64 + 2 @ Axis.warpid))")),
        (TileLayout(S[(8, 8):(8, 1)] + 64 + 2 @ warpid + 1 @ laneid),
         "T.TileLayout(T.S[(8, 8):(8, 1)] + (1 @ Axis.laneid + 64 + 2 @ Axis.warpid))"),
        (TileLayout(S[(8, 8):(8, 1)] + 0 @ laneid),
         "T.TileLayout(T.S[(8, 8):(8, 1)] + 0 @ Axis.laneid)"),
        (TileLayout(S[(8, 8):(1 @ Axis.TLane, 1 @ Axis.TCol)]),
         "T.TileLayout(T.S[(8, 8):(1 @ Axis.TLane, 1 @ Axis.TCol)])"),
        (ComposeLayout(3, 3, 3, TileLayout(S[(8, 64):(64, 1)])),
         "T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[(8, 64):(64, 1)]))"),
        (ComposeLayout(0, 3, 3, TileLayout(S[64]), swizzle_inner=False),
         "T.ComposeLayout(0, 3, 3, T.TileLayout(T.S[64:1]), swizzle_inner=False)"),
    ],
)
def test_printed_form(layout, text):
    assert str(layout) == text


def test_symbolic_strides_print_with_parentheses_only_when_needed():
    n = Var("n", "int32")
    assert (str(TileLayout(S[(8, 8):((n + 1) @ F_AXIS, n + 2)] + (n + 1) @ laneid))
            == "T.TileLayout(T.S[(8, 8):((n + 1) @ Axis.F, n + 2)] + (n + 1) @ Axis.laneid)")
    assert (str(TileLayout(S[(8, 8):(n * 8 @ F_AXIS, 1)]))
            == "T.TileLayout(T.S[(8, 8):(n * 8 @ Axis.F, 1)])")
    assert str(Iter(8, 4, "laneid")) == 'T.Iter(8, 4, "laneid")'


def test_spec_forms_build_the_same_iters():
    expected = TileLayout.from_iters([Iter(8, 4, laneid), Iter(4, 1, "m")])
    assert_structural_equal(TileLayout(S[(8, 4):(4 @ laneid, 1)]), expected)
    assert_structural_equal(TileLayout(S[(8, 4):((4, "laneid"), 1)]), expected)
    assert_structural_equal(TileLayout(S[8:"laneid"]), TileLayout(S[8 : 1 @ laneid]))
    merged = TileLayout(64 + S[8 : 4 @ laneid] + 1 @ laneid + 2 @ warpid + 3 @ laneid)
    assert {a.name: int(v) for a, v in merged.offset.items()} == {"m": 64, "laneid": 4,
                                                                    "warpid": 2}


def test_bad_specs_are_rejected():
    with pytest.raises(ValueError, match="2 extents but 1 strides"):
        S[(8, 4):(1,)]
    with pytest.raises(TypeError, match="S\\[...\\]"):
        TileLayout([Iter(8, 1, "m")])
    with pytest.raises(TypeError, match="tile_layout must be a TileLayout"):
        ComposeLayout(3, 3, 3, "x")


# --- queries --------------------------------------------------------------------------------
def test_size_span_and_scope():
    lay = TileLayout(S[(8, 4, 2):(4 @ laneid, 1 @ laneid, 1)])
    assert int(lay.size()) == 64 and int(lay.size("laneid")) == 32 and int(lay.size("warpid")) == 1
    assert int(lay.span()) == 2 and int(lay.span("laneid")) == 32
    assert int(TileLayout(S[8:1] + R[4:8] + 3).span()) == 35
    assert int(ComposeLayout(3, 3, 3, TileLayout(S[(8, 64):(64, 1)])).span()) == 512
    low, high = TileLayout(S[(2, 32):(1 @ warpid, 1 @ laneid)]).get_scope()
    assert (low.name, high.name) == ("thread", "cta")
    assert TileLayout(S[8:1]).get_scope() is None


def test_verify_well_formed_names_the_scope_gap():
    assert TileLayout(S[(2, 32):(1 @ wid_in_wg, 1 @ laneid)]).verify_well_formed()
    with pytest.raises(ValueError, match="do not chain up.*warp and warpgroup"):
        TileLayout(S[(2, 32):(1 @ Axis.wgid, 1 @ laneid)]).verify_well_formed()


# --- apply ----------------------------------------------------------------------------------
def test_apply_flat_per_iter_and_shaped():
    lay = TileLayout(S[(8, 4, 2):(4 @ laneid, 1 @ laneid, 1)] + 5)
    assert ints(lay.apply(13)) == {"m": 1 + 5, "laneid": 6}
    assert ints(lay.apply(1, 2, 1)) == {"m": 6, "laneid": 6}
    assert ints(lay.apply(1, 5, shape=(8, 8))) == {"m": 6, "laneid": 6}
    with pytest.raises(ValueError, match="2 coordinates for a layout with 3 shard iters"):
        lay.apply(1, 1)


def test_symbolic_apply_simplifies():
    v = Var("v", "int32")
    assert TileLayout(S[(8, 8):(8, 1)]).apply(v)["m"].same_as(v)
    res = TileLayout(S[(8, 4, 2):(4 @ laneid, 1 @ laneid, 1)]).apply(v)
    assert str(res["m"]) == "v % 2" and str(res["laneid"]) == "v // 2"


def test_swizzle_apply_xors_the_row_into_the_column_chunk():
    lay = ComposeLayout(3, 3, 3, TileLayout(S[512]))
    for row in range(8):
        for chunk in range(8):
            for e in (0, 7):
                x = (row * 8 + chunk) * 8 + e
                assert int(lay.apply(x)["m"]) == (row * 8 + (row ^ chunk)) * 8 + e
    outer = ComposeLayout(0, 3, 3, TileLayout(S[64]), swizzle_inner=False)
    assert int(outer.apply(3 * 8 + 5)["m"]) == (3 ^ 5) * 8 + 5


def test_apply_to_shape_splits_within_each_dim():
    lay = TileLayout.from_iters([Iter(4, 64, "m"), Iter(4, 16, "m"), Iter(4, 4, "m"),
                                 Iter(4, 1, "m")])
    assert [int(x) for x in lay.apply_to_shape([13, 9], [16, 16])] == [3, 1, 2, 1]


# --- canonical form -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("before", "after"),
    [
        (S[(4, 2, 8):(16, 8, 1)], S[64:1]),
        (S[(8, 1, 4):(4, 99, 1)], S[32:1]),
        (S[(2, 3, 4):(1, 8, 2)], S[(2, 12):(1, 2)]),
        (S[(8, 4, 2):(4 @ laneid, 1 @ laneid, 1)], S[(32, 2):(1 @ laneid, 1)]),
        (S[(1, 1):(5, 7)], S[1:1]),
        (S[1:0 @ F_AXIS], S[1 : 1 @ F_AXIS]),
        (S[8:1] + 0 @ laneid, S[8:1]),
    ],
)
def test_canonicalize(before, after):
    assert_structural_equal(TileLayout(before).canonicalize(), TileLayout(after))


def test_canonicalize_under_cuda_fuses_hierarchical_thread_axes():
    lay = TileLayout(S[(2, 32):(1 @ warpid, 1 @ laneid)])
    assert_structural_equal(lay.canonicalize(), lay)
    with tvm.target.Target("cuda"):
        assert_structural_equal(lay.canonicalize(), TileLayout(S[64 : 1 @ tx]))
        wg = TileLayout(S[(4, 32):(1 @ wid_in_wg, 1 @ laneid)])
        assert_structural_equal(wg.canonicalize(), TileLayout(S[128 : 1 @ tid_in_wg]))


def test_replica_order_does_not_matter_after_canonicalize():
    a = TileLayout(S[1:1] + R[(4, 2):(2 @ laneid, 1 @ laneid)])
    b = TileLayout(S[1:1] + R[(2, 4):(1 @ laneid, 2 @ laneid)])
    assert_structural_equal(a.canonicalize(), b.canonicalize())


# --- grouping -------------------------------------------------------------------------------
def test_group_many_refines_and_reports_separators():
    grouped, seps = TileLayout(S[24:1]).group_many([[4, 6], [2, 12]])
    assert_structural_equal(grouped, TileLayout(S[(2, 2, 6):(12, 6, 1)]))
    assert [list(s) for s in seps] == [[0, 2, 3], [0, 1, 3]]
    grouped, seps = TileLayout(S[6:1]).group([1, 6, 1])
    assert [int(it.extent) for it in grouped.shard] == [1, 6, 1]
    assert seps == [0, 1, 2, 3]


def test_group_many_refuses_interleaved_or_unprovable_boundaries():
    with pytest.raises(InternalError, match="incompatible cumulative boundaries 2 and 3"):
        TileLayout(S[6:1]).group_many([[2, 3], [3, 2]])
    with pytest.raises(InternalError, match="has 8 elements"):
        TileLayout(S[6:1]).group([8])
    n = Var("n", "int32")
    extent = tvm.tirx.floormod(n, 4) + 2
    with pytest.raises(InternalError, match="order or equality"):
        TileLayout(S[3 * extent : 1]).group_many([[3, extent], [extent, 3]])


# --- tiling and recognition -----------------------------------------------------------------
def test_tile_scales_the_outer_layout_by_the_inner_span():
    inner = TileLayout(S[(2, 4):(1, 2)])
    outer = TileLayout(S[(8, 8):(8, 1)])
    tiled = inner.tile(outer, [8, 8], [2, 4])
    assert_structural_equal(tiled, TileLayout(S[(8, 2, 32):(64, 1, 2)]))
    found = inner.is_tile_inner(tiled, [16, 32], [2, 4])
    assert_structural_equal(found.canonicalize(), outer.canonicalize())
    found = outer.is_tile_outer(tiled, [16, 32], [8, 8])
    assert_structural_equal(found.canonicalize(), inner.canonicalize())
    assert outer.is_tile_inner(tiled, [16, 32], [8, 8]) is None


def test_tile_of_a_thread_layout_by_warps():
    per_thread = TileLayout(S[(1, 2):(2, 1)])
    lanes = TileLayout(S[(8, 4):(4 @ laneid, 1 @ laneid)])
    warp = per_thread.tile(lanes, [8, 4], [1, 2])
    assert_structural_equal(warp.canonicalize(), TileLayout(S[(32, 2):(1 @ laneid, 1)]))
    with tvm.target.Target("cuda"):
        cta = TileLayout(S[(2, 8, 2, 4, 2):(64 @ tx, 4 @ tx, 32 @ tx, 1 @ tx, 1)])
        found = TileLayout(S[(8, 1, 4, 2):(4 @ laneid, 2, 1 @ laneid, 1)]).is_tile_inner(
            cta, [16, 16], [8, 8])
        assert_structural_equal(found.canonicalize(),
                                TileLayout(S[(2, 2):(2 @ warpid, 1 @ warpid)]).canonicalize())


def test_tile_rank_mismatch_is_an_error():
    with pytest.raises(ValueError, match="differ in rank"):
        TileLayout(S[(2, 4):(1, 2)]).tile(TileLayout(S[8:1]), [8], [2, 4])


def test_swizzle_tiles_keep_the_swizzle():
    swizzle = ComposeLayout(3, 3, 3, TileLayout(S[512]))
    tiled = swizzle.tile(TileLayout(S[(8, 4):(1, 8)]), (8, 4), (8, 64))
    assert_structural_equal(tiled.canonicalize(),
                            ComposeLayout(3, 3, 3, TileLayout(S[(64, 4, 64):(64, 4096, 1)])))
    assert swizzle.is_tile_inner(tiled, (64, 256), (8, 64)) is not None
    assert TileLayout(S[512]).is_tile_inner(tiled, (64, 256), (8, 64)) is None


def test_direct_sum_and_its_recognition():
    right = TileLayout(S[(2, 2):(4, 1)])
    left = TileLayout(S[(2, 2):(8, 2)])
    total = right.direct_sum(left, [2, 2], [2, 2])
    assert_structural_equal(total.canonicalize(), TileLayout(S[16:1]))
    assert_structural_equal(right.is_direct_sum_right(total, [2, 2, 2, 2], [2, 2]), left)
    assert_structural_equal(left.is_direct_sum_left(total, [2, 2, 2, 2], [2, 2]), right)


def test_tile_to_repeats_row_major():
    lay = TileLayout(S[(8, 8):(8, 1)])
    assert_structural_equal(lay.tile_to([16, 32], [8, 8]),
                            lay.tile(TileLayout(S[2, 4]), [2, 4], [8, 8]))


# --- slicing --------------------------------------------------------------------------------
def test_slice_of_constant_regions():
    lay = TileLayout(S[(4, 4, 4, 4):(64, 4, 16, 1)])
    sliced = lay.slice([16, 16], [(2, 3), (6, 10)])
    for i in range(4):
        assert int(sliced.apply(0, i, shape=[1, 4])["m"]) == int(
            lay.apply(2, 6 + i, shape=[16, 16])["m"])
    assert lay.slice([16, 16], [Range(2, 3), Range(6, 10)]) is not None


def test_slice_with_a_runtime_begin_keeps_a_plain_offset():
    stage = Var("stage", "int32")
    lay = TileLayout(S[(3, 128, 128):(16384, 128, 1)])
    sliced = lay.slice([3, 128, 128], [Range(stage, stage + 1), Range(0, 128), Range(0, 128)])
    assert str(sliced.offset[m]) == "stage * 16384"
    with pytest.raises(ValueError, match="shape has 1 dims but region has 2"):
        lay.slice([49152], [(0, 1), (0, 1)])


def test_slice_of_a_swizzle_keeps_the_swizzle():
    swizzle = ComposeLayout(3, 3, 3, TileLayout(S[(8, 64):(64, 1)]))
    sliced = swizzle.slice([8, 64], [(2, 4), (0, 64)])
    for i in range(2):
        for j in range(64):
            assert int(sliced.apply(i, j, shape=[2, 64])["m"]) == int(
                swizzle.apply(2 + i, j, shape=[8, 64])["m"])


# --- transforms -----------------------------------------------------------------------------
def test_storage_pack_unpack_broadcast_permute():
    lay = TileLayout(S[(8, 4, 2):(4 @ laneid, 1 @ laneid, 1)])
    assert_structural_equal(lay.storage(), TileLayout(S[2:1]))
    assert_structural_equal(TileLayout(S[(8, 8):(8, 1)]).unpack(2).canonicalize(),
                            TileLayout(S[(8, 16):(16, 1)]).canonicalize())
    assert_structural_equal(TileLayout(S[(8, 16):(16, 1)]).pack(2),
                            TileLayout(S[(8, 8):(8, 1)]))
    assert_structural_equal(ComposeLayout(3, 3, 3, TileLayout(S[512])).unpack(2),
                            ComposeLayout(4, 3, 3, TileLayout(S[512]).unpack(2)))
    with pytest.raises(ValueError, match="can not be packed into 3"):
        TileLayout(S[(8, 16):(16, 1)]).pack(3)
    assert_structural_equal(TileLayout(S[8:1]).broadcast(4, 0),
                            TileLayout.from_iters([Iter(4, 0, "m"), Iter(8, 1, "m")]))
    grouped = TileLayout(S[(2, 3, 4, 5):(60, 20, 5, 1)])
    assert_structural_equal(grouped.permute_by_groups([0, 2, 4], [1, 0]),
                            grouped.permute_dims([2, 3, 0, 1]))
    with pytest.raises(ValueError, match="not a permutation"):
        grouped.permute_dims([0, 0, 1, 2])


def test_inverse_of_a_column_major_layout():
    lay = TileLayout(S[(8, 4):(1, 8)])
    inv = lay.inverse()
    assert_structural_equal(inv, TileLayout(S[(4, 8):(1, 4)]))
    with pytest.raises(ValueError, match="not a bijection"):
        TileLayout(S[(8, 4):(1, 4)]).inverse()


# --- factories ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("layout", "text"),
    [
        (tcgen05_atom_layout("16x64b", (64, 64), "float32"),
         ("T.TileLayout(T.S[(4, 2, 8, 32, 2):(1 @ Axis.wid_in_wg, 1 @ Axis.laneid, "
         "4 @ Axis.laneid, 1, 2 @ Axis.laneid)])")),
        (tcgen05_atom_layout("16x128b", (64, 128), "float16"),
         ("T.TileLayout(T.S[(4, 2, 8, 16, 4, 2):(1 @ Axis.wid_in_wg, 2, 4 @ Axis.laneid, 4, "
         "1 @ Axis.laneid, 1)])")),
        (tcgen05_atom_layout("16x256b", (128, 128), "float32"),
         ("T.TileLayout(T.S[(4, 2, 2, 8, 16, 4, 2):(1 @ Axis.wid_in_wg, 64, 2, "
         "4 @ Axis.laneid, 4, 1 @ Axis.laneid, 1)])")),
        (tcgen05_atom_layout("32x32b", (64, 32), "float32"),
         "T.TileLayout(T.S[(64, 2, 16):(1 @ Axis.tid_in_wg, 64 @ Axis.tid_in_wg, 1)])"),
        (tmem_datapath_layout("B", 64, 64),
         "T.TileLayout(T.S[(64, 2, 32):(1 @ Axis.TLane, 64 @ Axis.TLane, 1 @ Axis.TCol)])"),
        (tmem_datapath_layout("F", 64, 64, 1),
         ("T.TileLayout(T.S[(4, 16, 64):(32 @ Axis.TLane, 1 @ Axis.TLane, 1 @ Axis.TCol)] + "
         "16 @ Axis.TLane)")),
        (wg_local_layout(8, rows=64), "T.TileLayout(T.S[(64, 8):(1 @ Axis.tid_in_wg, 1)])"),
        (mma_shared_layout("float16", SwizzleMode.SWIZZLE_64B_ATOM, (3, 64, 256)),
         "T.ComposeLayout(3, 2, 3, T.TileLayout(T.S[(3, 64, 8, 32):(16384, 32, 2048, 1)]))"),
        (mma_shared_layout("float8_e4m3fn", SwizzleMode.SWIZZLE_NONE, (3, 64, 256)),
         "T.TileLayout(T.S[(3, 64, 16, 16):(16384, 16, 1024, 1)])"),
    ],
)
def test_factory_layouts(layout, text):
    assert str(layout) == text


def test_tmem_datapath_f_puts_rows_in_16_lane_slabs():
    lay = tmem_datapath_layout("F", 64, 8)
    for r in range(64):
        assert int(lay.apply(r, 0, shape=(64, 8))["TLane"]) == 32 * (r // 16) + r % 16


def test_factory_errors_name_the_problem():
    with pytest.raises(ValueError, match="expects rows=128, got 64"):
        tmem_datapath_layout("D", 64, 8)
    with pytest.raises(ValueError, match="ws=True only valid"):
        tmem_mma_operand_layout("D", (128, 256), "float32", M=128, cta_group=1, ws=True)
    with pytest.raises(ValueError, match="rep=3"):
        tcgen05_atom_layout("16x64b", (64, 6), "float32")
    with pytest.raises(ValueError, match="must be P/F letters"):
        TileLayout.trainium("PX", (128, 4))


def test_trainium_layouts():
    lay = TileLayout.trainium("FPF", (32, 512, 512))
    assert_structural_equal(
        lay, TileLayout(S[(32, 4, 128, 512):(512 @ F_AXIS, 16384 @ F_AXIS, 1 @ P_AXIS,
                                             1 @ F_AXIS)]))
    psum = TileLayout(S[(1024, 8):(1 @ F_AXIS, 1 @ P_AXIS)]).to_psum()
    assert ints(psum.apply(700, 3, shape=(1024, 8))) == {"Bank": 1, "F": 188, "P": 3}
