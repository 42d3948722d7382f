"""``tvm.s_tir``: the schedulable TIR layer (SBlocks; schedules are still to come).

What exists now: the block nodes (``SBlock``, ``SBlockRealize``, ``MatchBufferRegion``) and
read/write region inference (:func:`infer_sblock_regions`). ``Schedule`` and the schedule
primitives are not written yet.
"""

from .access_region import (  # noqa: F401
    get_sblock_access_region,
    get_sblock_read_write_region,
    infer_sblock_regions,
)
from .stmt import MatchBufferRegion, SBlock, SBlockRealize  # noqa: F401
