"""Docsifiers for TIR functions and statements: ``@T.prim_func``, loops, stores, SBlocks.

Formats follow Apache TVM 0.27 for the common forms:

* parameters ``A: T.Buffer((2, 3), "float32")`` (from ``buffer_map``), ``n: T.int32``,
  ``h: T.handle``; ``T.func_attr({...})`` without ``global_symbol``;
  ``@T.prim_func(s_tir=True)`` when the function has the ``s_tir`` attribute or a root SBlock;
* loops ``for i in range(16):``, ``range(2, 8)``, ``T.parallel``/``T.vectorized``/
  ``T.unroll``, ``T.thread_binding(16, thread="threadIdx.x")``, ``T.serial(16,
  annotations=...)``, and nested plain loops merged into ``for i, j in T.grid(2, 3):``;
* ``C[i, j] = value`` (a constant-stride ramp index as a slice ``B[i:i + 4]``),
  ``x: T.let[T.int32] = value`` (a ``Bind``), ``T.evaluate(x)`` (a call prints bare),
  ``if``/``else``, ``while``, ``with T.attr(node, "key", value):`` (``T.attr({"key": value})``
  about the node ``0``), ``tx = T.launch_thread("threadIdx.x", 256)`` (a ``thread_extent``
  attribute, its body unindented), ``assert c, (kind, [msg])``;
* ``B = T.alloc_buffer((16,), "int32")`` (``T.alloc_local``/``T.alloc_shared`` for those
  scopes; the dtype is left out when it is ``float32``);
* SBlocks: ``# with T.sblock("root"):``, ``with T.sblock("C"):``, ``T.axis.remap("SSR", [i, j,
  k])`` or ``T.axis.spatial(16, i)``, ``T.where``, ``T.reads``/``T.writes``, ``T.sblock_attr``,
  ``T.sblock_alloc_buffer``, ``T.match_buffer``, ``with T.init():``.

A ``DeclBuffer`` viewing another buffer's memory with the same dtype prints as
``D = A.view(16)``; other declarations as ``T.decl_buffer((8,), data=A.data, ...)``. A
buffer used without a declaration is declared at the top (``B_1 = T.Buffer((16,))``), with
``data=B.data`` when it aliases another buffer (TVM 0.27 leaves that out and loses the alias).

The decorator is ``@T.prim_func(private=True, s_tir=True)`` (that order); symbolic variables
first seen as a whole dimension of a parameter buffer print quoted (``T.Buffer(("n", 4))``)
and are declared (``n = T.int32()``) before ``T.func_attr``.

Not covered yet: TIRx kernel constructs of spec D.3 (scope ids, layouts, tile primitives)
have no docsifier (printing one raises ``TypeError`` naming the class).
"""

from __future__ import annotations

from ... import tirx
from ...ir.expr import Range
from ...ir.type import PointerType
from ...tirx import stmt as _stmt
from ...tirx.buffer import Buffer
from ...tirx.function import PrimFunc
from ...tirx.stmt_functor import post_order_visit
from ...tirx.type import is_tensormap_pointer
from . import tirx_kernel_printer as _kernel  # also registers the TIRx kernel docsifiers
from .doc import (
    AssertDoc,
    AssignDoc,
    CommentDoc,
    ExprStmtDoc,
    ForDoc,
    FunctionDoc,
    IdDoc,
    IfDoc,
    IndexDoc,
    ListDoc,
    LiteralDoc,
    ReturnDoc,
    ScopeDoc,
    SliceDoc,
    StmtBlockDoc,
    TupleDoc,
    WhileDoc,
)
from .ir_docsifier import attr_path, item_path, register_printer
from .relax_printer import attr_value_doc

__all__ = []

_ForKind = _stmt.ForKind


def _t(d, *names):
    doc = d.prefix("T")
    for name in names:
        doc = doc.attr(name)
    return doc


def _same_const(a, b) -> bool:
    """Two expressions are the same integer constant or the same object."""
    if a is b:
        return True
    return isinstance(a, tirx.IntImm) and isinstance(b, tirx.IntImm) and a.value == b.value


def _is_zero(expr) -> bool:
    return isinstance(expr, tirx.IntImm) and expr.value == 0


def _dims(values, path, d):
    return TupleDoc([d.as_doc(v, item_path(path, i)) for i, v in enumerate(values)])


# --- buffers --------------------------------------------------------------------------------


def _buffer_kwargs(buf, d, with_dtype_default=True):
    """Keyword arguments of a buffer declaration that differ from the defaults."""
    # In Apache TVM 0.27's order: strides, elem_offset, scope, align, offset_factor, layout,
    # allocated_addr.
    keys, values = [], []
    if buf.strides:
        keys.append("strides")
        values.append(TupleDoc([d.as_doc(s, None) for s in buf.strides]))
    if buf.elem_offset is not None and not _is_zero(buf.elem_offset):
        keys.append("elem_offset")
        values.append(d.as_doc(buf.elem_offset, None))
    scope = buf.scope()
    if scope != "global":
        keys.append("scope")
        values.append(LiteralDoc(scope))
    if buf.data_alignment != 64:
        keys.append("align")
        values.append(LiteralDoc(buf.data_alignment))
    if buf.offset_factor != 1:
        keys.append("offset_factor")
        values.append(LiteralDoc(buf.offset_factor))
    if buf.buffer_type == 2:
        keys.append("buffer_type")
        values.append(LiteralDoc("auto"))
    if buf.axis_separators:
        keys.append("axis_separators")
        values.append(ListDoc([LiteralDoc(int(a)) for a in buf.axis_separators]))
    if not _kernel.is_default_layout(buf):
        keys.append("layout")
        values.append(_kernel.layout_doc(buf.layout, d))
    if buf.allocated_addr is not None:
        # One address prints bare (``allocated_addr=256``), as 0.27 prints it; several as a
        # list.
        keys.append("allocated_addr")
        addrs = buf.allocated_addr
        values.append(d.as_doc(addrs[0], None) if len(addrs) == 1
                      else ListDoc([d.as_doc(a, None) for a in addrs]))
    return keys, values


def _define_buffer(buf, d) -> IdDoc:
    doc = d.define(buf, buf.name)
    # The data pointer prints as ``A.data``.
    if not d.is_defined(buf.data):
        d.var_names[id(buf.data)] = f"{doc.name}.data"
        d.state.setdefault("data_owner", {})[id(buf.data)] = buf
    return doc


def _signature_dims(shape, d, params) -> TupleDoc:
    """A parameter buffer's shape: an int32 variable first seen as a whole dimension prints
    as its name in quotes, as TVM 0.27 writes it (``T.Buffer(("n", 4))``); it is still
    declared in the body (``n = T.int32()``).

    TVM 0.27 also quotes a first-seen compound dimension (``"n * 4"``), which parses back as
    a variable named ``n * 4``; that form is not reproduced: it prints ``n * 4``.
    """
    docs = []
    for dim in shape:
        if (isinstance(dim, tirx.Var) and dim.dtype == "int32" and not d.is_defined(dim)
                and id(dim) not in params):
            d.as_doc(dim, None)  # records the ``n = T.int32()`` declaration
            docs.append(LiteralDoc(d.var_names.get(id(dim), dim.name)))
        else:
            docs.append(d.as_doc(dim, None))
    return TupleDoc(docs)


def _buffer_decl(buf, path, d, callee, dtype_optional=True, params=None):
    """``callee(shape, dtype, kwargs...)``; the dtype is left out when it is float32."""
    if params is not None:
        args = [_signature_dims(buf.shape, d, params)]
    else:
        args = [_dims(buf.shape, attr_path(path, "shape"), d)]
    if not (dtype_optional and buf.dtype == "float32"):
        args.append(LiteralDoc(buf.dtype))
    keys, values = _buffer_kwargs(buf, d)
    return callee.call(*args, **dict(zip(keys, values)))


@register_printer(Buffer)
def _buffer(buf, path, d):
    doc = d.var_doc(buf)
    if doc is not None:
        return doc
    if d.state.get("func_decls") is not None:
        # A buffer used but not defined here: declare it (``A = T.Buffer((16,), "int32")``;
        # TVM 0.27 leaves out ``"float32"`` here).
        decl = _buffer_decl(buf, None, d, _t(d, "Buffer"))
        local = None
        if d.is_defined(buf.data):
            # Aliasing another buffer's memory (a flattened parameter): TVM 0.27 prints no
            # ``data=`` and so loses the alias; we print it so the text parses back the same.
            decl.kwargs_keys.insert(0, "data")
            decl.kwargs_values.insert(0, d.as_doc(buf.data, None))
            head = d.state.get("head_defined")
            if head is not None and id(buf.data) not in head:
                # The memory is allocated in the body: declare the alias just before the
                # statement that first uses it, where its data pointer exists.
                local = d.state.get("local_decls")
        if local is not None:
            doc = d.define(buf, buf.name)
            local.append(AssignDoc(doc, decl))
            return doc
        doc = d.declare(buf, buf.name, lambda name: AssignDoc(IdDoc(name), decl))
        if not d.is_defined(buf.data):
            d.var_names[id(buf.data)] = f"{doc.name}.data"
        return doc
    return IdDoc(buf.name)


def _is_scalar_buffer(buf) -> bool:
    """A one-element ``"local"`` buffer without other options: TVM 0.27 prints it as a
    scalar (``x: T.int32 = v``, reads ``x``, stores ``x = v``) outside s_tir functions."""
    return (len(buf.shape) == 1 and isinstance(buf.shape[0], tirx.IntImm)
            and buf.shape[0].value == 1 and buf.scope() == "local" and not buf.strides
            and (buf.elem_offset is None or _is_zero(buf.elem_offset))
            and buf.data_alignment == 64 and buf.offset_factor == 1 and buf.buffer_type != 2
            and not buf.axis_separators and _kernel.is_default_layout(buf))


def _scalar_access(node, d) -> bool:
    return (id(node.buffer) in d.state.get("scalar_buffers", ()) and len(node.indices) == 1
            and _is_zero(node.indices[0]))


@register_printer(_stmt.BufferLoad)
def _buffer_load(node, path, d):
    buf = d.as_doc(node.buffer, attr_path(path, "buffer"))
    if _scalar_access(node, d):
        return buf
    indices = [d.as_doc(i, item_path(attr_path(path, "indices"), k))
               for k, i in enumerate(node.indices)]
    if node.predicate is not None:
        # A predicated (masked) vector load: ``A.vload([T.Ramp(0, 1, 4)], predicate=mask)``.
        pred = d.as_doc(node.predicate, attr_path(path, "predicate"))
        return buf.attr("vload").call(ListDoc(indices), predicate=pred)
    return IndexDoc(buf, indices)


def _region_doc(buf, region, path, d):
    indices = []
    for k, rng in enumerate(region):
        rng_path = item_path(attr_path(path, "region"), k)
        begin = d.as_doc(rng.min, attr_path(rng_path, "min"))
        if isinstance(rng.extent, tirx.IntImm) and rng.extent.value == 1:
            indices.append(begin)
        else:
            end = d.as_doc(_add(rng.min, rng.extent), None)
            indices.append(SliceDoc(begin, end))
    return IndexDoc(d.as_doc(buf, attr_path(path, "buffer")), indices)


def _add(a, b):
    if isinstance(a, tirx.IntImm) and isinstance(b, tirx.IntImm):
        return tirx.IntImm(a.dtype, a.value + b.value)
    if _is_zero(a):
        return b
    return a + b


@register_printer(_stmt.BufferRegion)
def _buffer_region(node, path, d):
    return _region_doc(node.buffer, node.region, path, d)


# --- statements -----------------------------------------------------------------------------


def _stmts(stmt, path, d, whole=True) -> list:
    """The statement docs of a body (a ``SeqStmt`` is flattened); ``whole``: ``stmt`` is the
    whole body of its parent, not an element of a sequence."""
    if isinstance(stmt, _stmt.SeqStmt):
        out = []
        seq_path = attr_path(path, "seq")
        skip = False
        for i, item in enumerate(stmt.seq):
            if skip:
                skip = False
                continue
            nxt = stmt.seq[i + 1] if i + 1 < len(stmt.seq) else None
            if (isinstance(item, _stmt.AllocBuffer) and isinstance(nxt, _stmt.BufferStore)
                    and nxt.buffer is item.buffer and _scalar_sugar(item.buffer, d)
                    and not item.annotations and not _reads_buffer(nxt.value, item.buffer)):
                # ``x: T.int32 = v``: a scalar buffer and its first store, as TVM 0.27.
                decl = d.as_doc(item, item_path(seq_path, i))
                store = d.as_doc(nxt, item_path(seq_path, i + 1))
                skip = True
                if isinstance(store.lhs, IdDoc):
                    out.append(AssignDoc(decl.lhs, store.rhs, decl.annotation))
                else:
                    out.extend([decl, store])
                continue
            out.extend(_stmts(item, item_path(seq_path, i), d, whole=False))
        return out
    outer = d.state.get("local_decls")
    local = d.state["local_decls"] = []  # buffer aliases first used by this statement
    try:
        doc = d.as_doc(stmt, path)
    finally:
        d.state["local_decls"] = outer
    if whole and isinstance(doc, ScopeDoc) and _kernel.flat_attr(stmt):
        # ``T.attr({...})``/``T.hint(...)`` as the whole body: flat, as TVM 0.27 prints it.
        return local + _kernel.flat_docs(doc)
    if isinstance(doc, StmtBlockDoc):
        return local + doc.stmts
    return [*local, doc]


def _reads_buffer(expr, buf) -> bool:
    """Whether ``expr`` loads from ``buf`` (then ``x: T.int32 = <expr>`` would read ``x``
    before it exists, so the declaration and the store print apart, as in 0.27)."""
    from ...ffi.node import walk  # local: only scalar declarations need the walk

    return any(isinstance(n, _stmt.BufferLoad) and n.buffer is buf for n in walk(expr))


@register_printer(_stmt.SeqStmt)
def _seq_stmt(node, path, d):
    return StmtBlockDoc(_stmts(node, path, d))


def _store_index_doc(index, path, d):
    """A store index; a constant-stride ``Ramp`` prints as TVM 0.27's slice ``i:i + 4``
    (``i:i + 8:2`` for stride 2)."""
    if isinstance(index, tirx.Ramp) and isinstance(index.stride, tirx.IntImm):
        lanes = index.lanes.value if isinstance(index.lanes, tirx.IntImm) else index.lanes
        if isinstance(lanes, int) and index.stride.value > 0:
            stride = index.stride.value
            base = d.as_doc(index.base, attr_path(path, "base"))
            stop = d.as_doc(_add(index.base, tirx.IntImm(index.base.dtype, stride * lanes)),
                            None)
            step = None if stride == 1 else d.as_doc(index.stride, attr_path(path, "stride"))
            return SliceDoc(base, stop, step)
    return d.as_doc(index, path)


@register_printer(_stmt.BufferStore)
def _buffer_store(node, path, d):
    buf = d.as_doc(node.buffer, attr_path(path, "buffer"))
    indices = [_store_index_doc(i, item_path(attr_path(path, "indices"), k), d)
               for k, i in enumerate(node.indices)]
    value = d.as_doc(node.value, attr_path(path, "value"))
    if node.predicate is not None:
        # A predicated (masked) vector store: ``B.vstore([T.Ramp(0, 1, 4)], v, predicate=m)``.
        indices = [d.as_doc(i, item_path(attr_path(path, "indices"), k))
                   for k, i in enumerate(node.indices)]
        pred = d.as_doc(node.predicate, attr_path(path, "predicate"))
        return ExprStmtDoc(buf.attr("vstore").call(ListDoc(indices), value, predicate=pred))
    if _scalar_access(node, d):
        return AssignDoc(buf, value)
    return AssignDoc(IndexDoc(buf, indices), value)


@register_printer(_stmt.Evaluate)
def _evaluate(node, path, d):
    value = d.as_doc(node.value, attr_path(path, "value"))
    if isinstance(node.value, tirx.Call):
        return ExprStmtDoc(value)
    return ExprStmtDoc(_t(d, "evaluate").call(value))


@register_printer(_stmt.Bind)
def _bind(node, path, d):
    value = d.as_doc(node.value, attr_path(path, "value"))
    var = d.define(node.var, node.var.name)
    # TVM 0.27: ``x: T.let[T.int32] = v``; a bare ``x: T.int32 = v`` means a local buffer there.
    ty = getattr(node.var, "type_annotation", None)
    if is_tensormap_pointer(ty):
        ann = IndexDoc(_t(d, "let"), [_t(d, "TensorMap").call()])
    elif ty is not None and hasattr(ty, "storage_scope"):
        # A pointer: ``T.let[T.handle("uint32", "shared")]`` (0.27's form).
        scope = ty.storage_scope or "global"
        elem = LiteralDoc(getattr(ty.element_type, "dtype", "void"))
        ann = IndexDoc(_t(d, "let"), [_t(d, "handle").call(elem, LiteralDoc(scope))])
    else:
        ann = IndexDoc(_t(d, "let"), [_t(d, node.var.dtype)])
    return AssignDoc(var, value, ann)


@register_printer(_stmt.IfThenElse)
def _if(node, path, d):
    cond = d.as_doc(node.condition, attr_path(path, "condition"))
    then = _stmts(node.then_case, attr_path(path, "then_case"), d)
    other = []
    if node.else_case is not None:
        other = _stmts(node.else_case, attr_path(path, "else_case"), d)
    return IfDoc(cond, then, other)


@register_printer(_stmt.While)
def _while(node, path, d):
    cond = d.as_doc(node.condition, attr_path(path, "condition"))
    return WhileDoc(cond, _stmts(node.body, attr_path(path, "body"), d))


_LAUNCH_KEYS = ("thread_extent",)


@register_printer(_stmt.AttrStmt)
def _attr_stmt(node, path, d):
    target = node.node
    body_path = attr_path(path, "body")
    if isinstance(target, _stmt.IterVar) and node.attr_key in _LAUNCH_KEYS:
        return _launch_thread(node, path, d)
    if node.attr_key == _kernel.HINT_KEY and isinstance(target, dict):
        return ScopeDoc(None, _kernel.hint_call(target, d), _stmts(node.body, body_path, d))
    value = d.as_doc(node.value, attr_path(path, "value"))
    if isinstance(target, tirx.IntImm) and target.value == 0:
        # An attribute about no node prints as TVM 0.27 does: ``T.attr({"key": value})``.
        from .doc import DictDoc  # local: only this form prints a dict

        rhs = _t(d, "attr").call(DictDoc.from_lists([LiteralDoc(node.attr_key)], [value]))
        return ScopeDoc(None, rhs, _stmts(node.body, body_path, d))
    if isinstance(target, tirx.IntImm) and not d.state.get("in_relax"):
        target_doc = LiteralDoc(int(target.value))
    else:
        target_doc = d.as_doc(target, attr_path(path, "node"))
    rhs = _t(d, "attr").call(target_doc, LiteralDoc(node.attr_key), value)
    return ScopeDoc(None, rhs, _stmts(node.body, body_path, d))


def _launch_thread(node, path, d):
    """``tx = T.launch_thread("threadIdx.x", 256)`` and the body after it, unindented."""
    iter_var = node.node
    extent = d.as_doc(node.value, attr_path(path, "value"))
    var = iter_var.var
    if d.is_defined(var):
        # A thread launched again (``T.env_thread`` reused): launch it by name.
        first = ExprStmtDoc(_t(d, "launch_thread").call(d.as_doc(var, None), extent))
    else:
        rhs = _t(d, "launch_thread").call(LiteralDoc(iter_var.thread_tag), extent)
        first = AssignDoc(d.define(var, var.name or "t"), rhs)
    return StmtBlockDoc([first] + _stmts(node.body, attr_path(path, "body"), d))


@register_printer(_stmt.AssertStmt)
def _assert(node, path, d):
    cond = d.as_doc(node.condition, attr_path(path, "condition"))
    parts = [d.as_doc(p, None) if not isinstance(p, str) else LiteralDoc(p)
             for p in node.message_parts]
    kind = node.error_kind
    kind_doc = LiteralDoc(kind if isinstance(kind, str) else getattr(kind, "value", str(kind)))
    return AssertDoc(cond, TupleDoc([kind_doc, ListDoc(parts)]))


def _scalar_sugar(buf, d) -> bool:
    return d.state.get("scalar_sugar", False) and _is_scalar_buffer(buf)


@register_printer(_stmt.AllocBuffer)
def _alloc_buffer(node, path, d):
    buf = node.buffer
    if _scalar_sugar(buf, d) and not node.annotations:
        # ``x: T.int32``; its loads print ``x`` and its stores ``x = v``.
        d.state.setdefault("scalar_buffers", set()).add(id(buf))
        return AssignDoc(_define_buffer(buf, d), None, _t(d, buf.dtype))
    scope = buf.scope()
    if scope in ("local", "shared"):
        # ``T.alloc_local((1,), "float16", align=16)``: the other keywords follow, as in TVM.
        keys, values = _buffer_kwargs(buf, d)
        rhs = _t(d, f"alloc_{scope}").call(
            *([_dims(buf.shape, None, d)] + ([] if buf.dtype == "float32"
                                             else [LiteralDoc(buf.dtype)])),
            **{k: v for k, v in zip(keys, values) if k != "scope"},
        )
    else:
        rhs = _buffer_decl(buf, attr_path(path, "buffer"), d, _t(d, "alloc_buffer"))
    return AssignDoc(_define_buffer(buf, d), rhs)


@register_printer(_stmt.DeclBuffer)
def _decl_buffer(node, path, d):
    buf = node.buffer
    data = node.data if node.data is not None else buf.data
    parent = _kernel.view_parent(buf, data, d)
    if parent is not None:
        # A view of another buffer's memory: ``D = A.view(16)``, ``B.local()``...
        rhs = _kernel.view_sugar(buf, parent, d)
        if rhs is not None:
            return AssignDoc(_define_buffer(buf, d), rhs)
    # As TVM 0.27: ``T.decl_buffer((8,), data=A.data, elem_offset=8)`` (no "float32"; data
    # first, named after the buffer it is a view of).
    rhs = _buffer_decl(buf, attr_path(path, "buffer"), d, _t(d, "decl_buffer"))
    declarable = isinstance(data, tirx.Var) and d.state.get("func_decls") is not None
    if node.data is not None and (d.is_defined(data) or declarable):
        # A data pointer defined nowhere else is declared first, as TVM 0.27 prints it:
        # ``data_ptr = T.handle("float32", "global")`` then ``T.decl_buffer(..., data=data_ptr)``.
        rhs.kwargs_keys.insert(0, "data")
        rhs.kwargs_values.insert(0, d.as_doc(parent, None).attr("data") if parent is not None
                                 and parent.data is data else d.as_doc(data, None))
    return AssignDoc(_define_buffer(buf, d), rhs)


@register_printer(getattr(_stmt, "Return", None))
def _return(node, path, d):
    return ReturnDoc(d.as_doc(node.value, attr_path(path, "value")))


@register_printer(getattr(_stmt, "Break", None))
def _break(node, path, d):
    return ExprStmtDoc(_t(d, "break_loop").call())  # TVM 0.27's form of ``break``


@register_printer(getattr(_stmt, "Continue", None))
def _continue(node, path, d):
    return ExprStmtDoc(_t(d, "continue_loop").call())


# --- loops ----------------------------------------------------------------------------------

_KIND_NAME = {
    _ForKind.PARALLEL: "parallel",
    _ForKind.VECTORIZED: "vectorized",
    _ForKind.UNROLLED: "unroll",
}


def _is_plain_loop(loop) -> bool:
    return (loop.kind == _ForKind.SERIAL and _is_zero(loop.min) and not loop.annotations
            and loop.thread_binding is None and loop.step is None)


@register_printer(_stmt.For)
def _for(loop, path, d):
    # Loop variables are scoped: a sibling loop may reuse the name (``for i`` twice).
    d.push_frame()
    try:
        return _for_doc(loop, path, d)
    finally:
        d.pop_frame()


def _for_doc(loop, path, d):
    # Directly nested plain loops merge into ``T.grid`` when no extent uses an outer var.
    chain, paths = [loop], [path]
    while _is_plain_loop(chain[-1]) and isinstance(chain[-1].body, _stmt.For):
        inner = chain[-1].body
        if not _is_plain_loop(inner) or _uses_any(inner.extent, chain):
            break
        paths.append(attr_path(paths[-1], "body"))
        chain.append(inner)
    # Block printing groups T.axis.remap by the ranges of the enclosing loops (_block_body).
    d.__dict__.setdefault("tir_loops", {}).update((id(lp.loop_var), lp) for lp in chain)
    if len(chain) > 1:
        extents = [d.as_doc(lp.extent, attr_path(p, "extent")) for lp, p in zip(chain, paths)]
        names = [d.define(lp.loop_var, lp.loop_var.name) for lp in chain]
        body = _stmts(chain[-1].body, attr_path(paths[-1], "body"), d)
        return ForDoc(TupleDoc(names), _t(d, "grid").call(*extents), body)

    min_doc = d.as_doc(loop.min, attr_path(path, "min"))
    end = _add(loop.min, loop.extent)
    end_doc = d.as_doc(end, attr_path(path, "extent") if end is loop.extent else None)
    # As 0.27: a loop with a step always shows its start (``range(0, 128, 2)``).
    args = [end_doc] if _is_zero(loop.min) and loop.step is None else [min_doc, end_doc]
    keys, values = [], []
    unroll = _unroll_kwarg(loop)
    if (loop.step is not None and loop.kind == _ForKind.SERIAL and not loop.annotations):
        var = d.define(loop.loop_var, loop.loop_var.name)
        step = d.as_doc(loop.step, attr_path(path, "step"))
        return ForDoc(var, IdDoc("range").call(*args, step),
                      _stmts(loop.body, attr_path(path, "body"), d))
    if loop.annotations and unroll is None:
        keys.append("annotations")
        values.append(attr_value_doc(dict(loop.annotations), attr_path(path, "annotations"), d))
    if loop.step is not None:
        keys.append("step")
        values.append(d.as_doc(loop.step, attr_path(path, "step")))
    if unroll is not None:
        keys.append("unroll")
        values.append(LiteralDoc(unroll))
    if loop.kind == _ForKind.THREAD_BINDING:
        keys.append("thread")
        values.append(LiteralDoc(loop.thread_binding.thread_tag))
        rhs = _t(d, "thread_binding").call(*args, **dict(zip(keys, values)))
    elif loop.kind in _KIND_NAME:
        rhs = _t(d, _KIND_NAME[loop.kind]).call(*args, **dict(zip(keys, values)))
    elif keys:
        rhs = _t(d, "serial").call(*args, **dict(zip(keys, values)))
    else:
        rhs = IdDoc("range").call(*args)
    var = d.define(loop.loop_var, loop.loop_var.name)
    return ForDoc(var, rhs, _stmts(loop.body, attr_path(path, "body"), d))


def _unroll_kwarg(loop):
    """``T.serial(n, unroll=...)`` (0.27's form) when the loop's only annotation is an unroll
    request: ``disable_unroll`` -> False, ``pragma_unroll`` -> its value; else None."""
    ann = dict(loop.annotations or {})
    if loop.kind != _ForKind.SERIAL or len(ann) != 1:
        return None
    (key, value), = ann.items()
    value = getattr(value, "value", value)
    if key == "disable_unroll" and value is True:
        return False
    if key == "pragma_unroll" and isinstance(value, (bool, int)):
        return value
    return None


def _uses_any(expr, loops) -> bool:
    from ...ffi.node import walk  # local: only needed for grid merging

    targets = {id(lp.loop_var) for lp in loops}
    return any(id(node) in targets for node in walk(expr))


# --- SBlocks --------------------------------------------------------------------------------

_AXIS_KIND = {0: ("spatial", "S"), 2: ("reduce", "R"), 3: ("scan", None), 4: ("opaque", None)}


def _block_body(block, path, d, realize=None, realize_path=None, lone=False) -> list:
    """The statements inside ``with T.sblock(...)`` (or after the root-block comment).

    ``lone``: a block printed without its realize (``no_realize=True``): its iteration
    variables print without bound values (``vi = T.axis.spatial(128)``), then its regions.
    """
    stmts = []
    iter_vars = block.iter_vars
    if lone:
        for i, iv in enumerate(iter_vars):
            kind = _AXIS_KIND.get(iv.iter_type, ("opaque", None))[0]
            dom = iv.dom
            if _is_zero(dom.min):
                dom_doc = d.as_doc(dom.extent, None)
            else:
                dom_doc = TupleDoc([d.as_doc(dom.min, None),
                                    d.as_doc(_add(dom.min, dom.extent), None)])
            kwargs = {} if iv.var.dtype == "int32" else {"dtype": LiteralDoc(iv.var.dtype)}
            name = d.define(iv.var, iv.var.name)
            stmts.append(AssignDoc(name, _t(d, "axis", kind).call(dom_doc, **kwargs)))
    if realize is not None and iter_vars:
        values = realize.iter_values
        kinds = [_AXIS_KIND.get(iv.iter_type, ("opaque", None)) for iv in iter_vars]
        # As in TVM: each run of >= 2 consecutive iter vars bound to a loop var whose loop has
        # the iter var's range prints as one T.axis.remap; the others print one per line.
        loops = getattr(d, "tir_loops", {})

        def remappable(i):
            lp = loops.get(id(values[i])) if isinstance(values[i], tirx.Var) else None
            return (lp is not None and kinds[i][1] is not None
                    and _same_const(lp.min, iter_vars[i].dom.min)
                    and _same_const(lp.extent, iter_vars[i].dom.extent))

        runs, i = [], 0
        while i < len(iter_vars):
            j = i
            while j < len(iter_vars) and remappable(j):
                j += 1
            runs.append((i, max(j, i + 1), j - i >= 2))
            i = max(j, i + 1)
        for start, stop, remap in runs:
            if remap:
                bound = [d.as_doc(values[k], item_path(attr_path(realize_path, "iter_values"),
                                                       k)) for k in range(start, stop)]
                names = [d.define(iter_vars[k].var, iter_vars[k].var.name)
                         for k in range(start, stop)]
                letters = "".join(kinds[k][1] for k in range(start, stop))
                rhs = _t(d, "axis", "remap").call(LiteralDoc(letters), ListDoc(bound))
                stmts.append(AssignDoc(TupleDoc(names), rhs))
                continue
            for i in range(start, stop):
                iv, value = iter_vars[i], values[i]
                dom = iv.dom
                if _is_zero(dom.min):
                    dom_doc = d.as_doc(dom.extent, None)
                else:
                    dom_doc = TupleDoc([d.as_doc(dom.min, None),
                                        d.as_doc(_add(dom.min, dom.extent), None)])
                value_doc = d.as_doc(value, item_path(attr_path(realize_path, "iter_values"), i))
                name = d.define(iv.var, iv.var.name)
                kwargs = {} if iv.var.dtype == "int32" else {"dtype": LiteralDoc(iv.var.dtype)}
                rhs = _t(d, "axis", kinds[i][0]).call(dom_doc, value_doc, **kwargs)
                stmts.append(AssignDoc(name, rhs))
    if realize is not None or lone:
        pred = realize.predicate if realize is not None else None
        if pred is not None and not (isinstance(pred, tirx.IntImm) and pred.value == 1):
            stmts.append(ExprStmtDoc(_t(d, "where").call(
                d.as_doc(pred, attr_path(realize_path, "predicate")))))
        reads = [d.as_doc(r, item_path(attr_path(path, "reads"), i))
                 for i, r in enumerate(block.reads)]
        writes = [d.as_doc(w, item_path(attr_path(path, "writes"), i))
                  for i, w in enumerate(block.writes)]
        stmts.append(ExprStmtDoc(_t(d, "reads").call(*reads)))
        stmts.append(ExprStmtDoc(_t(d, "writes").call(*writes)))
    if block.annotations:
        annotations = attr_value_doc(dict(block.annotations), attr_path(path, "annotations"), d)
        stmts.append(ExprStmtDoc(_t(d, "sblock_attr").call(annotations)))
    for i, buf in enumerate(block.alloc_buffers):
        buf_path = item_path(attr_path(path, "alloc_buffers"), i)
        rhs = _buffer_decl(buf, buf_path, d, _t(d, "sblock_alloc_buffer"))
        stmts.append(AssignDoc(_define_buffer(buf, d), rhs))
    for i, match in enumerate(block.match_buffers):
        m_path = item_path(attr_path(path, "match_buffers"), i)
        source = d.as_doc(match.source, attr_path(m_path, "source"))
        buf = match.buffer
        args = [source, _dims(buf.shape, None, d)]
        if buf.dtype != "float32":
            args.append(LiteralDoc(buf.dtype))
        keys, values = _buffer_kwargs(buf, d)
        rhs = _t(d, "match_buffer").call(*args, **dict(zip(keys, values)))
        stmts.append(AssignDoc(_define_buffer(buf, d), rhs))
    if block.init is not None:
        init = _stmts(block.init, attr_path(path, "init"), d)
        stmts.append(ScopeDoc(None, _t(d, "init").call(), init))
    stmts.extend(_stmts(block.body, attr_path(path, "body"), d))
    return stmts


@register_printer(_stmt.SBlockRealize)
def _sblock_realize(node, path, d):
    block = node.block
    block_path = attr_path(path, "block")
    d.push_frame()  # iteration variables and block buffers are scoped to the block
    try:
        body = _block_body(block, block_path, d, node, path)
    finally:
        d.pop_frame()
    return ScopeDoc(None, _t(d, "sblock").call(LiteralDoc(block.name_hint)), body)


@register_printer(_stmt.SBlock)
def _sblock(block, path, d):
    # A block printed alone (no realize around it), as TVM 0.27 prints it.
    d.push_frame()
    try:
        body = _block_body(block, path, d, lone=True)
    finally:
        d.pop_frame()
    head = _t(d, "sblock").call(LiteralDoc(block.name_hint), no_realize=LiteralDoc(True))
    return ScopeDoc(None, head, body)


# --- PrimFunc -------------------------------------------------------------------------------


def _is_root_realize(stmt) -> bool:
    return (isinstance(stmt, _stmt.SBlockRealize) and not stmt.block.iter_vars
            and stmt.block.name_hint == "root")


def _handles_used_in_body(func) -> set[int]:
    """The ids of the handle parameters in ``func.buffer_map`` that its body uses itself."""
    handles = {id(p) for p in func.param_vars if func.buffer_map.get(p) is not None}
    if not handles:
        return set()
    used: set[int] = set()

    def visit(node):
        if id(node) in handles:
            used.add(id(node))

    post_order_visit(func.body, visit)
    return used


def _is_true(value) -> bool:
    """A ``True`` attribute value (Python ``True`` or ``T.bool(True)``); other values (``1``,
    ``False``) stay in ``T.func_attr`` so that the text parses back to the same attribute."""
    if isinstance(value, bool):
        return value
    return isinstance(value, tirx.IntImm) and value.dtype == "bool" and value.value == 1


@register_printer(PrimFunc)
def _prim_func(func, path, d):
    name = d.state.pop("func_name", None)
    attrs = dict(func.attrs.values) if func.attrs is not None else {}
    symbol = attrs.get("global_symbol")
    if name is None:
        name = d.cfg.name or symbol or "main"
    saved = {
        key: d.state.get(key)
        for key in ("in_relax", "func_decls", "decl_frame", "later_params", "scalar_sugar",
                    "head_defined", "local_decls")
    }
    d.state["in_relax"] = False
    # TVM 0.27 prints one-element local buffers as scalars outside s_tir functions only.
    d.state["scalar_sugar"] = not (attrs.get("s_tir", False) or _is_root_realize(func.body))
    # A scalar parameter used in an earlier parameter's buffer shape prints there as a string
    # (``A: T.Buffer(("n",), ...), n: T.int64``), as in TVM 0.27; see ``tirx_printer._var``.
    d.state["later_params"] = {
        id(p): p for p in func.param_vars if func.buffer_map.get(p) is None
    }
    d.push_frame()
    decls = d.open_declarations()
    try:
        args = []
        matches = []  # ``B = T.match_buffer(B_handle, ...)`` of handles the body also uses
        param_ids = {id(p) for p in func.param_vars}
        used_handles = _handles_used_in_body(func)
        for i, param in enumerate(func.param_vars):
            buf = func.buffer_map.get(param)
            if buf is None:
                for key, value in func.buffer_map.items():
                    if key is param:
                        buf = value
            if buf is not None and id(param) not in used_handles:
                ann = _buffer_decl(buf, None, d, _t(d, "Buffer"), dtype_optional=False,
                                   params=param_ids)
                args.append(AssignDoc(_define_buffer(buf, d), None, ann))
            elif buf is not None:
                # The body uses the handle itself (``T.call_packed(..., A_ptr)``): the
                # parameter stays a handle, matched in the body, so that the text parses back.
                d.state["later_params"].pop(id(param), None)
                args.append(AssignDoc(d.define(param, param.name), None, _t(d, "handle")))
                matches.append((param, buf))
            else:
                d.state["later_params"].pop(id(param), None)
                var = d.var_doc(param) or d.define(param, param.name)
                ty = getattr(param, "type_annotation", None)
                if isinstance(ty, PointerType):
                    # ``T.TensorMap()``, ``T.handle``, ``T.handle("float32", "global")``,
                    # ``T.handle(storage_scope="shared")``: as 0.27 prints parameter types.
                    args.append(AssignDoc(var, None, d.as_doc(ty, None)))
                else:
                    args.append(AssignDoc(var, None, _t(d, param.dtype)))
        ret = None
        if func.ret_type is not None:
            ret = d.as_doc(func.ret_type, None)
        s_tir = bool(attrs.pop("s_tir", False)) or _is_root_realize(func.body)
        # ``@T.prim_func(persistent=True)`` sets this attribute; it prints in the decorator.
        persistent = _is_true(attrs.get("tirx.persistent_kernel"))
        if persistent:
            attrs.pop("tirx.persistent_kernel")
        if symbol is not None and symbol == name:
            attrs.pop("global_symbol")
        body = []
        if attrs:
            body.append(ExprStmtDoc(_t(d, "func_attr").call(attr_value_doc(attrs, None, d))))
        for param, buf in matches:
            rhs = _buffer_decl(buf, None, d, _t(d, "match_buffer"), dtype_optional=True)
            rhs.args.insert(0, d.as_doc(param, None))
            body.append(AssignDoc(_define_buffer(buf, d), rhs))
        body_path = attr_path(path, "body")
        # Variables known before the body (parameters and their buffers' data): a buffer
        # aliasing other memory is declared at the top; see ``_buffer``.
        d.state["head_defined"] = set(d.var_names)
        if _is_root_realize(func.body):
            block = func.body.block
            body.append(CommentDoc('with T.sblock("root"):'))
            body.extend(_block_body(block, attr_path(body_path, "block"), d))
        else:
            body.extend(_stmts(func.body, body_path, d))
        # TVM 0.27 declares symbolic variables (``n = T.int32()``) before ``T.func_attr``.
        body[0:0] = decls
    finally:
        d.pop_frame()
        d.state.update(saved)
    keys, values = [], []
    # TVM 0.27 writes ``@T.prim_func(private=True, s_tir=True)``: private first.
    if symbol is None and not d.state.get("nested"):
        keys.append("private")
        values.append(LiteralDoc(True))
    if s_tir:
        keys.append("s_tir")
        values.append(LiteralDoc(True))
    if persistent:
        keys.append("persistent")
        values.append(LiteralDoc(True))
    decorator = _t(d, "prim_func")
    if keys:
        decorator = decorator.call(**dict(zip(keys, values)))
    return FunctionDoc(IdDoc(name), args, [decorator], ret, body)


@register_printer(Range)
def _range(rng, path, d):
    return IdDoc("range").call(d.as_doc(rng.min, attr_path(path, "min")),
                               d.as_doc(_add(rng.min, rng.extent), None))



_ITER_TYPE_NAMES = ("DataPar", "ThreadIndex", "CommReduce", "Ordered", "Opaque", "Unrolled",
                    "Vectorized", "Parallelized", "Tensorized")


@register_printer(_stmt.IterVar)
def _iter_var(node, path, d):
    """``T.iter_var(a, T.Range(0, 8), "DataPar", "")`` (TVM 0.27's form of a lone IterVar).

    Only a lone IterVar prints this way (loops and blocks print their own forms); the parser
    does not read ``T.iter_var`` back yet."""
    var = d.as_doc(node.var, attr_path(path, "var"))
    if node.dom is None:
        dom = LiteralDoc(None)
    else:
        dom_path = attr_path(path, "dom")
        dom = _t(d, "Range").call(d.as_doc(node.dom.min, attr_path(dom_path, "min")),
                                  d.as_doc(_add(node.dom.min, node.dom.extent), None))
    kind = int(node.iter_type)
    kind_name = _ITER_TYPE_NAMES[kind] if 0 <= kind < len(_ITER_TYPE_NAMES) else str(kind)
    return _t(d, "iter_var").call(var, dom, LiteralDoc(kind_name),
                                  LiteralDoc(node.thread_tag or ""))
