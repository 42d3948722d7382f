"""Layout primitives: ``transform_layout`` (a buffer's layout) and ``transform_block_layout``
(a block's iteration space), both driven by a :class:`~tvm.tirx.IndexMap`.

``transform_layout(block, buffer, index_map)`` gives the buffer the shape
``index_map.map_shape(shape)`` and rewrites every access ``B[idx]`` of the function into
``B[index_map(idx)]`` (simplified with the loop and block-iterator ranges in scope); block
read/write regions of the buffer are re-inferred from the rewritten bodies.

When the map pads the buffer (``lambda i: (i // 4, i % 4)`` on 14 elements), ``pad_value`` is
required (unless ``assume_injective_transform=True``) and is placed as TVM does:

* the buffer is only read (a function input): a prologue of ``T.assume`` statements says the
  padding holds ``pad_value``;
* a producer writes the buffer in a serial, row-major loop nest over its whole shape, with no
  other store inside: the nest is rewritten to walk the new shape, storing
  ``T.if_then_else(padding, pad_value, value)``;
* otherwise a block writing ``pad_value`` into the padding (``T.where(padding)``) is inserted
  right after the last producer.

The padding predicate of a split dimension is ``outer == q and r <= inner`` (the form TVM
produces); other dimensions use ``inverse_index >= extent``. Maps are inverted by
:meth:`IndexMap.non_surjective_inverse` (splits, fusions, permutations); a padded map it cannot
invert raises a ``ScheduleError``.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ffi.structural import structural_equal
from ...ir.expr import PrimExpr, Range
from ...tirx.buffer import Buffer
from ...tirx.expr import (
    EQ,
    GE,
    LE,
    Add,
    And,
    Cast,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Mul,
    Not,
    Or,
    Var,
)
from ...tirx.expr_functor import post_order_visit
from ...tirx.function import BufferMap
from ...tirx.generic import const
from ...tirx.index_map import IndexMap
from ...tirx.op import assume, if_then_else
from ...tirx.stmt import (
    Bind,
    BufferLoad,
    BufferRegion,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IterVar,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ...tirx.stmt_functor import StmtExprMutator, substitute
from ..access_region import infer_sblock_regions
from .base import SBlockRV
from .state import children, const_int, find_path, replace_stmts

__all__ = ["LayoutPrimitives"]


# --- index maps -----------------------------------------------------------------------------
def _block_index_dtype(blk):
    """The index dtype TVM uses for maps given as functions: the block's first iterator's."""
    for iv in blk.iter_vars:
        return iv.var.dtype
    for region in list(blk.reads) + list(blk.writes):
        for r in region.region:
            return r.min.dtype
    return "int64"


class _Retype(StmtExprMutator):
    """Integer constants and casts of one index dtype moved to another (map legalization)."""

    def __init__(self, vmap, old, new):
        self.vmap, self.old, self.new = vmap, old, new

    def visit_var_(self, op):
        return self.vmap.get(op, op)

    def visit_int_imm_(self, op):
        return IntImm(self.new, op.value) if op.dtype == self.old else op


def _legalize(imap, dtype):
    """``imap`` with index variables (and their integer constants) of ``dtype``."""
    old = imap.initial_indices[0].dtype if imap.initial_indices else dtype
    if old == dtype:
        return imap
    vmap = {v: Var(v.name, dtype) for v in imap.initial_indices}
    retype = _Retype(vmap, old, dtype)
    finals = []
    for f in imap.final_indices:
        f = retype.visit_expr(f)
        finals.append(f if f.dtype == dtype or "int" not in f.dtype else Cast(dtype, f))
    return IndexMap([vmap[v] for v in imap.initial_indices], finals)


def _as_index_map(fn, ndim, dtype, what):
    if isinstance(fn, IndexMap):
        return _legalize(fn, dtype)
    if callable(fn):
        return IndexMap.from_func(fn, ndim=ndim, index_dtype=dtype)
    raise TypeError(f"{what}: expected an IndexMap or a callable, got {type(fn).__name__}")


def _pad_value_map(pad_value, buf, ndim, dtype, prim):
    """``pad_value`` as a one-output IndexMap over the transformed indices (or ``None``)."""
    if pad_value is None or isinstance(pad_value, IndexMap):
        return pad_value
    if callable(pad_value):
        return IndexMap.from_func(pad_value, ndim=ndim, index_dtype=dtype)
    if isinstance(pad_value, bool):
        value = IntImm("bool", int(pad_value))
    elif isinstance(pad_value, int):
        kind = buf.dtype.rstrip("0123456789x")
        value = IntImm(buf.dtype if kind in ("int", "uint") else "int32", pad_value)
    elif isinstance(pad_value, float):
        kind = buf.dtype.rstrip("0123456789x")
        value = FloatImm(buf.dtype if kind in ("float", "bfloat") else "float32", pad_value)
    elif isinstance(pad_value, PrimExpr):
        value = pad_value
    else:
        raise TypeError(f"{prim}: pad_value must be a number, a PrimExpr, an IndexMap or a "
                        f"callable, got {type(pad_value).__name__}")
    return IndexMap([Var(f"i{k}", dtype) for k in range(ndim)], [value])


def _padding_predicate(imap, inverse, shape, ana):
    """The condition (on ``inverse``'s inputs) that an index of the new layout is padding."""
    conds = []
    for f, extent in zip(inverse.final_indices, shape):
        extent = extent if isinstance(extent, PrimExpr) else IntImm(f.dtype, extent)
        hi = ana.int_set(f).max_value
        if hi is not None and ana.can_prove(hi < extent):
            continue
        split = _outer_scale(f)
        ext = const_int(extent)
        if split is not None and ext is not None:
            q, r = divmod(ext, split)
            if r == 0:
                conds.append(_at_least(ana.simplify(f), extent))
                continue
            outer = ana.simplify(FloorDiv(f, IntImm(f.dtype, split)))
            inner = ana.simplify(_floormod(f, split))
            conds.append(And(EQ(outer, IntImm(f.dtype, q)), _at_least(inner, IntImm(f.dtype, r))))
        else:
            conds.append(_at_least(ana.simplify(f), extent))
    if not conds:
        return IntImm("bool", 0)
    out = conds[0]
    for c in conds[1:]:
        out = Or(out, c)
    return out


def _at_least(value, bound):
    """``value >= bound`` as TVM's simplifier writes it: ``bound <= v`` for a lone variable."""
    return LE(bound, value) if isinstance(value, Var) else GE(value, bound)


def _floormod(f, c):
    return FloorMod(f, IntImm(f.dtype, c))


def _outer_scale(f):
    """``c`` when ``f`` is ``outer * c + rest`` with a constant ``c > 1`` (a split's inverse)."""
    terms = []

    def flatten(e):
        if isinstance(e, Add):
            flatten(e.a)
            flatten(e.b)
        else:
            terms.append(e)

    flatten(f)
    scales = [const_int(t.b) for t in terms if isinstance(t, Mul) and const_int(t.b) is not None]
    scales = [s for s in scales if s > 1]
    return max(scales) if scales else None


def _loads_other_buffer(expr, buf):
    found = []

    def visit(node):
        if isinstance(node, BufferLoad) and node.buffer is not buf:
            found.append(node.buffer)

    post_order_visit(expr, visit)
    return found


# --- planning (where the pad value goes) ---------------------------------------------------
class _Write:
    __slots__ = ("loops", "realize", "row_major", "store")


def _collect_writes(root, buf):
    """Every store to ``buf`` below ``root``, with its dependent loop nest (TVM's planner)."""
    writes = []
    loops = []            # active loops, outermost first
    depth = {}            # id(var) -> (first, last) loop depth it depends on
    bindings = {}         # var -> value in terms of loop variables

    def dep_range(expr):
        rng = None

        def visit(node):
            nonlocal rng
            if isinstance(node, Var) and id(node) in depth:
                d = depth[id(node)]
                rng = d if rng is None else (min(rng[0], d[0]), max(rng[1], d[1]))

        post_order_visit(expr, visit)
        return rng

    def bind(var, value):
        d = dep_range(value)
        if d is not None:
            depth[id(var)] = d
            bindings[var] = substitute(value, bindings)

    def walk(stmt, realize):
        if isinstance(stmt, For):
            depth[id(stmt.loop_var)] = (len(loops), len(loops))
            loops.append(stmt)
            walk(stmt.body, realize)
            loops.pop()
            return
        if isinstance(stmt, SBlockRealize):
            for iv, value in zip(stmt.block.iter_vars, stmt.iter_values):
                bind(iv.var, value)
            if stmt.block.init is not None:
                walk(stmt.block.init, stmt)
            walk(stmt.block.body, stmt)
            return
        if isinstance(stmt, Bind):
            bind(stmt.var, stmt.value)
        if isinstance(stmt, BufferStore):
            if stmt.buffer is buf:
                writes.append(_make_write(stmt, realize, loops, dep_range, bindings, buf))
            return
        for child in children(stmt):
            walk(child, realize)

    walk(root, None)
    return writes


def _make_write(store, realize, loops, dep_range, bindings, buf):
    w = _Write()
    w.store, w.realize = store, realize
    rng = None
    for index in store.indices:
        d = dep_range(index)
        if d is not None:
            rng = d if rng is None else (min(rng[0], d[0]), max(rng[1], d[1]))
    w.loops = list(loops[rng[0]:rng[1] + 1]) if rng is not None else []
    w.row_major = bool(w.loops) and len(w.loops) == len(buf.shape) == len(store.indices)
    if w.row_major:
        for loop, dim, index in zip(w.loops, buf.shape, store.indices):
            index = substitute(index, bindings)
            if not (index is loop.loop_var and const_int(loop.min) == 0
                    and _same_int(loop.extent, dim) and loop.kind == ForKind.SERIAL):
                w.row_major = False
                break
    return w


def _same_int(a, b):
    ca, cb = const_int(a), const_int(b)
    if ca is not None and cb is not None:
        return ca == cb
    return structural_equal(a, b)


class _StoreReplacer(StmtExprMutator):
    """TVM's replacement plan: the producer's stores become ``if_then_else(padding, pad,
    value)`` at the new indices; the block's iterators over the buffer become iterators over
    the new shape."""

    def __init__(self, write, new_buf, predicate, inverse, pad_map, ana):
        self.write, self.new_buf, self.ana = write, new_buf, ana
        self.new_indices = list(inverse.initial_indices)
        self.predicate, self.pad_map = predicate, pad_map
        self.var_remap = {loop.loop_var: f
                          for loop, f in zip(write.loops, inverse.final_indices)}
        self.all_replaced = True
        self.new_iter_vars = self.new_iter_values = None
        self._define_block_updates(inverse)

    def _define_block_updates(self, inverse):
        realize = self.write.realize
        if realize is None:
            return
        blk = realize.block
        old_idx = list(self.write.store.indices)
        ivs = list(blk.iter_vars)
        self.new_iter_vars, self.new_iter_values = ivs, list(realize.iter_values)
        if not old_idx or len(ivs) < len(old_idx):
            return
        start = 0
        while start < len(ivs) - len(old_idx) and old_idx[0] is not ivs[start].var:
            start += 1
        for k, index in enumerate(old_idx):
            iv = ivs[start + k]
            if index is not iv.var or iv.iter_type != IterVar.DataPar:
                return
        virtual = [Var(f"v_{v.name}", v.dtype) for v in inverse.initial_indices]
        self.new_indices = virtual
        new_ivs, new_vals = ivs[:start], list(realize.iter_values[:start])
        for v, vv, dim in zip(inverse.initial_indices, virtual, self.new_buf.shape):
            new_vals.append(v)
            new_ivs.append(IterVar(Range.from_min_extent(IntImm(dim.dtype, 0), dim), vv,
                                   IterVar.DataPar))
        new_ivs += ivs[start + len(old_idx):]
        new_vals += list(realize.iter_values[start + len(old_idx):])
        to_virtual = dict(zip(inverse.initial_indices, virtual))
        for index, f in zip(old_idx, inverse.final_indices):
            self.var_remap[index] = substitute(f, to_virtual)
        self.predicate = substitute(self.predicate, to_virtual)
        self.new_iter_vars, self.new_iter_values = new_ivs, new_vals

    def visit_var_(self, op):
        return self.var_remap.get(op, op)

    def visit_buffer_store_(self, op):
        old = self.write.store
        if op.buffer is old.buffer and all(
                _deep_equal(a, b) for a, b in zip(old.indices, op.indices)):
            pad = self.pad_map.map_indices(self.new_indices)[0]
            op = BufferStore(self.new_buf, if_then_else(self.predicate, pad, op.value),
                             list(self.new_indices))
        else:
            self.all_replaced = False
        return super().visit_buffer_store_(op)

    def visit_sblock_realize_(self, op):
        new = super().visit_sblock_realize_(op)
        if op is self.write.realize and self.new_iter_vars is not None:
            new = new.replace(iter_values=tuple(self.new_iter_values),
                              block=new.block.replace(iter_vars=tuple(self.new_iter_vars)))
        return new


def _deep_equal(a, b):
    return a is b or structural_equal(a, b, map_free_vars=False)


def _loop_nest(vars_, shape, body):
    for v, extent in reversed(list(zip(vars_, shape))):
        body = For(v, IntImm(v.dtype, 0), extent, ForKind.SERIAL, body)
    return body


def _fill_block(inverse, new_buf, pad_map, predicate, name, assume_only):
    """The prologue (``T.assume``) or epilogue (padding store) nest over the new shape."""
    loop_vars = list(inverse.initial_indices)
    ivs, vmap = [], {}
    for v, dim in zip(loop_vars, new_buf.shape):
        bv = Var(f"v_{v.name}", v.dtype)
        ivs.append(IterVar(Range.from_min_extent(IntImm(dim.dtype, 0), dim), bv,
                           IterVar.DataPar))
        vmap[v] = bv
    idx = [iv.var for iv in ivs]
    pad = pad_map.map_indices(idx)[0]
    point = BufferRegion.from_point(new_buf, idx)
    if assume_only:
        cond = Or(Not(substitute(predicate, vmap)), EQ(BufferLoad(new_buf, idx), pad))
        blk = SBlock(ivs, [point], [], name, Evaluate(assume(cond)))
        realize = SBlockRealize(loop_vars, const(True, "bool"), blk)
    else:
        blk = SBlock(ivs, [], [point], name, BufferStore(new_buf, pad, idx))
        realize = SBlockRealize(loop_vars, predicate, blk)
    return _loop_nest(loop_vars, new_buf.shape, realize)


# --- rewriting ------------------------------------------------------------------------------
class _LayoutRewriter(StmtExprMutator):
    """Accesses of ``old`` become accesses of ``new`` through ``imap``; replaced loops and
    inserted statements of the padding plan are applied on the way."""

    def __init__(self, old, new, imap, replacements=None, insert_after=None):
        self.old, self.new, self.imap = old, new, imap
        self.ana = Analyzer()
        self.replacements = replacements or {}
        self.insert_after = insert_after   # (stmt, new stmt) or None

    def visit_stmt(self, stmt):
        out = super().visit_stmt(stmt)
        if self.insert_after is not None and stmt is self.insert_after[0]:
            return SeqStmt([out, self.insert_after[1]])
        return out

    def visit_for_(self, op):
        if id(op) in self.replacements:
            return self.visit_stmt(self.replacements[id(op)])
        self.ana.bind(op.loop_var, Range.from_min_extent(op.min, op.extent))
        return super().visit_for_(op)

    def _map(self, indices):
        mapped = self.imap.map_indices([self.visit_expr(i) for i in indices])
        return [self.ana.simplify(i) for i in mapped]

    def visit_buffer_load_(self, op):
        if op.buffer is self.old:
            return BufferLoad(self.new, self._map(op.indices), op.predicate)
        return super().visit_buffer_load_(op)

    def visit_buffer_store_(self, op):
        if op.buffer is self.old:
            return BufferStore(self.new, self.visit_expr(op.value), self._map(op.indices),
                               op.predicate)
        return super().visit_buffer_store_(op)

    def visit_buffer_use(self, buffer):
        return self.new if buffer is self.old else buffer

    def visit_buffer_def(self, buffer):
        return self.new if buffer is self.old else buffer

    def visit_sblock_(self, op):
        for iv in op.iter_vars:
            self.ana.bind(iv.var, iv.dom)
        touches = any(r.buffer is self.old for r in list(op.reads) + list(op.writes))
        new = super().visit_sblock_(op)
        if not touches:
            return new
        inferred_reads, inferred_writes = infer_sblock_regions(new)

        def fix(regions, inferred):
            out = []
            for r in regions:
                if r.buffer is self.new:
                    found = [i for i in inferred if i.buffer is self.new]
                    out.append(found[0] if found else self._map_region(r))
                else:
                    out.append(r)
            return tuple(out)

        return new.replace(reads=fix(new.reads, inferred_reads),
                           writes=fix(new.writes, inferred_writes))

    def _map_region(self, region):
        # A region whose accesses left the body: map its corners (a bounding box).
        lo = self.imap.map_indices([r.min for r in region.region])
        hi = self.imap.map_indices([r.min + r.extent - 1 for r in region.region])
        return BufferRegion(self.new, [Range.from_min_extent(a, self.ana.simplify(b - a + 1))
                                       for a, b in zip(lo, hi)])


# --- the primitives -------------------------------------------------------------------------
class LayoutPrimitives:
    """Mixin: ``transform_layout`` and ``transform_block_layout``."""

    def _layout_buffer(self, blk, buffer, prim):
        """``(kind, index, buffer)`` of ``buffer`` among the block's reads/writes."""
        entries = [("read", i, r.buffer) for i, r in enumerate(blk.reads)]
        entries += [("write", i, r.buffer) for i, r in enumerate(blk.writes)]
        if isinstance(buffer, (tuple, list)) and len(buffer) == 2 and isinstance(buffer[0], str):
            kind, index = buffer
            if kind not in ("read", "write"):
                raise ValueError(f"{prim}: the buffer kind must be 'read' or 'write', got "
                                 f"{kind!r}")
            regions = blk.reads if kind == "read" else blk.writes
            if not isinstance(index, int) or not 0 <= index < len(regions):
                raise ValueError(f"{prim}: invalid buffer index {index}: block "
                                 f"{blk.name_hint!r} has {len(regions)} {kind} buffers")
            return kind, index, regions[index].buffer
        if isinstance(buffer, str):
            found = {}
            for kind, index, buf in entries:
                if buf.name == buffer and id(buf) not in found:
                    found[id(buf)] = (kind, index, buf)
            if not found:
                raise ValueError(f"{prim}: could not find buffer {buffer!r} in block "
                                 f"{blk.name_hint!r}")
            if len(found) > 1:
                raise ValueError(f"{prim}: multiple buffers named {buffer!r} in block "
                                 f"{blk.name_hint!r}")
            return next(iter(found.values()))
        if isinstance(buffer, Buffer):
            for entry in entries:
                if entry[2] is buffer:
                    return entry
            raise ValueError(f"{prim}: could not find buffer {buffer.name!r} in block "
                             f"{blk.name_hint!r}")
        raise TypeError(f"{prim}: invalid type for argument 'buffer': {type(buffer).__name__}")

    def transform_layout(self, block: SBlockRV | str, buffer, index_map, pad_value=None, *,
                         assume_injective_transform: bool = False) -> None:
        """Give ``buffer`` the layout ``index_map`` and rewrite every access to it.

        Parameters
        ----------
        block : SBlockRV or str
            A block that accesses the buffer.
        buffer : tuple of (str, int), str or Buffer
            ``("read", i)``/``("write", i)``, the buffer's name, or the buffer.
        index_map : IndexMap or callable
            The map from old indices to new indices.
        pad_value : int, float, PrimExpr, IndexMap or callable, optional
            The value of padding elements (required when the map pads the buffer). A callable
            receives the new indices.
        assume_injective_transform : bool
            Skip the padding analysis (the padded elements are never accessed).

        Raises
        ------
        ScheduleError
            If the map pads the buffer and no ``pad_value`` is given, the pad value's dtype
            differs from the buffer's or it loads another buffer, or the buffer is a
            ``match_buffer`` view.
        """
        prim = "transform_layout"
        block = self._as_block(block)
        func_name, path = self._block(block, prim)
        blk = path[-1].block
        kind, index, buf = self._layout_buffer(blk, buffer, prim)
        dtype = _block_index_dtype(blk)
        imap = _as_index_map(index_map, len(buf.shape), dtype, prim)
        if len(imap.initial_indices) != len(buf.shape):
            raise ValueError(f"{prim}: the index map takes {len(imap.initial_indices)} indices, "
                             f"but buffer {buf.name} has {len(buf.shape)} dimensions")
        shape_dtype = buf.shape[0].dtype if buf.shape else dtype
        imap = _legalize(imap, shape_dtype)
        pad_map = _pad_value_map(pad_value, buf, len(imap.final_indices), dtype, prim)
        func = self.mod[func_name]
        site = find_path(func.body, lambda n: isinstance(n, SBlock) and (
            any(b is buf for b in n.alloc_buffers)
            or any(m.buffer is buf for m in n.match_buffers)))
        if site is not None and not any(b is buf for b in site[-1].alloc_buffers):
            raise self._error(prim, f"The buffer {buf.name} is defined as a sub-region of another "
                              "buffer (match_buffer); transform the source buffer instead",
                              [site[-1]])
        if site is None and not any(b is buf for b in func.buffer_map.values()):
            raise self._error(prim, f"The buffer {buf.name} is not allocated in the function nor "
                              "one of its parameters", [blk])
        if pad_map is not None:
            if len(pad_map.final_indices) != 1:
                raise self._error(prim, f"The pad value {pad_map} must compute one value, got "
                                  f"{len(pad_map.final_indices)}")
            pad_dtype = pad_map.final_indices[0].dtype
            if pad_dtype != buf.dtype:
                raise self._error(prim, f"Buffer {buf.name} has elements of type {buf.dtype}, but "
                                  f"the transformation fills padding with {pad_map}, which is "
                                  f"of type {pad_dtype}")
            others = _loads_other_buffer(pad_map.final_indices[0], buf)
            if others:
                raise self._error(prim, "Pad value may only contain loads from the transformed "
                                  f"buffer {buf.name}, but pad_value {pad_map} loads buffer "
                                  f"{others[0].name}")
        ana = Analyzer()
        inverse, predicate = None, IntImm("bool", 0)
        if not assume_injective_transform:
            try:
                inverse, _ = imap.non_surjective_inverse(buf.shape)
            except ValueError as err:
                raise self._error(prim, f"Cannot analyze the padding of index map {imap} on "
                                  f"buffer {buf.name}: {err}") from err
            new_shape = imap.map_shape(buf.shape)
            for v, s in zip(inverse.initial_indices, new_shape):
                ana.bind(v, Range.from_min_extent(IntImm(v.dtype, 0), s))
            predicate = _padding_predicate(imap, inverse, buf.shape, ana)
        has_padding = const_int(predicate) != 0
        if has_padding and pad_map is None:
            old_shape = ", ".join(str(d) for d in buf.shape) + ("," if len(buf.shape) == 1 else "")
            new_shape = ", ".join(str(d) for d in imap.map_shape(buf.shape))
            raise self._error(prim, f"The transformation {imap} applied on buffer {buf.name} of "
                              f"shape ({old_shape}) would result in shape ({new_shape}).  However, "
                              f"this would introduce padding wherever {predicate} is true. Give a "
                              "pad_value, or assume_injective_transform=True if the padding is "
                              "never accessed.", [blk])
        new_buf = buf.replace(shape=tuple(imap.map_shape(buf.shape)), strides=())
        scope_realize = path[0] if site is None else None
        scope = site[-1] if site is not None else scope_realize.block
        new_scope = self._rewrite_layout(scope, buf, new_buf, imap, inverse, predicate,
                                         pad_map if has_padding else None)
        body = replace_stmts(func.body, {id(scope): new_scope})
        if site is None:
            func = func.replace(buffer_map=BufferMap(
                (k, new_buf if v is buf else v) for k, v in func.buffer_map.items()))
            new_mod = self.mod.clone()
            new_mod[func_name] = func
            self._state.mod = new_mod
        self._commit(func_name, body)
        self._record(prim, kwargs={
            "block": block, "buffer": (kind, index), "index_map": imap, "pad_value": pad_map,
            "assume_injective_transform": bool(assume_injective_transform)})

    def _rewrite_layout(self, scope, buf, new_buf, imap, inverse, predicate, pad_map):
        if pad_map is None:
            return _LayoutRewriter(buf, new_buf, imap).visit_stmt(scope)
        ana = Analyzer()
        writes = _collect_writes(scope.body, buf)
        if not writes:
            prologue = _fill_block(inverse, new_buf, pad_map, predicate,
                                   f"buffer_{buf.name}_assumptions", assume_only=True)
            new = _LayoutRewriter(buf, new_buf, imap).visit_stmt(scope)
            return new.replace(body=SeqStmt([prologue, new.body]))
        replacements = {}
        for w in writes:
            if not w.row_major:
                continue
            rep = _StoreReplacer(w, new_buf, predicate, inverse, pad_map, ana)
            stmt = rep.visit_stmt(w.loops[-1].body)
            if rep.all_replaced:
                replacements[id(w.loops[0])] = _loop_nest(inverse.initial_indices,
                                                          new_buf.shape, stmt)
        if replacements:
            return _LayoutRewriter(buf, new_buf, imap, replacements).visit_stmt(scope)
        last = writes[-1]
        anchor = last.loops[0] if last.loops else last.realize
        if anchor is None:
            raise self._error("transform_layout", f"The buffer {buf.name} is written outside of "
                              "any block or loop; cannot place its padding")
        epilogue = _fill_block(inverse, new_buf, pad_map, predicate,
                               f"buffer_{buf.name}_padding", assume_only=False)
        return _LayoutRewriter(buf, new_buf, imap, insert_after=(anchor, epilogue)).visit_stmt(
            scope)

    def transform_block_layout(self, block: SBlockRV | str, index_map) -> None:
        """Re-express a block's iteration space through ``index_map`` (a bijective affine map).

        The block's loops are replaced by one loop per output of the map (``ax0``, ...), the
        block iterators by ``v0``, ... and the body uses the inverse map.

        Parameters
        ----------
        block : SBlockRV or str
            The block; its loops must start at 0, hold only the block, and bind its iterators
            to the loop variables in order.
        index_map : IndexMap or callable
            The map from the old block iterators to the new ones.

        Raises
        ------
        ScheduleError
            If the map is not bijective affine, mixes spatial and reduction iterators in one
            output, or its arity differs from the block's iterator count.
        """
        prim = "transform_block_layout"
        block = self._as_block(block)
        func_name, path = self._block(block, prim)
        realize = path[-1]
        blk = realize.block
        dtype = _block_index_dtype(blk)
        imap = _as_index_map(index_map, len(blk.iter_vars), dtype, prim)
        # The loops of the block, outermost first, up to the enclosing block.
        loops = []
        for node in reversed(path[:-1]):
            if isinstance(node, SBlock):
                break
            if isinstance(node, For):
                loops.insert(0, node)
        for loop in loops:
            if const_int(loop.min) != 0:
                raise self._error(prim, f"The loop {loop.loop_var.name} does not start at 0",
                                  [loop])
        for outer, inner in zip(loops, loops[1:] + [realize]):
            if outer.body is not inner:
                raise self._error(prim, f"The loop {outer.loop_var.name} has more than one child "
                                  "statement; the block's loops must be a perfect nest", [outer])
        trivial = len(loops) == len(blk.iter_vars) and all(
            v is lp.loop_var for v, lp in zip(realize.iter_values, loops))
        if not trivial:
            raise self._error(prim, f"The block {blk.name_hint} does not have a trivial binding "
                              "(each iterator bound to its own loop variable, in order)", [blk])
        if len(imap.initial_indices) != len(blk.iter_vars):
            raise self._error(prim, f"The index map {imap} can't be applied to block iters of "
                              f"{blk.name_hint} because the number of parameters mismatch. "
                              f"Expected: {len(imap.initial_indices)}, actual: "
                              f"{len(blk.iter_vars)}", [blk])
        ana = Analyzer()
        extents = [iv.dom.extent for iv in blk.iter_vars]
        block_vars = [iv.var for iv in blk.iter_vars]
        imap = _legalize(imap, block_vars[0].dtype) if block_vars else imap
        transformed = imap.map_indices(block_vars)
        new_ranges = imap.map_shape(extents)
        kinds = {id(iv.var): iv.iter_type for iv in blk.iter_vars}
        new_ivs = []
        for k, (expr, extent) in enumerate(zip(transformed, new_ranges)):
            var = Var(f"v{k}", expr.dtype)
            if const_int(extent) == 1:
                kind = IterVar.DataPar
            else:
                seen = set()

                def note(node, seen=seen):
                    if isinstance(node, Var) and id(node) in kinds:
                        seen.add(kinds[id(node)])

                post_order_visit(expr, note)
                kind = seen.pop() if len(seen) == 1 else IterVar.Opaque
            if kind == IterVar.Opaque:
                raise self._error(prim, "Cannot detect the block iter type for new iter value "
                                  f"{expr} in {blk.name_hint} because it contains more than one "
                                  "type of original iter vars.", [blk])
            if extent.dtype != var.dtype:
                extent = Cast(var.dtype, extent)
            new_ivs.append(IterVar(Range.from_min_extent(IntImm(var.dtype, 0), extent), var,
                                   kind))
        try:
            inverse = imap.inverse(extents)
        except ValueError as err:
            raise self._error(prim, f"The index map {imap} is not bijective affine.") from err
        for iv in new_ivs:
            ana.bind(iv.var, iv.dom)
        old_in_new = inverse.map_indices([iv.var for iv in new_ivs])
        vmap = {v: ana.simplify(e) for v, e in zip(block_vars, old_in_new)}
        new_blk = substitute(blk, vmap).replace(iter_vars=tuple(new_ivs))
        new_blk = _SimplifyAccess(ana).visit_stmt(new_blk)
        loop_vars = [Var(f"ax{k}", iv.var.dtype) for k, iv in enumerate(new_ivs)]
        body = realize.replace(iter_values=tuple(loop_vars), block=new_blk)
        for lv, iv in reversed(list(zip(loop_vars, new_ivs))):
            body = For(lv, IntImm(lv.dtype, 0), iv.dom.extent, ForKind.SERIAL, body)
        target = loops[0] if loops else realize
        func = self.mod[func_name]
        self._commit(func_name, replace_stmts(func.body, {id(target): body}))
        self._record(prim, kwargs={"block": block, "index_map": imap})


class _SimplifyAccess(StmtExprMutator):
    """Simplify buffer indices and regions with the block iterators' ranges."""

    def __init__(self, ana):
        self.ana = ana

    def visit_buffer_load_(self, op):
        op = super().visit_buffer_load_(op)
        return op.replace(indices=tuple(self.ana.simplify(i) for i in op.indices))

    def visit_buffer_store_(self, op):
        op = super().visit_buffer_store_(op)
        return op.replace(indices=tuple(self.ana.simplify(i) for i in op.indices))

    def visit_buffer_region(self, region):
        region = super().visit_buffer_region(region)
        return region.replace(region=tuple(
            Range.from_min_extent(self.ana.simplify(r.min), self.ana.simplify(r.extent))
            for r in region.region))
