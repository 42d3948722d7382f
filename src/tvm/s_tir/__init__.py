"""``tvm.s_tir``: the schedulable TIR layer (SBlocks and schedules).

What exists now: the block nodes (``SBlock``, ``SBlockRealize``, ``MatchBufferRegion``),
read/write region inference (:func:`infer_sblock_regions`) and ``Schedule`` with the
primitives listed in :mod:`tvm.s_tir.schedule.schedule`.
"""

from . import transform  # block lowering; registers the "default" TIR pipeline
from .access_region import (
    get_sblock_access_region,
    get_sblock_read_write_region,
    infer_sblock_regions,
)
from .schedule import (
    ExprRV,
    LoopRV,
    SBlockRV,
    SBlockScope,
    Schedule,
    ScheduleError,
    ScheduleState,
    StmtSRef,
    Trace,
)
from .stmt import MatchBufferRegion, SBlock, SBlockRealize

# The public names (explicit exports for type checkers: `mypy --strict` in user code).
__all__ = [
    "ExprRV", "LoopRV", "MatchBufferRegion", "SBlock", "SBlockRV", "SBlockRealize", "SBlockScope",
    "Schedule", "ScheduleError", "ScheduleState", "StmtSRef", "Trace", "get_sblock_access_region",
    "get_sblock_read_write_region", "infer_sblock_regions", "transform",
]
