"""Layout queries of the register (``local``) tile-primitive variants: which iters of a
``TileLayout`` spread a buffer over threads and which stay in each thread's registers.

``get_layout_thread_local_partition(layout)`` splits the shard iters into thread iters
(grouped by thread axis) and local iters; ``cast_layout_supported_for_local(layout)`` says
whether a per-thread elementwise op (a cast, a unary op) can run on such a buffer without
crossing threads. Importable as ``tvm.tirx.cuda.tile_primitive.layout_utils``.
"""

from __future__ import annotations

from ....tirx.expr import IntImm
from ....tirx.layout import TileLayout

__all__ = ["cast_layout_supported_for_local", "get_layout_thread_local_partition"]


def _const(value):
    """An int for a constant extent / stride (``IntImm`` or int), else the expression."""
    if isinstance(value, IntImm):
        return value.value
    return value


def get_layout_thread_local_partition(layout):
    """Split ``layout``'s shard iters (in their order, uncanonicalized) into thread and local
    ones.

    Returns
    -------
    tuple or None
        ``(thread_groups, local_dims, local_extents)``: ``thread_groups`` maps each thread
        axis to ``(indices of its iters, their extents)``; ``local_dims`` are the indices of
        the iters on memory axes, ``local_extents`` their extents. ``None`` when the layout
        is not one a per-thread op can run on: not a ``TileLayout``, no thread iter or no
        local iter, a thread iter with stride 0 (threads sharing an element), or a replica
        on a thread axis (an element held by several threads).
    """
    if not isinstance(layout, TileLayout):
        return None
    shard = list(layout.shard or ())
    threads = [i for i, it in enumerate(shard) if it.axis.is_thread()]
    local = [i for i, it in enumerate(shard) if not it.axis.is_thread()]
    if not threads or not local:
        return None
    if any(_const(shard[i].stride) == 0 for i in threads):
        return None
    if any(it.axis.is_thread() for it in (layout.replica or ())):
        return None
    groups = {}
    for i in threads:
        dims, extents = groups.setdefault(shard[i].axis, ([], []))
        dims.append(i)
        extents.append(_const(shard[i].extent))
    return groups, local, [_const(shard[i].extent) for i in local]


def cast_layout_supported_for_local(layout) -> bool:
    """True when a per-thread op on a register buffer with ``layout`` needs no data from
    other threads (:func:`get_layout_thread_local_partition` finds a partition)."""
    return get_layout_thread_local_partition(layout) is not None
