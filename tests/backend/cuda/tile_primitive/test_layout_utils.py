"""Thread / local partition of register layouts
(src/tvm/backend/cuda/tile_primitive/layout_utils.py)."""

import pytest

from tvm.tirx.layout import Iter, R, S, TileLayout, laneid, tid_in_wg, tx, warpid


def _utils():
    # the module under its TIRx name, as TVM's own tests import it
    from tvm.tirx.cuda.tile_primitive import layout_utils

    return layout_utils


@pytest.mark.parametrize(("layout", "groups", "local", "extents"), [
    (TileLayout(S[(128, 8):(1 @ tx, 1)]), {tx: ([0], [128])}, [1], [8]),
    (TileLayout(S[(128, 8):(1 @ tid_in_wg, 1)]), {tid_in_wg: ([0], [128])}, [1], [8]),
    (TileLayout.from_iters([Iter(4, 16, "m"), Iter(8, 2, tx), Iter(2, 1, "m")], [], {}),
     {tx: ([1], [8])}, [0, 2], [4, 2]),
    # iters of one axis are grouped in shard order, not merged
    (TileLayout(S[(2, 8, 4, 2):(2 @ warpid, 4 @ laneid, 1 @ laneid, 1)]),
     {warpid: ([0], [2]), laneid: ([1, 2], [8, 4])}, [3], [2]),
])
def test_partition(layout, groups, local, extents):
    utils = _utils()
    assert utils.get_layout_thread_local_partition(layout) == (groups, local, extents)
    assert utils.cast_layout_supported_for_local(layout) is True


@pytest.mark.parametrize("layout", [
    TileLayout(S[(64, 8):(1, 1)]),  # no thread iter
    TileLayout(S[(8, 8):(1 @ tx, 1 @ laneid)]),  # no register iter
    TileLayout(S[(32, 4):(0 @ laneid, 1)]),  # every lane on the same elements
    TileLayout(S[(128, 8):(1 @ tx, 1)] + R[2:1 @ laneid]),  # replicated over threads
    S[(128, 8):(1 @ tx, 1)],  # a spec, not a layout
])
def test_cross_thread_layouts_are_rejected(layout):
    utils = _utils()
    assert utils.get_layout_thread_local_partition(layout) is None
    assert utils.cast_layout_supported_for_local(layout) is False
