"""Tile schedulers of persistent CUDA kernels: which output tile a CTA (or cluster) works on.

A scheduler is a parse-time object made inside a ``@T.prim_func`` body. It keeps its
position in ``int32`` locals and emits the index arithmetic where its methods are called::

    sched = ClusterPersistentScheduler2D("sched", num_m_tiles=M_TILES, num_n_tiles=N_TILES,
                                         num_clusters=NUM_CLUSTERS, l2_group_size=8)
    sched.init(cluster_id)
    while sched.valid():
        ...  # work on tile (sched.m_idx, sched.n_idx)
        sched.next_tile()

Every scheduler has ``linear_idx`` (its position in the linear work order), ``init(start)``,
``next_tile()`` and ``valid()`` (a boolean expression for the loop). The ``prefix`` argument
of the constructors is accepted for Apache TVM 0.27 compatibility and not used: the locals
are named after the variable the scheduler is assigned to (``sched_tile_count``...).

* :class:`ClusterPersistentScheduler2D`: clusters stride over a 2D tile grid in L2-friendly
  group-major order (``l2_group_size`` rows per group, column-major inside a group), or a
  serpentine walk over ``l2_group_size``-square blocks (``serpentine=True``).
* :class:`GroupMajor3D`: the same group-major order over (M, N, K) tiles.
* :class:`IndexedTripleTileScheduler`: (b, h, q) read from index arrays, per-SM ranges from
  an ``indptr`` array.
* :class:`FlashAttentionLinearScheduler` / :class:`FlashAttentionLPTScheduler`: (batch,
  head, m-block) decompositions for attention, the latter longest-first with an L2 swizzle
  over batch*head.
* :class:`ClusterLaunchControlScheduler`: Blackwell cluster launch control; a scheduler warp
  cancels not-yet-started clusters (``clusterlaunchcontrol.try_cancel``) and hands their tile
  to the worker roles through shared memory.

Not supported yet: ``RankAwareGroupMajorTileScheduler`` (it needs the NVSHMEM rank,
``T.nvshmem.my_pe()``, which pytvm does not have).
"""

from __future__ import annotations

from tvm.script import tirx as T
from tvm.script.parser.tirx.entry import meta_class

from .clc import NO_CTA, query_cancel_first_ctaid_x
from .pipeline import Pipeline, PipelineState

__all__ = [
    "BaseTileScheduler",
    "ClusterLaunchControlScheduler",
    "ClusterPersistentScheduler2D",
    "FlashAttentionLPTScheduler",
    "FlashAttentionLinearScheduler",
    "GroupMajor3D",
    "IndexedTripleTileScheduler",
]


def _positive(owner, **values):
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{owner}: {name} must be a positive int, got {value!r}")


def _ceil_div(a, b):
    return (a + b - 1) // b if isinstance(a, int) else T.truncdiv(a + b - 1, b)


def _div(a, b):
    return a // b if isinstance(a, int) else T.truncdiv(a, b)


def _known(value, want):
    """True when ``value`` is a Python int equal to ``want`` (a branch provably dead or live
    at parse time is then left out of the IR)."""
    return isinstance(value, int) and value == want


@meta_class
class BaseTileScheduler:
    """Common state of the schedulers: ``m_idx``, ``n_idx`` (the current tile) and
    ``linear_idx`` (the position in the linear work order), all ``int32`` locals.

    Subclasses define ``update_current_m_n_idx(linear_idx)`` and ``valid()``.
    """

    def __init__(self, prefix: str = ""):
        self.m_idx = T.local_scalar("int32")
        self.n_idx = T.local_scalar("int32")
        self.linear_idx = T.local_scalar("int32")

    @T.inline
    def update_current_m_n_idx(self, linear_idx):
        """(Inline, overridden.) Set the tile indices for work item ``linear_idx``; nothing here."""

    @T.inline
    def init(self, linear_init):
        """(Inline.) Start at work item ``linear_init`` and compute its tile indices."""
        self.linear_idx = linear_init
        self.update_current_m_n_idx(linear_init)

    @T.inline
    def next_tile(self, step):
        """(Inline.) Advance ``linear_idx`` by ``step`` and compute the new tile indices."""
        self.linear_idx = self.linear_idx + step
        self.update_current_m_n_idx(self.linear_idx)

    def valid(self, total_tiles):
        """``linear_idx < total_tiles``."""
        return self.linear_idx < total_tiles


@meta_class
class ClusterPersistentScheduler2D(BaseTileScheduler):
    """Persistent clusters over a ``num_m_tiles`` x ``num_n_tiles`` grid: cluster ``c`` takes
    work items ``c, c + num_clusters, ...`` (``next_tile``), each mapped to a tile.

    Group-major order: the rows are cut into groups of ``l2_group_size``; a group is walked
    column by column (rows fastest), the groups one after the other; a last partial group
    (``tail``) is walked the same way. With ``serpentine=True`` the grid is cut into
    ``l2_group_size``-square blocks walked row-major inside, the blocks column by column,
    down in even block columns and up in odd ones; the tiles right of (or below) the last
    whole block follow.

    ``cluster_m`` / ``cluster_n`` make each work item a ``cluster_m x cluster_n`` patch of
    tiles: the grid of patches is ordered as above, and ``m_idx = row * cluster_m + dm``,
    ``n_idx = col * cluster_n + dn`` with ``(dm, dn)`` the item's place in the patch.

    Parameters
    ----------
    prefix : str
        Unused (see the module doc).
    num_m_tiles : int or PrimExpr
        Tiles along M (a runtime value is allowed).
    num_n_tiles, num_clusters : int
        Tiles along N; persistent clusters (the stride of ``next_tile``).
    l2_group_size : int
        Rows per group (block side with ``serpentine``).
    cluster_m, cluster_n : int
        Patch shape of one work item.
    serpentine : bool
        The block-serpentine order instead of group-major.

    Attributes
    ----------
    m_idx, n_idx : the current tile; ``work_idx`` (= ``linear_idx``): the current work item;
    ``tile_count`` (alias ``tile_idx``): items this cluster has taken so far.
    """

    def __init__(self, prefix, num_m_tiles, num_n_tiles, num_clusters, l2_group_size=8,
                 cluster_m=1, cluster_n=1, serpentine=False):
        _positive("ClusterPersistentScheduler2D", num_n_tiles=num_n_tiles,
                  num_clusters=num_clusters, l2_group_size=l2_group_size,
                  cluster_m=cluster_m, cluster_n=cluster_n)
        super().__init__(prefix)
        self.tile_count = T.local_scalar("int32")
        self.work_idx = self.linear_idx
        self.tile_idx = self.tile_count
        self._num_m_tiles = num_m_tiles
        self._num_n_tiles = num_n_tiles
        self._num_clusters = num_clusters
        self._group = l2_group_size
        self._cluster_m = cluster_m
        self._cluster_n = cluster_n
        self._serpentine = serpentine
        self._rows = _ceil_div(num_m_tiles, cluster_m)  # patch rows
        self._cols = _ceil_div(num_n_tiles, cluster_n)  # patch columns
        self._full_groups = _div(self._rows, l2_group_size)
        self._tail_rows = self._rows - self._full_groups * l2_group_size
        self._total = self._rows * self._cols * cluster_m * cluster_n
        if serpentine:
            self._n_blocks = self._cols // l2_group_size
            self._m_blocks = _div(self._rows, l2_group_size)
            self._block_tiles = l2_group_size * l2_group_size
            self._full_block_tiles = self._m_blocks * self._n_blocks * self._block_tiles
            self._right_cols = self._cols - self._n_blocks * l2_group_size
            self._bottom_rows = self._rows - self._m_blocks * l2_group_size

    def _set_tile(self, row, col, dm, dn):
        """Store the tile of patch ``(row, col)``, offset ``(dm, dn)`` inside the patch."""
        self._store(row * self._cluster_m + dm, col * self._cluster_n + dn)

    @T.inline
    def _store(self, m, n):
        self.m_idx = m
        self.n_idx = n

    def update_current_m_n_idx(self, work_idx):
        """Set ``m_idx`` / ``n_idx`` to the tile of work item ``work_idx``."""
        dm = work_idx % self._cluster_m if self._cluster_m > 1 else 0
        rest = work_idx // self._cluster_m if self._cluster_m > 1 else work_idx
        dn = rest % self._cluster_n if self._cluster_n > 1 else 0
        patch = rest // self._cluster_n if self._cluster_n > 1 else rest

        def place(row, col):
            self._set_tile(row, col, dm, dn)

        if self._serpentine:
            self._serpentine_order(patch, place)
        else:
            self._group_major_order(patch, place)

    def _group_major_order(self, patch, place):
        no_full, no_tail = _known(self._full_groups, 0), _known(self._tail_rows, 0)
        if no_full and no_tail:
            place(0, 0)
        elif no_full:
            self._tail_only(patch, place)
        elif no_tail:
            self._full_only(patch, place)
        else:
            self._full_then_tail(patch, place)

    @T.inline
    def _full_only(self, patch, place):
        span = T.meta_var(self._group * self._cols)  # patches per group
        if (self._full_groups > 0) & (patch < self._full_groups * span):
            group: T.let = patch // span
            offset: T.let = patch % span
            tile_row: T.let = group * self._group + offset % self._group
            tile_col: T.let = offset // self._group
            place(tile_row, tile_col)
        else:
            place(0, 0)

    @T.inline
    def _tail_only(self, patch, place):
        span = T.meta_var(self._group * self._cols)
        if self._tail_rows > 0:
            rem: T.let = patch - self._full_groups * span
            tile_row: T.let = self._full_groups * self._group + rem % self._tail_rows
            tile_col: T.let = rem // self._tail_rows
            place(tile_row, tile_col)
        else:
            place(0, 0)

    @T.inline
    def _full_then_tail(self, patch, place):
        span = T.meta_var(self._group * self._cols)
        if (self._full_groups > 0) & (patch < self._full_groups * span):
            group: T.let = patch // span
            offset: T.let = patch % span
            tile_row: T.let = group * self._group + offset % self._group
            tile_col: T.let = offset // self._group
            place(tile_row, tile_col)
        elif self._tail_rows > 0:
            rem: T.let = patch - self._full_groups * span
            tile_row: T.let = self._full_groups * self._group + rem % self._tail_rows
            tile_col: T.let = rem // self._tail_rows
            place(tile_row, tile_col)
        else:
            place(0, 0)

    @T.inline
    def _serpentine_order(self, patch, place):
        side = T.meta_var(self._group)
        if (self._m_blocks > 0) & (self._n_blocks > 0) & (patch < self._full_block_tiles):
            block: T.let = patch // self._block_tiles
            inside: T.let = patch % self._block_tiles
            block_col: T.let = block // self._m_blocks
            down: T.let = block % self._m_blocks
            block_row: T.let = T.Select(block_col % 2 == 0, down, self._m_blocks - 1 - down)
            tile_row: T.let = block_row * side + inside // side
            tile_col: T.let = block_col * side + inside % side
            place(tile_row, tile_col)
        elif self._right_cols > 0:
            rem: T.let = patch - self._full_block_tiles
            if rem < self._rows * self._right_cols:
                tile_row: T.let = rem // self._right_cols
                tile_col: T.let = self._n_blocks * side + rem % self._right_cols
                place(tile_row, tile_col)
            else:
                place(0, 0)
        elif self._bottom_rows > 0:
            rem: T.let = patch - self._full_block_tiles
            if rem < self._bottom_rows * (self._n_blocks * side):
                tile_row: T.let = self._m_blocks * side + rem % self._bottom_rows
                tile_col: T.let = rem // self._bottom_rows
                place(tile_row, tile_col)
            else:
                place(0, 0)
        else:
            place(0, 0)

    @T.inline
    def init(self, cluster_id):
        """(Inline.) Start cluster ``cluster_id`` at its first work item; ``tile_count`` is reset
        to 0.
        """
        self.linear_idx = cluster_id
        self.tile_count = 0
        self.update_current_m_n_idx(cluster_id)

    @T.inline
    def next_tile(self):
        """(Inline.) Advance by the number of clusters to this cluster's next work item."""
        self.linear_idx = self.linear_idx + self._num_clusters
        self.tile_count = self.tile_count + 1
        self.update_current_m_n_idx(self.linear_idx)

    @T.inline
    def next_tile_stride(self, stride):
        """(Inline.) Advance by ``stride`` work items instead of the number of clusters."""
        self.linear_idx = self.linear_idx + stride
        self.tile_count = self.tile_count + 1
        self.update_current_m_n_idx(self.linear_idx)

    def valid(self):
        """True while the current work item is inside the grid."""
        return self.linear_idx < self._total


@meta_class
class GroupMajor3D(BaseTileScheduler):
    """Group-major order over (M, N, K) tiles: ``group_rows`` M rows per group; inside a
    group M is fastest, then N, then K; a last partial group of M rows follows.

    Parameters
    ----------
    prefix : str
        Unused.
    m_tiles : int or PrimExpr
        Tiles along M.
    n_tiles, k_tiles, group_rows : int
        Tiles along N and K; rows per group.
    step : int
        The stride of ``next_tile()``.
    """

    def __init__(self, prefix, m_tiles, n_tiles, k_tiles, group_rows, step=1):
        _positive("GroupMajor3D", n_tiles=n_tiles, k_tiles=k_tiles, group_rows=group_rows)
        super().__init__(prefix)
        self.tile_idx = T.local_scalar("int32")
        self.k_idx = T.local_scalar("int32")
        self._step = step
        self._g, self._n, self._k = group_rows, n_tiles, k_tiles
        self._groups = _div(m_tiles, group_rows)
        self._tail = m_tiles - self._groups * group_rows
        self._tail_div = max(self._tail, 1) if isinstance(m_tiles, int) else T.max(self._tail, 1)
        self._group_tiles = group_rows * n_tiles * k_tiles
        self._full_bound = self._groups * self._group_tiles
        self._total = m_tiles * n_tiles * k_tiles

    @T.inline
    def update_current_m_n_idx(self, linear_idx):
        """(Inline.) Set ``m_idx``, ``n_idx``, ``k_idx`` for work item ``linear_idx``: in the
        whole groups first, then in the last partial group; all 0 when there is neither.
        """
        full_m: T.let = T.floordiv(linear_idx, self._group_tiles) * self._g + T.floormod(
            linear_idx, self._g)
        full_n: T.let = T.floormod(T.floordiv(linear_idx, self._g), self._n)
        full_k: T.let = T.floordiv(T.floormod(linear_idx, self._group_tiles), self._g * self._n)
        rem: T.let = linear_idx - self._full_bound
        tail_m: T.let = self._groups * self._g + T.floormod(rem, self._tail_div)
        tail_n: T.let = T.floordiv(rem, self._tail_div) % self._n
        tail_k: T.let = T.floordiv(rem, self._tail_div * self._n)
        if (self._groups > 0) & (linear_idx < self._full_bound):
            self.m_idx = full_m
            self.n_idx = full_n
            self.k_idx = full_k
        elif self._tail > 0:
            self.m_idx = tail_m
            self.n_idx = tail_n
            self.k_idx = tail_k
        else:
            self.m_idx = 0
            self.n_idx = 0
            self.k_idx = 0

    @T.inline
    def init(self, linear_init):
        """(Inline.) Start at work item ``linear_init``; ``tile_idx`` is reset to 0."""
        self.linear_idx = linear_init
        self.tile_idx = 0
        self.update_current_m_n_idx(linear_init)

    @T.inline
    def next_tile(self):
        """(Inline.) Advance by ``step`` work items and count the tile in ``tile_idx``."""
        self.linear_idx = self.linear_idx + self._step
        self.tile_idx = self.tile_idx + 1
        self.update_current_m_n_idx(self.linear_idx)

    @T.inline
    def next_tile_stride(self, stride):
        """(Inline.) Advance by ``stride`` work items instead of ``step``."""
        self.linear_idx = self.linear_idx + stride
        self.tile_idx = self.tile_idx + 1
        self.update_current_m_n_idx(self.linear_idx)

    def valid(self):
        """True while the current item is inside the (M, N, K) grid."""
        return self.linear_idx < self._total


@meta_class
class IndexedTripleTileScheduler(BaseTileScheduler):
    """Work items listed in index buffers: item ``i`` is ``(b_indices[i], h_indices[i],
    q_indices[i])``; SM ``sm`` takes items ``tiles_indptr[sm] .. tiles_indptr[sm + 1] - 1``.
    """

    def __init__(self, prefix, b_indices, h_indices, q_indices, tiles_indptr):
        super().__init__(prefix)
        self.b_indices, self.h_indices, self.q_indices = b_indices, h_indices, q_indices
        self.tiles_indptr = tiles_indptr
        self.q_idx = T.local_scalar("int32")
        self.h_idx = T.local_scalar("int32")
        self.b_idx = T.local_scalar("int32")
        self.linear_lim = T.local_scalar("int32")

    @T.inline
    def _load(self):
        self.q_idx = self.q_indices[self.linear_idx]
        self.h_idx = self.h_indices[self.linear_idx]
        self.b_idx = self.b_indices[self.linear_idx]

    @T.inline
    def init(self, sm):
        """(Inline.) Take SM ``sm``'s range of items from ``tiles_indptr`` and load the first
        item's ``(b_idx, h_idx, q_idx)``.
        """
        self.linear_idx = self.tiles_indptr[sm]
        self.linear_lim = self.tiles_indptr[sm + 1]
        self._load()

    @T.inline
    def next_tile(self):
        """(Inline.) Move to the next listed item and load its indices."""
        self.linear_idx = self.linear_idx + 1
        self._load()

    def valid(self):
        """True while the SM's range has items left."""
        return self.linear_idx < self.linear_lim


@meta_class
class FlashAttentionLinearScheduler(BaseTileScheduler):
    """``linear -> (batch, head, m_block)`` with m-block fastest, then head, then batch;
    ``num_ctas`` persistent CTAs stride over the ``num_batches * num_heads * num_m_blocks``
    items."""

    def __init__(self, prefix, num_batches, num_heads, num_m_blocks, num_ctas):
        _positive("FlashAttentionLinearScheduler", num_batches=num_batches,
                  num_heads=num_heads, num_m_blocks=num_m_blocks, num_ctas=num_ctas)
        super().__init__(prefix)
        self._heads, self._blocks, self._num_ctas = num_heads, num_m_blocks, num_ctas
        self._total = num_batches * num_heads * num_m_blocks
        self.batch_idx = T.local_scalar("int32")
        self.head_idx = T.local_scalar("int32")
        self.m_block_idx = T.local_scalar("int32")

    @T.inline
    def update_current_m_n_idx(self, linear_idx):
        """(Inline.) Split ``linear_idx`` into ``batch_idx``, ``head_idx`` and ``m_block_idx``."""
        per_batch = T.meta_var(self._heads * self._blocks)
        self.batch_idx = linear_idx // per_batch
        self.head_idx = linear_idx % per_batch // self._blocks
        self.m_block_idx = linear_idx % self._blocks

    @T.inline
    def init(self, cta_id):
        """(Inline.) Start CTA ``cta_id`` at work item ``cta_id``."""
        self.linear_idx = cta_id
        self.update_current_m_n_idx(cta_id)

    @T.inline
    def next_tile(self):
        """(Inline.) Advance by the number of CTAs to this CTA's next item."""
        self.linear_idx = self.linear_idx + self._num_ctas
        self.update_current_m_n_idx(self.linear_idx)

    def valid(self):
        """True while items are left."""
        return self.linear_idx < self._total


@meta_class
class FlashAttentionLPTScheduler(BaseTileScheduler):
    """Causal attention, longest processing time first: m-blocks in reverse order (the low
    query blocks attend to the most keys), batch*head swizzled in groups of ``l2_swizzle``
    for L2 reuse. Without ``num_ctas`` each CTA takes one item (``next_tile`` ends the loop);
    with it, CTAs stride by ``num_ctas``."""

    def __init__(self, prefix, num_batches, num_heads, num_m_blocks, l2_swizzle,
                 num_ctas=None):
        _positive("FlashAttentionLPTScheduler", num_batches=num_batches, num_heads=num_heads,
                  num_m_blocks=num_m_blocks, l2_swizzle=l2_swizzle)
        super().__init__(prefix)
        self._heads, self._blocks, self._swizzle = num_heads, num_m_blocks, l2_swizzle
        self._num_ctas = num_ctas
        self._total = num_batches * num_heads * num_m_blocks
        self._hb = num_batches * num_heads
        self._major = l2_swizzle * num_m_blocks  # items per swizzle group
        self._whole_groups = self._hb // l2_swizzle
        self._last_group = max(self._hb % l2_swizzle, 1)
        self.batch_idx = T.local_scalar("int32")
        self.head_idx = T.local_scalar("int32")
        self.m_block_idx = T.local_scalar("int32")

    @T.inline
    def update_current_m_n_idx(self, linear_idx):
        """(Inline.) Map ``linear_idx`` to ``batch_idx``, ``head_idx`` and ``m_block_idx``: the
        m-blocks run in reverse inside each swizzle group of batch*head (the last group may be
        narrower).
        """
        group: T.let = linear_idx // self._major
        offset: T.let = linear_idx % self._major
        whole = T.meta_var(group < self._whole_groups)
        block_rev: T.let = T.Select(whole, offset // self._swizzle, offset // self._last_group)
        in_group: T.let = T.Select(whole, offset % self._swizzle, offset % self._last_group)
        hb: T.let = group * self._swizzle + in_group
        self.batch_idx = hb // self._heads
        self.head_idx = hb % self._heads
        self.m_block_idx = (self._blocks - 1) - block_rev

    @T.inline
    def init(self, cta_id):
        """(Inline.) Start CTA ``cta_id`` at work item ``cta_id``."""
        self.linear_idx = cta_id
        self.update_current_m_n_idx(cta_id)

    def next_tile(self):
        """The next item (persistent mode) or the end of the loop (one item per CTA)."""
        if self._num_ctas is None:
            self._finish()
        else:
            BaseTileScheduler.next_tile(self, self._num_ctas)

    @T.inline
    def _finish(self):
        self.linear_idx = self._total

    def valid(self):
        """True while items are left."""
        return self.linear_idx < self._total


@meta_class
class _CLCWorker(ClusterPersistentScheduler2D):
    """A worker role's view of a :class:`ClusterLaunchControlScheduler`: its own tile
    coordinates (group-major over the cluster grid), its phase on the arrival barrier and
    whether the grid is drained."""

    def __init__(self, clc, prefix):
        super().__init__(prefix, num_m_tiles=clc._num_m_tiles, num_n_tiles=clc._num_n_tiles,
                         num_clusters=clc._num_m_tiles * clc._num_n_tiles,
                         l2_group_size=clc._l2_group_size)
        self._clc = clc
        self._phase = T.local_scalar("int32")  # this role's phase on sched_arr.full
        self._done = T.local_scalar("int32")
        self._next = T.local_scalar("uint32")
        self._start_phase()

    @T.inline
    def _start_phase(self):
        self._phase = 0

    @T.inline
    def reset(self):
        self._done = 0

    @T.inline
    def init(self, cluster_id):
        ClusterPersistentScheduler2D.init(self, cluster_id)
        self._done = 0

    def valid(self):
        """True until the scheduler has reported that no cluster is left."""
        return self._done == 0

    @T.inline
    def consume(self):
        """(One elected thread.) Take the next response: wait for it, decode it, and release
        the slot to the scheduler warp of CTA 0."""
        self._clc.sched_arr.full.wait(0, self._phase)
        self._phase = self._phase ^ 1
        query_cancel_first_ctaid_x(self._next, T.address_of(self._clc.clc_handle[0]))
        self._clc.sched_fin.empty.arrive(0, remote=0)

    @T.inline
    def consume_wg(self, wg_id, warp_id, lane_id):
        """:meth:`consume` for a whole warpgroup: every thread decodes, one releases."""
        self._clc.sched_arr.full.wait(0, self._phase)
        self._phase = self._phase ^ 1
        query_cancel_first_ctaid_x(self._next, T.address_of(self._clc.clc_handle[0]))
        T.cuda.warpgroup_sync(wg_id + 1)
        if warp_id == 0:  # noqa: SIM102 - nested: `and` of two PrimExpr tests is not TIR
            if lane_id == 0:
                self._clc.sched_fin.empty.arrive(0, remote=0)

    @T.inline
    def advance_coords(self):
        """Move to the tile of the cancelled cluster (when one was granted)."""
        if self._next != T.uint32(NO_CTA):
            self.update_current_m_n_idx(T.Cast("int32", self._next // self._clc._cta_group))

    @T.inline
    def mark_done_if_drained(self):
        """End the worker's loop when the last response granted nothing."""
        if self._next == T.uint32(NO_CTA):
            self._done = 1


class ClusterLaunchControlScheduler:
    """Blackwell cluster launch control (sm_100): dynamic persistent scheduling.

    One elected thread per CTA runs :meth:`run_scheduler`: CTA 0 asks the hardware to cancel
    a cluster that has not started (``clusterlaunchcontrol.try_cancel``, multicast to the
    cluster); every CTA waits for the 16-byte response on ``sched_arr.full``, decodes it and
    signals ``sched_fin.empty`` of CTA 0 when its roles have consumed it. Worker roles take a
    :meth:`worker` handle and call ``consume()``, ``advance_coords()`` and
    ``mark_done_if_drained()`` per round. The tile of a cluster is its group-major position
    (:class:`ClusterPersistentScheduler2D`) over ``num_m_tiles`` x ``num_n_tiles``.

    A plain class, not a ``@T.meta_class``: its barriers belong to the two
    :class:`~tvm.backend.cuda.lang.pipeline.Pipeline` objects it holds, which the
    meta-class ownership check does not look into.

    Parameters
    ----------
    pool : SMEMPool
        Holds the two barrier pairs and the response (``clc_handle``, 4 x uint32).
    num_m_tiles, num_n_tiles, l2_group_size : int
        The cluster-level tile grid and its grouping.
    cta_group : int
        CTAs per cluster (the cancelled ctaid is divided by it).
    finish_arrivals : int
        Arrivals on ``sched_fin.empty`` that release one response.
    """

    def __init__(self, pool, num_m_tiles, num_n_tiles, l2_group_size, cta_group,
                 finish_arrivals):
        _positive("ClusterLaunchControlScheduler", num_m_tiles=num_m_tiles,
                  num_n_tiles=num_n_tiles, l2_group_size=l2_group_size, cta_group=cta_group,
                  finish_arrivals=finish_arrivals)
        self._num_m_tiles, self._num_n_tiles = num_m_tiles, num_n_tiles
        self._l2_group_size, self._cta_group = l2_group_size, cta_group
        self.sched_arr = Pipeline(pool, 1, full="tma", empty="mbar", init_empty=1)
        self.sched_fin = Pipeline(pool, 1, full="mbar", empty="mbar",
                                  init_empty=finish_arrivals)
        self.clc_handle = pool.alloc((4,), "uint32", align=16)
        self._s_done = T.local_scalar("int32")
        self._s_next = T.local_scalar("uint32")

    def worker(self, prefix=""):
        """A worker role's handle (:class:`_CLCWorker`)."""
        return _CLCWorker(self, prefix)

    @T.inline
    def run_scheduler(self, cbx):
        """The scheduler loop (call from the scheduler warp; ``cbx``: the CTA's rank in its
        cluster)."""
        if T.cuda.elect_sync():
            arrival = PipelineState(1, 0)
            finished = PipelineState(1, 1)
            self._s_done = 0
            while self._s_done == 0:
                if cbx == 0:
                    self.sched_fin.empty.wait(0, finished.phase)
                    finished.advance()
                    T.ptx[
                        "clusterlaunchcontrol.try_cancel.async.shared::cta"
                        ".mbarrier::complete_tx::bytes.multicast::cluster::all.b128"
                    ](T.address_of(self.clc_handle[0]), T.address_of(self.sched_arr.full.buf[0]))
                self.sched_arr.full.arrive(0, 16)  # the 16-byte response
                self.sched_arr.full.wait(0, arrival.phase)
                arrival.advance()
                query_cancel_first_ctaid_x(self._s_next, T.address_of(self.clc_handle[0]))
                self.sched_fin.empty.arrive(0, remote=0)
                if self._s_next == T.uint32(NO_CTA):
                    self._s_done = 1
