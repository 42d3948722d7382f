"""``tvm.s_tir.Schedule``: schedule primitives over s_tir PrimFuncs, and ``ScheduleError``.

The class assembles the primitive families (one module each: lookup, loops, compute location,
caching, reduction, annotation, sampling, storage, blockize, padding, reindex, layout, rolling
buffer, epilogue fusion, tensorize) on top of
:class:`~.base.ScheduleBase`, which keeps the module, the trace and the handles.

Every TVM 0.27 schedule primitive has a method; ``_NOT_IMPLEMENTED`` (names that would raise
an ``AttributeError`` saying they are missing) is empty.
"""

from __future__ import annotations

from .annotate import AnnotatePrimitives
from .annotate_access import AnnotateAccessPrimitives
from .base import ExprRV, LoopRV, SBlockRV, ScheduleBase
from .blockize import BlockizePrimitives
from .cache import CachePrimitives
from .cache_index import CacheIndexPrimitives
from .cache_inplace import CacheInplacePrimitives
from .compute_location import ComputeLocationPrimitives
from .compute_location_sampling import ComputeLocationSampling
from .error import ScheduleError
from .fuse_epilogue import FuseEpiloguePrimitives
from .layout import LayoutPrimitives
from .lookup import LookupPrimitives
from .loop_partition import LoopPartitionPrimitives
from .loops import LoopPrimitives
from .pad_einsum import PadEinsumPrimitives
from .padding import PaddingPrimitives
from .read_write_at import ReadWriteAtPrimitives
from .reduction import ReductionPrimitives
from .reindex import ReindexPrimitives
from .reindex_cache import ReindexCachePrimitives
from .rolling import RollingBufferPrimitives
from .sampling import SamplingPrimitives
from .sampling_partitioned import PartitionedTileSampling
from .storage import StoragePrimitives
from .tensorize import TensorizePrimitives

__all__ = ["ExprRV", "LoopRV", "SBlockRV", "Schedule", "ScheduleError"]

# TVM 0.27 Schedule methods that have no implementation here yet.
_NOT_IMPLEMENTED = frozenset()


class Schedule(
    LookupPrimitives,
    LoopPrimitives,
    LoopPartitionPrimitives,
    ComputeLocationPrimitives,
    ComputeLocationSampling,
    CachePrimitives,
    CacheInplacePrimitives,
    CacheIndexPrimitives,
    ReadWriteAtPrimitives,
    ReductionPrimitives,
    AnnotatePrimitives,
    AnnotateAccessPrimitives,
    SamplingPrimitives,
    PartitionedTileSampling,
    StoragePrimitives,
    BlockizePrimitives,
    PaddingPrimitives,
    PadEinsumPrimitives,
    ReindexPrimitives,
    ReindexCachePrimitives,
    LayoutPrimitives,
    RollingBufferPrimitives,
    FuseEpiloguePrimitives,
    TensorizePrimitives,
    ScheduleBase,
):
    """A schedule of an IRModule (or a PrimFunc, scheduled as ``main``).

    Parameters
    ----------
    mod : IRModule or PrimFunc
        The s_tir functions to schedule.
    seed : int, optional
        Seed of the sampling primitives' random stream (``None``: from the system).
    debug_mask : str or int
        ``"all"`` or any nonzero :class:`ScheduleDebugMask` value verifies the function after
        every primitive (``tirx.analysis.verify_well_formed``); ``"none"``/0 does not.
    error_render_level : str
        ``"detail"`` (errors show the IR in TVMScript with the culprits underlined),
        ``"fast"`` (message only) or ``"none"``.
    enable_check : bool
        Accepted for API compatibility (preconditions are always checked).

    Examples
    --------
    >>> sch = tvm.s_tir.Schedule(func)             # doctest: +SKIP
    >>> i, j, k = sch.get_loops(sch.get_sblock("C"))  # doctest: +SKIP
    >>> io, ii = sch.split(i, [None, 32])           # doctest: +SKIP
    """

    def __getattr__(self, name):
        # Only reached for missing attributes: name TVM primitives that are not written yet.
        if name in _NOT_IMPLEMENTED:
            raise AttributeError(
                f"Schedule.{name} (a TVM 0.27 schedule primitive) is not implemented in this "
                "pytvm version; see docs/arch/tir.md, section Schedules"
            )
        raise AttributeError(f"'Schedule' object has no attribute {name!r}")
