"""Docsifiers of TIRx kernel constructs (spec D.3), in Apache TVM 0.27's printed forms.

* ``ScopeIdDefStmt``: ``bx = T.cta_id([1])``, ``bx, by = T.cta_id([8, 10])``, ``v =
  T.cta_id()`` (deferred extent), ``T.cta_id_in_cluster([2], preferred=[4])``, ``T.thread_id([256],
  dtype="uint32")``; the generic ``T.scope_id`` prints as the named call of its scope pair;
* ``T.hint("message", key=value)`` (an ``AttrStmt`` ``tirx_hint`` about a dict);
* ``T.attr({"tirx.device_entry": T.bool(True)})`` and ``T.hint(...)`` print flat (the body
  after them, unindented) when the attribute is the whole body of its parent, and as a
  ``with`` block inside a sequence: both forms parse back to the same IR.
* a buffer layout prints through :func:`layout_doc`, the one place that knows how; an
  explicit "no layout" (``NO_LAYOUT``) prints ``layout=None``;
* a ``DeclBuffer`` that is a view of another buffer prints as the method call making it
  (:func:`view_sugar`): ``B.local()``, ``B.local(4, 8)``, ``B.local(layout=L)``,
  ``A.view("float32")``, ``C.permute(1, 0)``, ``A.view(8, 8, layout=L)``; other views
  (``sub``, ``tile``) print as ``T.decl_buffer(..., data=P.data, elem_offset=...)``.
"""

from __future__ import annotations

from ... import tirx
from ...ir.type import PointerType
from ...tirx import stmt as _stmt
from ...tirx.buffer import VIEW_PARENTS, NoLayout
from ...tirx.exec_scope import SCOPE_ID_FUNCTIONS
from ...tirx.type import is_tensormap_pointer
from .doc import AssignDoc, ExprStmtDoc, ListDoc, LiteralDoc, TupleDoc
from .ir_docsifier import attr_path, register_printer
from .tirx_layout_printer import layout_to_doc

__all__ = ["HINT_KEY", "flat_attr", "hint_call", "layout_doc", "view_parent", "view_sugar"]

HINT_KEY = "tirx_hint"


def _t(d, name):
    return d.prefix("T").attr(name)


def layout_doc(layout, d):
    """The printed form of a buffer ``layout`` (``layout=...`` of an allocation or a view)."""
    if isinstance(layout, NoLayout):
        return LiteralDoc(None)
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


# --- buffer views -----------------------------------------------------------------------------


def view_parent(buf, data, d):
    """The defined buffer ``buf`` is a view of: the one it was made from (``VIEW_PARENTS``),
    else the buffer that first defined ``data``; None if neither is printed yet."""
    parent = VIEW_PARENTS.get(buf)
    if parent is not None and parent is not buf and d.is_defined(parent):
        return parent
    owner = d.state.get("data_owner", {}).get(id(data))
    if owner is not None and owner is not buf and d.is_defined(owner):
        return owner
    return None


def _effective(buf):
    from ...tirx._buffer_view import effective_layout  # lazy: imports the layout package

    return effective_layout(buf)


def _same(a, b) -> bool:
    from ...ffi.structural import structural_equal  # local: a leaf utility

    return structural_equal(a, b)


def _exprs_equal(xs, ys) -> bool:
    return len(xs) == len(ys) and all(_same(x, y) for x, y in zip(xs, ys))


def _has_thread_axis(layout) -> bool:
    iters = (*getattr(layout, "shard", ()), *getattr(layout, "replica", ()))
    return hasattr(layout, "shard") and any(
        it.axis is not None and it.axis.is_thread() for it in iters)


def _proved_equal(a, b) -> bool:
    from ...arith import Analyzer  # local: only local views need it

    return Analyzer().can_prove_equal(tirx.const(0) + a, b)


def _product(values):
    total = tirx.const(1)
    for v in values:
        total = total * v
    return total


def view_sugar(child, parent, d):
    """The method call on ``parent`` that makes the view ``child`` (a ``CallDoc``), or None
    when no view method gives exactly that buffer."""
    from ...tirx.layout import TileLayout  # lazy: the layout package imports arith

    if not (child.scope() == parent.scope() and child.data_alignment == parent.data_alignment
            and child.offset_factor == parent.offset_factor
            and _same(child.allocated_addr, parent.allocated_addr)):
        return None
    same_offset = _same(child.elem_offset, parent.elem_offset)
    if not same_offset:
        return None
    same_dtype = child.dtype == parent.dtype
    same_shape = _exprs_equal(child.shape, parent.shape)
    same_strides = _exprs_equal(child.strides, parent.strides)
    child_layout, parent_layout = _effective(child), _effective(parent)
    child_default, parent_default = child.layout is None, parent.layout is None
    pdoc = d.as_doc(parent, None)
    shape_docs = [d.as_doc(s, None) for s in child.shape]

    # ``P.local(...)``: the parent is laid out over threads, the child is its storage.
    if (same_dtype and same_strides and isinstance(parent_layout, TileLayout)
            and not parent_default and _has_thread_axis(parent_layout)
            and child_layout is not None):
        storage = parent_layout.storage()
        span, size = storage.span(), storage.size()
        physical = child_default and _proved_equal(_product(child.shape), span)
        if physical or not _has_thread_axis(child_layout):
            extent = span if physical else size
            auto = len(child.shape) == 1 and _proved_equal(child.shape[0], extent)
            kwargs = {} if physical else {"layout": layout_doc(child_layout, d)}
            return pdoc.attr("local").call(*([] if auto else shape_docs), **kwargs)

    # ``P.view("float32")``: the same bytes as another dtype.
    if not same_dtype and len(child.shape) == len(parent.shape) and child.shape:
        ratio_doc = _dtype_view_fits(child, parent, parent_layout)
        if ratio_doc:
            return pdoc.attr("view").call(LiteralDoc(child.dtype))

    # ``P.permute(...)``: a permutation of the dims, the layout iters reordered alike.
    if same_dtype and not same_shape and len(child.shape) == len(parent.shape):
        perm = _permutation(child.shape, parent.shape)
        if perm is not None and perm != list(range(len(perm))) and isinstance(
                child_layout, TileLayout) and isinstance(parent_layout, TileLayout) and len(
                child_layout.shard) == len(parent_layout.shard) == len(perm) and all(
                _same(child_layout.shard[i], parent_layout.shard[p])
                for i, p in enumerate(perm)) and _same(
                child_layout.replica, parent_layout.replica) and _same(
                child_layout.offset, parent_layout.offset):
            return pdoc.attr("permute").call(*[LiteralDoc(p) for p in perm])

    # ``P.view(*shape)`` / ``P.view(*shape, layout=L)``: a reshape.
    if same_dtype and not same_shape and same_strides:
        if child_default and parent_default:
            return pdoc.attr("view").call(*shape_docs)
        if _same(child.layout, parent.layout) or _same(child_layout, parent_layout):
            return pdoc.attr("view").call(*shape_docs)
        if isinstance(child.layout, NoLayout):
            return None
        return pdoc.attr("view").call(*shape_docs, layout=layout_doc(child_layout, d))
    return None


def _permutation(child_shape, parent_shape):
    used = [False] * len(parent_shape)
    perm = []
    for extent in child_shape:
        for j, other in enumerate(parent_shape):
            if not used[j] and _same(extent, other):
                used[j] = True
                perm.append(j)
                break
        else:
            return None
    return perm


def _dtype_view_fits(child, parent, parent_layout) -> bool:
    from ...runtime.data_type import DataType  # local: only dtype views need it

    if not _exprs_equal(child.shape[:-1], parent.shape[:-1]):
        return False
    last, parent_last = child.shape[-1], parent.shape[-1]
    if not (isinstance(last, tirx.IntImm) and isinstance(parent_last, tirx.IntImm)):
        return False
    bits, parent_bits = DataType(child.dtype).bits, DataType(parent.dtype).bits
    if last.value * bits != parent_last.value * parent_bits:
        return False
    if bits > parent_bits and getattr(parent_layout, "shard", None):
        inner = parent_layout.shard[-1]
        ratio = bits // parent_bits
        stride, extent = inner.stride, inner.extent
        if not (isinstance(stride, tirx.IntImm) and stride.value == 1
                and isinstance(extent, tirx.IntImm) and extent.value % ratio == 0):
            return False
    return True


@register_printer(PointerType)
def _pointer_type(ty, path, d):
    """A pointer type as TVM 0.27 writes it: ``T.handle("uint32", "shared")``,
    ``T.TensorMap()``, ``T.handle`` for a global ``void`` pointer and
    ``T.handle(storage_scope="shared")`` for a ``void`` pointer in another scope."""
    if is_tensormap_pointer(ty):
        return _t(d, "TensorMap").call()
    elem = getattr(ty.element_type, "dtype", "void")
    scope = ty.storage_scope or "global"
    if elem == "void":
        if scope == "global":
            return _t(d, "handle")
        return _t(d, "handle").call(storage_scope=LiteralDoc(scope))
    return _t(d, "handle").call(LiteralDoc(elem), LiteralDoc(scope))
