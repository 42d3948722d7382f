"""``tvm.s_tir.dlight``: default schedules for unscheduled PrimFuncs, without tuning.

:class:`ApplyDefaultSchedule` is a module pass that gives every PrimFunc that is not yet
scheduled (no ``"tirx.is_scheduled"`` attribute) the schedule of the first
:class:`ScheduleRule` that accepts it, and marks the result scheduled. The GPU rules live in
:mod:`tvm.s_tir.dlight.gpu`::

    with tvm.target.Target("cuda"):
        mod = dl.ApplyDefaultSchedule(
            dl.gpu.Matmul(), dl.gpu.GeneralReduction(), dl.gpu.Fallback()
        )(mod)

The scheduled functions bind ``blockIdx``/``threadIdx`` loops; reductions bound to
``threadIdx`` need ``s_tir.transform.LowerCrossThreadReduction`` and
``tirx.transform.LowerThreadAllreduce`` (see :func:`tvm.s_tir.transform.gpu_lowering_passes`).
docs/arch/gpu_schedules.md describes the rules and their limits.
"""

from . import gpu  # noqa: F401
from .analysis import IterInfo, SBlockInfo, normalize_prim_func  # noqa: F401
from .base import (  # noqa: F401
    ApplyDefaultSchedule,
    ScheduleRule,
    apply_gpu_default_schedule,
    max_threads_per_block,
    try_inline,
    try_inline_contiguous_spatial,
)
