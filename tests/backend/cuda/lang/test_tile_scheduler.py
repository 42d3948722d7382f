# ruff: noqa: F841  (TVMScript scope ids define names a kernel need not read)
"""Tile schedulers: the tile order each one produces, run by the TIR interpreter on the
kernels' own TVMScript (a loop over clusters calling ``init`` / ``valid`` / ``next_tile``),
against orders computed here in plain Python from the documented rules."""

import numpy as np
import pytest

import tvm
from tvm.script import tirx as T
from tvm.tirx.interpreter import run_prim_func
from tvm.tirx.lang.tile_scheduler import (
    ClusterPersistentScheduler2D,
    FlashAttentionLinearScheduler,
    FlashAttentionLPTScheduler,
    GroupMajor3D,
    IndexedTripleTileScheduler,
)


def _walk_2d(m_tiles, n_tiles, clusters, group, serpentine=False, cm=1, cn=1, runtime_m=False):
    """Run ClusterPersistentScheduler2D for every cluster; per tile: (work index, cluster,
    the cluster's tile_count when it took it)."""

    @T.prim_func
    def walk(order: T.Buffer((m_tiles, n_tiles), "int32"),
             who: T.Buffer((m_tiles, n_tiles), "int32"),
             count: T.Buffer((m_tiles, n_tiles), "int32"), M: T.int32):
        for c in range(clusters):
            s = ClusterPersistentScheduler2D(
                "s", num_m_tiles=M if runtime_m else m_tiles, num_n_tiles=n_tiles,
                num_clusters=clusters, l2_group_size=group, cluster_m=cm, cluster_n=cn,
                serpentine=serpentine)
            s.init(c)
            while s.valid():
                order[s.m_idx, s.n_idx] = s.work_idx
                who[s.m_idx, s.n_idx] = c
                count[s.m_idx, s.n_idx] = s.tile_count
                s.next_tile()

    out = [np.full((m_tiles, n_tiles), -1, "int32") for _ in range(3)]
    run_prim_func(walk, [*out, m_tiles])
    return out


def _group_major(rows, cols, group):
    """Patch (row, col) of each linear index: groups of ``group`` rows, rows fastest."""
    seq = []
    for g0 in range(0, rows, group):
        height = min(group, rows - g0)
        seq += [(g0 + i % height, i // height) for i in range(height * cols)]
    return seq


def _serpentine(rows, cols, side):
    mb, nb = rows // side, cols // side
    seq = []
    for bc in range(nb):
        block_rows = range(mb) if bc % 2 == 0 else range(mb - 1, -1, -1)
        for br in block_rows:
            seq += [(br * side + i // side, bc * side + i % side) for i in range(side * side)]
    seq += [(i // (cols - nb * side), nb * side + i % (cols - nb * side))
            for i in range(rows * (cols - nb * side))]
    if cols == nb * side:
        rest = rows - mb * side
        seq += [(mb * side + i % rest, i // rest) for i in range(rest * nb * side)] if rest else []
    return seq


@pytest.mark.parametrize(("m", "n", "clusters", "group", "runtime_m"), [
    (4, 4, 3, 2, False), (5, 3, 4, 2, False), (6, 5, 7, 4, True), (3, 4, 2, 8, False),
])
def test_group_major_order(m, n, clusters, group, runtime_m):
    order, who, count = _walk_2d(m, n, clusters, group, runtime_m=runtime_m)
    expected = np.full((m, n), -1)
    for i, (r, c) in enumerate(_group_major(m, n, group)):
        expected[r, c] = i
    np.testing.assert_array_equal(order, expected)
    np.testing.assert_array_equal(who, expected % clusters)
    np.testing.assert_array_equal(count, expected // clusters)


def test_group_major_documented_example():
    order, who, _ = _walk_2d(4, 4, 3, 2)
    np.testing.assert_array_equal(order, [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14],
                                          [9, 11, 13, 15]])
    np.testing.assert_array_equal(who[0], [0, 2, 1, 0])


@pytest.mark.parametrize(("m", "n", "side"), [(4, 4, 2), (4, 6, 2), (6, 4, 2), (4, 5, 2)])
def test_serpentine_order(m, n, side):
    order, _, _ = _walk_2d(m, n, 1, side, serpentine=True)
    expected = np.full((m, n), -1)
    for i, (r, c) in enumerate(_serpentine(m, n, side)):
        expected[r, c] = i
    np.testing.assert_array_equal(order, expected)
    if (m, n) == (4, 4):  # blocks: down the first block column, up the second
        np.testing.assert_array_equal(order, [[0, 1, 12, 13], [2, 3, 14, 15], [4, 5, 8, 9],
                                              [6, 7, 10, 11]])


def test_cluster_patches():
    # 4 x 4 tiles in 2 x 1 patches: work item w covers tile (2 * row + w % 2, col) of patch
    # w // 2, the patches in group-major order (2 patch rows per group).
    order, _, _ = _walk_2d(4, 4, 5, 2, cm=2)
    expected = np.full((4, 4), -1)
    for p, (r, c) in enumerate(_group_major(2, 4, 2)):
        for dm in range(2):
            expected[2 * r + dm, c] = 2 * p + dm
    np.testing.assert_array_equal(order, expected)


def test_group_major_3d_order():
    @T.prim_func
    def walk(order: T.Buffer((5, 2, 3), "int32")):
        for start in range(2):
            g = GroupMajor3D("g", 5, 2, 3, 2, step=2)
            g.init(start)
            while g.valid():
                order[g.m_idx, g.n_idx, g.k_idx] = g.linear_idx
                g.next_tile()

    out = np.full((5, 2, 3), -1, "int32")
    run_prim_func(walk, [out])
    expected = np.full((5, 2, 3), -1)
    i = 0
    for g0, height in ((0, 2), (2, 2), (4, 1)):  # M fastest, then N, then K, per group
        for k in range(3):
            for n in range(2):
                for dm in range(height):
                    expected[g0 + dm, n, k] = i
                    i += 1
    np.testing.assert_array_equal(out, expected)


def test_flash_attention_schedulers():
    @T.prim_func
    def walk(lin: T.Buffer((2, 3, 4), "int32"), lpt: T.Buffer((2, 3, 4), "int32")):
        for cta in range(5):
            s = FlashAttentionLinearScheduler("s", 2, 3, 4, 5)
            s.init(cta)
            while s.valid():
                lin[s.batch_idx, s.head_idx, s.m_block_idx] = s.linear_idx
                s.next_tile()
        for cta in range(24):
            p = FlashAttentionLPTScheduler("p", 2, 3, 4, 4)
            p.init(cta)
            while p.valid():
                lpt[p.batch_idx, p.head_idx, p.m_block_idx] = p.linear_idx
                p.next_tile()

    lin = np.full((2, 3, 4), -1, "int32")
    lpt = np.full((2, 3, 4), -1, "int32")
    run_prim_func(walk, [lin, lpt])
    np.testing.assert_array_equal(lin, np.arange(24).reshape(2, 3, 4))
    # LPT: batch*head in swizzle groups of 4 (one whole group of 4, a last group of 2),
    # inside a group the batch*head index fastest, the m-blocks from the last one.
    expected = np.full((2, 3, 4), -1)
    i = 0
    for g0, width in ((0, 4), (4, 2)):
        for blk in range(4):
            for hb in range(g0, g0 + width):
                expected[hb // 3, hb % 3, 3 - blk] = i
                i += 1
    np.testing.assert_array_equal(lpt, expected)


def test_indexed_triple_scheduler():
    @T.prim_func
    def walk(b: T.Buffer((6,), "int32"), h: T.Buffer((6,), "int32"), q: T.Buffer((6,), "int32"),
             indptr: T.Buffer((3,), "int32"), out: T.Buffer((5, 4), "int32")):
        for sm in range(2):
            s = IndexedTripleTileScheduler("s", b, h, q, indptr)
            s.init(sm)
            while s.valid():
                out[s.linear_idx, 0] = sm
                out[s.linear_idx, 1] = s.b_idx
                out[s.linear_idx, 2] = s.h_idx
                out[s.linear_idx, 3] = s.q_idx
                s.next_tile()

    b, h, q = (np.array(v, "int32") for v in ([1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [0, 9, 8, 7, 6]))
    indptr = np.array([0, 2, 5], "int32")
    out = np.full((5, 4), -1, "int32")
    # The index buffers are read past the SM's range once (after the last item), as in
    # Apache TVM 0.27; pad them so that the read stays in bounds.
    pad = [np.concatenate([v, v[-1:]]) for v in (b, h, q)]
    run_prim_func(walk, [*pad, indptr, out])
    np.testing.assert_array_equal(out, np.stack([[0, 0, 1, 1, 1], b, h, q], axis=1))


def test_scheduler_prints_named_locals_and_round_trips():
    @T.prim_func
    def k(A: T.Buffer((64,), "int32")):
        T.device_entry()
        bx = T.cta_id([8])
        tx = T.thread_id([32])
        sched = ClusterPersistentScheduler2D("sched", num_m_tiles=10, num_n_tiles=6,
                                             num_clusters=8, l2_group_size=4)
        sched.init(bx)
        while sched.valid():
            A[sched.m_idx * 6 + sched.n_idx] = sched.tile_count
            sched.next_tile()

    text = k.script()
    for line in ("sched_tile_count: T.int32", "while sched_linear_idx < 60:",
                 "group: T.let[T.int32] = bx // 24", "sched_linear_idx = sched_linear_idx + 8"):
        assert line in text, line
    assert tvm.ir.structural_equal(tvm.script.from_source(text), k)


@pytest.mark.parametrize(("make", "words"), [
    (lambda: ClusterPersistentScheduler2D("s", 4, 0, 2), "num_n_tiles must be a positive"),
    (lambda: ClusterPersistentScheduler2D("s", 4, 4, 2, l2_group_size=0), "l2_group_size"),
    (lambda: GroupMajor3D("g", 4, 4, 2, 0), "group_rows must be a positive"),
    (lambda: FlashAttentionLinearScheduler("f", 1, 2, 3, True), "num_ctas must be"),
])
def test_bad_scheduler_arguments(make, words):
    with pytest.raises(tvm.error.DiagnosticError, match=words):
        @T.prim_func
        def k(A: T.Buffer((4,), "int32")):
            T.device_entry()
            tx = T.thread_id([32])
            s = make()
            s.init(tx)
