"""Warp specialisation roles: ``with WarpRole(warp_id, 0, regs=232, increase=True):``.

A role is a context manager used in a kernel body. Entering it opens
``if <var> == <idx>:`` (or ``if start <= var and var < stop`` for a range of warpgroups)
and, when ``regs`` is given, first emits ``setmaxnreg.{inc|dec}.sync.aligned.u32 regs``
so the threads of the role raise or lower their register budget (printed
``T.ptx.setmaxnreg(232, "inc", "sync", "aligned", "u32", "")``, as Apache TVM 0.27).
"""

from __future__ import annotations

from tvm.script import tirx as T
from tvm.script.ir_builder import tirx as B
from tvm.tirx import generic as _generic

__all__ = ["WarpRole", "WarpgroupRole"]


class _Role:
    _what = "role"

    def __init__(self, var, idx, regs=None, increase=False):
        if regs is not None and (isinstance(regs, bool) or not isinstance(regs, int)
                                 or not 24 <= regs <= 256 or regs % 8):
            raise ValueError(f"{type(self).__name__}: regs must be an int in [24, 256] and a "
                             f"multiple of 8 (setmaxnreg), got {regs!r}")
        self.var = var
        self.idx = idx
        self.regs = regs
        self.increase = bool(increase)
        self._frames = []

    def _condition(self):
        if isinstance(self.idx, (tuple, list)):
            if len(self.idx) != 2:
                raise ValueError(f"{type(self).__name__}: a range of {self._what}s is "
                                 f"(start, stop), got {self.idx!r}")
            start, stop = self.idx
            return _generic.logical_and(self.var >= start, self.var < stop)
        return self.var == self.idx

    def __enter__(self):
        if_frame = B.If(self._condition())
        if_frame.__enter__()
        then_frame = B.Then()
        then_frame.__enter__()
        self._frames = [if_frame, then_frame]
        if self.regs is not None:
            mode = "inc" if self.increase else "dec"
            B.evaluate(T.ptx[f"setmaxnreg.{mode}.sync.aligned.u32"](self.regs))
        return self

    def __exit__(self, exc_type, exc, tb):
        for frame in reversed(self._frames):
            frame.__exit__(exc_type, exc, tb)
        self._frames = []
        return False


class WarpRole(_Role):
    """``WarpRole(warp_id_var, idx, regs=None, increase=False)``: the statements of the
    ``with`` body run on warp ``idx`` only (``if warp_id_var == idx:``)."""

    _what = "warp"


class WarpgroupRole(_Role):
    """``WarpgroupRole(wg_var, idx | (start, stop), regs=None, increase=False)``: the
    statements run on warpgroup ``idx`` (or warpgroups ``start <= wg < stop``)."""

    _what = "warpgroup"
