"""Docsifiers of TIRx kernel constructs (spec D.3), in Apache TVM 0.27's printed forms.

* ``ScopeIdDefStmt``: ``bx = T.cta_id([1])``, ``bx, by = T.cta_id([8, 10])``, ``v =
  T.cta_id()`` (deferred extent), ``T.cta_id_in_cluster([2], preferred=[4])``, ``T.thread_id([256],
  dtype="uint32")``; the generic ``T.scope_id`` prints as the named call of its scope pair;
* ``T.hint("message", key=value)`` (an ``AttrStmt`` ``tirx_hint`` about a dict);
* ``T.attr({"tirx.device_entry": T.bool(True)})`` and ``T.hint(...)`` print flat (the body
  after them, unindented) when the attribute is the whole body of its parent, and as a
  ``with`` block inside a sequence: both forms parse back to the same IR.
* a buffer layout prints through :func:`layout_doc`, the one place that knows how.
"""

from __future__ import annotations

from ... import tirx
from ...tirx import stmt as _stmt
from ...tirx.exec_scope import SCOPE_ID_FUNCTIONS
from .doc import AssignDoc, ExprStmtDoc, ListDoc, LiteralDoc, TupleDoc
from .ir_docsifier import attr_path, register_printer
from .tirx_layout_printer import layout_to_doc

__all__ = ["HINT_KEY", "flat_attr", "hint_call", "layout_doc"]

HINT_KEY = "tirx_hint"


def _t(d, name):
    return d.prefix("T").attr(name)


def layout_doc(layout, d):
    """The printed form of a buffer ``layout`` (``layout=...`` of an allocation or a view)."""
    return layout_to_doc(layout, d)


def is_default_layout(buf) -> bool:
    """Whether ``buf`` has the default (row-major) layout, which 0.27 leaves out of the printed
    allocation. ``tvm.tirx.buffer.decl_buffer`` stores that layout as None."""
    return buf.layout is None


def flat_attr(stmt) -> bool:
    """Whether an ``AttrStmt`` may print flat (``T.attr({...})`` / ``T.hint(...)`` followed by
    its body, unindented) when it is the whole body of its parent."""
    if not isinstance(stmt, _stmt.AttrStmt):
        return False
    if stmt.attr_key == HINT_KEY:
        return True
    node = stmt.node
    return isinstance(node, tirx.IntImm) and node.value == 0


def _value_doc(value, d):
    if isinstance(value, (str, bool, int, float)):
        return LiteralDoc(value)
    return d.as_doc(value, None)


def hint_call(node, d):
    """``T.hint("message", key=value, ...)`` of a ``tirx_hint`` node dict."""
    items = dict(node)
    args = []
    if "message" in items:
        args.append(_value_doc(items.pop("message"), d))
    kwargs = {k: _value_doc(v, d) for k, v in items.items()}
    return _t(d, "hint").call(*args, **kwargs)


@register_printer(_stmt.ScopeIdDefStmt)
def _scope_id_def_stmt(node, path, d):
    scope_def = node.def_
    func = SCOPE_ID_FUNCTIONS[(scope_def.parent, scope_def.cur)]
    args = []
    if scope_def.extents is not None:
        args.append(ListDoc([d.as_doc(e, None) for e in scope_def.extents]))
    kwargs = {}
    if scope_def.preferred_extents is not None:
        kwargs["preferred"] = ListDoc([d.as_doc(e, None) for e in scope_def.preferred_extents])
    dtype = scope_def.def_ids[0].dtype
    if dtype != "int32":
        kwargs["dtype"] = LiteralDoc(dtype)
    rhs = _t(d, func).call(*args, **kwargs)
    ids_path = attr_path(attr_path(path, "def"), "def_ids")
    names = [d.define(v, v.name or "v") for v in scope_def.def_ids]
    del ids_path
    lhs = names[0] if len(names) == 1 else TupleDoc(names)
    return AssignDoc(lhs, rhs)


def flat_docs(scope_doc) -> list:
    """A ``with`` block's docs written flat: the call, then the body."""
    return [ExprStmtDoc(scope_doc.rhs)] + list(scope_doc.body)
