"""The base of the GPU rules: available for targets with the ``"gpu"`` key."""

from __future__ import annotations

from ..base import ScheduleRule

__all__ = ["GPUScheduleRule"]


class GPUScheduleRule(ScheduleRule):
    """A rule that schedules for GPU targets only (``cuda``, ``rocm``, ``metal``...)."""

    def is_target_available(self, target) -> bool:
        return target is not None and "gpu" in tuple(target.keys)
