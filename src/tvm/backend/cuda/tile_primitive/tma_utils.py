"""TMA/MMA shared-memory layout helpers; the layouts themselves live in ``tvm.tirx.layout``.

* :func:`mma_shared_layout` (from ``tvm.tirx.layout.factories``): a whole operand tile;
* :func:`mma_atom_shape` / :func:`mma_atom_layout`: one swizzle atom, 8 rows of the swizzle
  span (``atom.tile_to(shape, atom_shape)`` builds bigger tiles from it);
* :func:`get_swizzle_mode_from_layout`: the :class:`SwizzleMode` a layout uses.
"""

from __future__ import annotations

from ....runtime.data_type import DataType
from ....tirx.layout import ComposeLayout, S, TileLayout
from ....tirx.layout.factories import SwizzleMode, mma_shared_layout

__all__ = [
    "SwizzleMode",
    "get_swizzle_mode_from_layout",
    "mma_atom_layout",
    "mma_atom_shape",
    "mma_shared_layout",
]

#: Rows of one swizzle atom (the swizzle repeats every 8 lines of its span).
ATOM_ROWS = 8


def _swizzled_mode(swizzle_mode) -> SwizzleMode:
    mode = SwizzleMode(int(swizzle_mode))
    if mode == SwizzleMode.SWIZZLE_NONE:
        raise ValueError("a swizzle atom needs a 32B, 64B or 128B swizzle mode, got "
                         "SWIZZLE_NONE")
    return mode


def mma_atom_shape(dtype, swizzle_mode) -> list:
    """``[8, span]``: the rows and the columns (elements of ``dtype`` in the 32/64/128-byte
    swizzle span) of one swizzle atom."""
    mode = _swizzled_mode(swizzle_mode)
    bits = DataType(str(dtype)).bits
    return [ATOM_ROWS, (16 << int(mode)) * 8 // bits]


def mma_atom_layout(dtype, swizzle_mode) -> ComposeLayout:
    """The layout of one swizzle atom: 8 rows of the span, row-major, under the byte
    swizzle ``ComposeLayout(log2(16 B / element), mode, 3, ...)``."""
    mode = _swizzled_mode(swizzle_mode)
    rows, cols = mma_atom_shape(dtype, mode)
    per_element = (128 // DataType(str(dtype)).bits).bit_length() - 1
    return ComposeLayout(per_element, int(mode), 3, TileLayout(S[rows * cols]))


def get_swizzle_mode_from_layout(layout):
    """The :class:`SwizzleMode` of a shared layout: ``SWIZZLE_NONE`` for a plain
    ``TileLayout``, the mode of a 16-byte-unit byte swizzle, else None."""
    if isinstance(layout, TileLayout):
        return SwizzleMode.SWIZZLE_NONE
    if isinstance(layout, ComposeLayout) and layout.atom_len == 3 and layout.swizzle_inner \
            and layout.swizzle_len in (1, 2, 3):
        return SwizzleMode(layout.swizzle_len)
    return None
