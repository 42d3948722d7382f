"""TVMScript docs of TIRx layouts (``layout=`` of buffer declarations).

Prints as Apache TVM 0.27 does: ``T.TileLayout(T.S[(8, 4):(4 @ Axis.laneid, 1)])``,
``T.ComposeLayout(3, 3, 3, T.TileLayout(T.S[512:1]))``. Strides and offsets on the memory
axis ``m`` print bare, others as ``value @ Axis.<name>`` (``Axis`` is imported by the
printed header ``# from tvm.tirx.layout import Axis``); several offset terms print as one
parenthesized sum ordered by axis name.
"""

from __future__ import annotations

from ...tirx.layout import ComposeLayout, TileLayout
from .doc import (
    CallDoc,
    ExprDoc,
    IdDoc,
    IndexDoc,
    LiteralDoc,
    OperationDoc,
    OperationKind,
    SliceDoc,
    TupleDoc,
)
from .doc_printer import to_python_script

__all__ = ["layout_to_doc", "print_layout"]

# Expression kinds that bind looser than ``@`` (which shares ``*``'s precedence).
_LOOSER_THAN_MATMUL = frozenset({
    "Add", "Sub", "EQ", "NE", "LT", "LE", "GT", "GE", "And", "Or", "Not",
    "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LShift", "RShift", "Select",
})


def _expr_doc(value, d) -> ExprDoc:
    if d is None:
        from ...tirx.expr_text import expr_text

        return IdDoc(expr_text(value))
    return d.as_doc(value, None)


def _on_axis_doc(value, axis, d) -> ExprDoc:
    doc = _expr_doc(value, d)
    if axis.name == "m":
        return doc
    text = to_python_script(doc)
    if type(value).__name__ in _LOOSER_THAN_MATMUL:
        text = f"({text})"
    # No operator doc exists for ``@``; the operand is already rendered text.
    return IdDoc(f"{text} @ Axis.{axis.name}")


def _spec_doc(builder, iters, d) -> ExprDoc:
    if len(iters) == 1:
        it = iters[0]
        start, stop = _expr_doc(it.extent, d), _on_axis_doc(it.stride, it.axis, d)
    else:
        start = TupleDoc([_expr_doc(it.extent, d) for it in iters])
        stop = TupleDoc([_on_axis_doc(it.stride, it.axis, d) for it in iters])
    return IndexDoc(builder, [SliceDoc(start, stop, None)])


def _offset_doc(offset, d) -> ExprDoc:
    terms = sorted(offset.items(), key=lambda kv: kv[0].name)
    docs = [_on_axis_doc(value, axis, d) for axis, value in terms]
    if len(docs) == 1:
        return docs[0]
    return IdDoc("(" + " + ".join(to_python_script(doc) for doc in docs) + ")")


def _t(d, name) -> ExprDoc:
    return IdDoc(f"T.{name}") if d is None else d.prefix("T").attr(name)


def _tile_doc(layout, d) -> ExprDoc:
    parts = []
    if layout.shard or not layout.replica:
        parts.append(_spec_doc(_t(d, "S"), layout.shard, d) if layout.shard
                     else IndexDoc(_t(d, "S"), [SliceDoc(TupleDoc([]), TupleDoc([]), None)]))
    if layout.replica:
        parts.append(_spec_doc(_t(d, "R"), layout.replica, d))
    if layout.offset:
        parts.append(_offset_doc(layout.offset, d))
    arg = parts[0]
    for part in parts[1:]:
        arg = OperationDoc(OperationKind.Add, [arg, part])
    return CallDoc.from_lists(_t(d, "TileLayout"), [arg], [], [])


def layout_to_doc(layout, d=None) -> ExprDoc:
    """The doc of a TileLayout or ComposeLayout; ``d`` is the IRDocsifier (None renders
    expressions with their plain text)."""
    if isinstance(layout, TileLayout):
        return _tile_doc(layout, d)
    if isinstance(layout, ComposeLayout):
        keys, values = [], []
        if not layout.swizzle_inner:
            keys, values = ["swizzle_inner"], [LiteralDoc(False)]
        args = [LiteralDoc(layout.per_element), LiteralDoc(layout.swizzle_len),
                LiteralDoc(layout.atom_len), _tile_doc(layout.tile_layout, d)]
        return CallDoc.from_lists(_t(d, "ComposeLayout"), args, keys, values)
    raise TypeError(f"layout_to_doc expects a TileLayout or ComposeLayout, "
                    f"got {type(layout).__name__}")


def print_layout(layout) -> str:
    """The TVMScript text of a layout (``T.TileLayout(T.S[...])``)."""
    return to_python_script(layout_to_doc(layout))
