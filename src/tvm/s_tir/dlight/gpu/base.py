"""The base of the GPU rules: available for targets with the ``"gpu"`` key."""

from __future__ import annotations

from ..base import ScheduleRule

__all__ = ["GPUScheduleRule"]


class GPUScheduleRule(ScheduleRule):
    """A rule that schedules for GPU targets only (``cuda``, ``rocm``, ``metal``...)."""

    def is_target_available(self, target) -> bool:
        """Whether ``target`` is a GPU target (it has the ``"gpu"`` key).

        Parameters
        ----------
        target : Target or None
            The target to check.

        Returns
        -------
        bool
            ``False`` for ``None`` and for targets without the ``"gpu"`` key.
        """
        return target is not None and "gpu" in tuple(target.keys)
