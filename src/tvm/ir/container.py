"""``tvm.ir.Map``: the map type of IR attributes that are maps (a ``T.hint`` node, ...).

pytvm's IR keeps maps as Python dicts; :class:`Map` is a ``dict`` subclass so that code
written against Apache TVM's ``tvm.ir.Map`` (``isinstance(x, tvm.ir.Map)``, ``m["key"]``,
``"key" in m``) works, and structural equality treats it like any dict.
"""

from __future__ import annotations

__all__ = ["Map"]


class Map(dict):
    """A map of IR values (a ``dict``)."""

    __slots__ = ()
