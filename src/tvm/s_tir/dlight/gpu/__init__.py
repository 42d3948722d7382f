"""Default GPU schedule rules (blockIdx/threadIdx bindings; see docs/arch/gpu_schedules.md).

* :class:`Fallback`: every spatial nest fused and bound to ``blockIdx.x``/``threadIdx.x``;
  reductions run serially in each thread.
* :class:`Reduction` / :class:`GeneralReduction`: one row per CTA, the reduction loops split
  over ``threadIdx.x`` (a cross-thread reduction: warp shuffles plus shared memory).
* :class:`Matmul`: shared-memory tiles of both operands, a register tile per thread.
"""

from .base import GPUScheduleRule  # noqa: F401
from .fallback import Fallback  # noqa: F401
from .matmul import Matmul  # noqa: F401
from .reduction import GeneralReduction, Reduction  # noqa: F401
