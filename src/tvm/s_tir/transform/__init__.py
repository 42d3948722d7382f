"""``tvm.s_tir.transform``: passes that lower schedulable TIR (``SBlock``) into ``tirx``."""

from ...target import Target
from .buffer_placement import (  # noqa: F401
    CompactBufferAllocation,
    PlanAndUpdateBufferAllocationLocation,
)
from .default_gpu_schedule import DefaultGPUSchedule  # noqa: F401
from .gpu_pipeline import gpu_lowering_passes, gpu_s_tir_passes, lower_for_gpu  # noqa: F401
from .lower_cross_thread_reduction import LowerCrossThreadReduction  # noqa: F401
from .lower_sblocks import (  # noqa: F401
    ConvertBlocksToOpaque,
    LowerInitBlock,
    LowerOpaqueBlock,
    lower_sblocks,
)


def _s_tir_default_pipeline(target=None):
    """``"default"``: lower SBlocks, then the ``tirx`` pipeline."""
    # Import here: the pipeline table lives in the lower tirx layer; we register into it.
    from ...ir.transform import Sequential
    from ...tirx.compilation_pipeline import tirx_passes

    if _is_gpu(target):
        # GPU schedules: cross-thread reductions, on-chip buffers and barriers.
        passes = gpu_lowering_passes()
    else:
        passes = [LowerInitBlock(), ConvertBlocksToOpaque(), LowerOpaqueBlock()]
    return Sequential(passes + tirx_passes(target), name="s_tir.default")


def _is_gpu(target) -> bool:
    if target is None:
        return False
    if not isinstance(target, Target):
        try:
            target = Target(target)
        except (TypeError, ValueError):
            return False
    return "gpu" in tuple(target.keys)


def _register():
    from ...tirx.compilation_pipeline import register_tir_pipeline

    register_tir_pipeline("default", _s_tir_default_pipeline)
    register_tir_pipeline("s_tir", _s_tir_default_pipeline)


_register()
