"""``tvm.tirx.operator``: TIRx operators; ``tile_primitive`` holds the tile-primitive dispatch.

``import tvm.tirx.operator.tile_primitive`` loads the dispatch table and the generic
variants registered into it.
"""

from __future__ import annotations

from ..tile_primitive import get_tile_op

__all__ = ["get_tirx_op"]


def get_tirx_op(op_name: str):
    """The tile-primitive op ``tirx.tile.<op_name>``."""
    return get_tile_op(op_name)
