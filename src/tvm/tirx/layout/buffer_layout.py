"""The ``layout=`` of a buffer declaration, normalized."""

from __future__ import annotations

from ...ffi.structural import structural_equal
from .axis import LayoutSpec
from .layout import Layout, TileLayout

__all__ = ["buffer_layout", "default_layout"]


def default_layout(shape) -> TileLayout:
    """The row-major layout of ``shape`` (``T.TileLayout(T.S[shape])``)."""
    return TileLayout(LayoutSpec(shard=(tuple(shape), None)))


def buffer_layout(layout, shape):
    """The layout to store on a buffer of ``shape``: None for the row-major default (given as
    None, ``"default"`` or a layout equal to ``S[shape]``), else the layout itself."""
    if layout is None or (isinstance(layout, str) and layout == "default"):
        return None
    if isinstance(layout, str) and layout and set(layout) <= {"P", "F"}:
        layout = TileLayout.trainium(layout, tuple(shape))  # Trainium "PF" annotation
    if not isinstance(layout, Layout):
        raise TypeError(f"a buffer layout must be a TileLayout or ComposeLayout, None, "
                        f"'default' or a Trainium 'P'/'F' annotation, got {layout!r}")
    if isinstance(layout, TileLayout) and structural_equal(layout, default_layout(shape)):
        return None
    return layout
