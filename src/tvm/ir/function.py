"""``tvm.ir.BaseFunc``: the common base of the functions an IRModule holds.

It lives in ``tvm.ir`` (below ``tirx`` and ``relax``) so that both ``tirx.PrimFunc`` and
``relax.Function`` / ``relax.ExternFunc`` derive from it, as in Apache TVM 0.27.
"""

from __future__ import annotations

from .expr import RelaxExpr

__all__ = ["BaseFunc"]


class BaseFunc(RelaxExpr, type_key="ir.BaseFunc"):
    """Base class of functions stored in an IRModule (Relax ``Function``, TIR ``PrimFunc``).

    Each subclass declares its own fields (``params``, ``body``, ``attrs``...) and its
    ``with_attr`` / ``with_attrs`` / ``without_attr`` helpers.
    """
