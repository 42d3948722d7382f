"""TVMScript text of layouts, as Apache TVM 0.27 prints them.

``T.TileLayout(T.S[(8, 4):(4 @ Axis.laneid, 1)] + T.R[2:1 @ Axis.laneid] + 64)`` and
``T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[512:1]))``. Strides and offsets on ``m`` print
bare; other axes print as ``value @ Axis.<name>``. Several offset terms print as one
parenthesized sum ordered by axis name.
"""

from __future__ import annotations

from ..expr_text import expr_text

__all__ = ["iter_text", "layout_text"]

# Expression kinds that bind looser than ``@`` (which shares ``*``'s precedence).
_LOOSER_THAN_MATMUL = frozenset({
    "Add", "Sub", "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or", "Not",
    "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LShift", "RShift", "Select",
})


def _on_axis_text(value, axis) -> str:
    text = expr_text(value)
    if axis.name == "m":
        return text
    if type(value).__name__ in _LOOSER_THAN_MATMUL:
        text = f"({text})"
    return f"{text} @ Axis.{axis.name}"


def _iters_text(builder, iters) -> str:
    if len(iters) == 1:
        it = iters[0]
        return f"{builder}[{expr_text(it.extent)}:{_on_axis_text(it.stride, it.axis)}]"
    extents = ", ".join(expr_text(it.extent) for it in iters)
    strides = ", ".join(_on_axis_text(it.stride, it.axis) for it in iters)
    return f"{builder}[({extents}):({strides})]"


def _offset_text(offset) -> str:
    terms = sorted(offset.items(), key=lambda kv: kv[0].name)
    parts = [_on_axis_text(value, axis) for axis, value in terms]
    if len(parts) == 1:
        return parts[0]
    return "(" + " + ".join(parts) + ")"


def tile_layout_text(layout, prefix="T.") -> str:
    """TVMScript text of a TileLayout, as 0.27 prints it.

    Parameters
    ----------
    layout : TileLayout
        The layout.
    prefix : str, optional
        Prefix of the builders (``"T."`` prints ``T.TileLayout(T.S[...] + T.R[...] + off)``).

    Returns
    -------
    str
        The text.
    """
    parts = []
    if layout.shard or not layout.replica:
        parts.append(_iters_text(f"{prefix}S", layout.shard) if layout.shard
                     else f"{prefix}S[():()]")
    if layout.replica:
        parts.append(_iters_text(f"{prefix}R", layout.replica))
    if layout.offset:
        parts.append(_offset_text(layout.offset))
    return f"{prefix}TileLayout(" + " + ".join(parts) + ")"


def layout_text(layout, prefix="T.") -> str:
    """The TVMScript text of a TileLayout or ComposeLayout (``prefix`` names the T module)."""
    from .layout import ComposeLayout, TileLayout  # lazy: layout.py imports this module

    if isinstance(layout, TileLayout):
        return tile_layout_text(layout, prefix)
    if isinstance(layout, ComposeLayout):
        tail = "" if layout.swizzle_inner else ", swizzle_inner=False"
        return (f"{prefix}ComposeLayout({layout.per_element}, {layout.swizzle_len}, "
                f"{layout.atom_len}, {tile_layout_text(layout.tile_layout, prefix)}{tail})")
    return f"{prefix}{type(layout).__name__}()"


def iter_text(it) -> str:
    """TVMScript text of one Iter: ``T.Iter(extent, stride, "axis")``.

    Parameters
    ----------
    it : Iter
        The iter.

    Returns
    -------
    str
        The text.
    """
    return f'T.Iter({expr_text(it.extent)}, {expr_text(it.stride)}, "{it.axis.name}")'
