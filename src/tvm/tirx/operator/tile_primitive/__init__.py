"""Tile-primitive dispatch: the table from (op, target kind) to variant implementations.

* :mod:`.dispatcher`: :func:`register_dispatch`, :func:`predicate`, :func:`fail`,
  :func:`run_dispatch`, :func:`list_registered_schedules`;
* :mod:`.generic`: target-independent variants (scalar loops over the tile, spread over the
  scope's threads) that make every kernel lowerable; backends register faster variants with a
  higher priority.
"""

from __future__ import annotations

from ...tile_primitive import DispatchContext, TilePrimitiveCall
from . import generic, ops  # noqa: F401 - generic registers the generic variants
from .dispatcher import (
    ANY_TARGET,
    DispatchCase,
    DispatchFail,
    Predicate,
    TileDispatchError,
    fail,
    list_registered_schedules,
    predicate,
    register_dispatch,
    run_dispatch,
)

__all__ = [
    "ANY_TARGET",
    "DispatchCase",
    "DispatchContext",
    "DispatchFail",
    "Predicate",
    "TileDispatchError",
    "TilePrimitiveCall",
    "fail",
    "list_registered_schedules",
    "predicate",
    "register_dispatch",
    "run_dispatch",
]
