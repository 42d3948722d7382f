"""Module-level information: virtual devices (``VDevice``) and a placeholder ``DummyGlobalInfo``.

They live in ``tvm.ir`` (as in Apache TVM 0.27); ``tvm.relax`` re-exports them.
"""

from __future__ import annotations

from .module import GlobalInfo

__all__ = ["DummyGlobalInfo", "VDevice"]


class VDevice(GlobalInfo, type_key="relax.VDevice"):
    """A virtual device: a target, a device id and a memory scope.

    Tensor types name one in ``vdevice``; modules list theirs under
    ``global_infos["vdevice"]``.

    Parameters
    ----------
    target : Target or str, optional
    vdevice_id : int
    memory_scope : str
    """

    target: object = None
    vdevice_id: int = 0
    memory_scope: str = "global"

    def __init__(self, target=None, vdevice_id: int = 0, memory_scope: str = "global"):
        if isinstance(target, (str, dict)):
            # Lazy: target parsing is only needed when a VDevice names one by string.
            from ..target import Target

            target = Target(target)
        self.__init_fields__(target, int(vdevice_id), str(memory_scope))


class DummyGlobalInfo(GlobalInfo, type_key="relax.DummyGlobalInfo"):
    """A placeholder global info (used in tests of ``global_infos``)."""

    def __init__(self):
        self.__init_fields__()
