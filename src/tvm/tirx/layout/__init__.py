"""TIRx layouts: where each element of a tile lives, across threads and memory.

``TileLayout(S[...] + R[...] + offset)`` maps a logical index to coordinates on named axes
(:class:`Axis`); ``ComposeLayout`` adds an XOR swizzle. See ``docs/arch/tirx_layout.md``.
Registered axis names are also module attributes: ``from tvm.tirx.layout import laneid``.
"""

from .axis import AXIS_NAMES, Axis, R, S
from .factories import (
    SwizzleMode,
    mma_shared_layout,
    tcgen05_atom_layout,
    tmem_datapath_layout,
    tmem_mma_operand_layout,
    wg_local_layout,
)
from .layout import ComposeLayout, Iter, Layout, TileLayout

__all__ = [
    "Axis",
    "ComposeLayout",
    "Iter",
    "Layout",
    "R",
    "S",
    "SwizzleMode",
    "TileLayout",
    "mma_shared_layout",
    "tcgen05_atom_layout",
    "tmem_datapath_layout",
    "tmem_mma_operand_layout",
    "wg_local_layout",
]


def __getattr__(name):
    if name in AXIS_NAMES:
        return Axis.get(name)
    raise AttributeError(f"module 'tvm.tirx.layout' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(AXIS_NAMES))
