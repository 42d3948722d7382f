"""Default schedule, before the rules (rule 0): elementwise producers are inlined.

FuseTIR gives every stage of a fused function its own loop nest, and an intermediate buffer
between two stages. When a stage is an *injective elementwise producer*, its nest is removed
here and its value is substituted into the nests that read it (TVM's ``compute_inline``)::

    T_less[i, j] = lv1[i, j] < 0                        # a full-size intermediate
    T_where[i, j] = select(T_less[i, j], 0, dy[i, j])

becomes ``T_where[i, j] = select(lv1[i, j] < 0, 0, dy[i, j])``: one loop, no intermediate
buffer (no workspace allocation), and less code for LLVM.

A producer is a perfect nest over the whole output of an intermediate buffer (an allocation
of the root block, not a parameter; its shape constant or symbolic, each loop's extent the
dimension's), one loop per spatial block iterator bound in order,
storing ``Out[v0, ..., vn] = expr(v0, ..., vn)`` with no init and predicate 1, where ``expr``
is loads and arithmetic, casts, comparisons, ``select`` and pure calls (``exp``,
``if_then_else``) that does not read ``Out``. It is inlined, each load ``Out[e0, ..., en]``
becoming ``expr(e0, ..., en)``, when

* every access of ``Out`` other than the producer's store is a read in a later nest;
* no nest from the producer up to the last reader (inclusive) writes a buffer the producer
  reads (the inlined value would see the new data);
* the readers are pure spatial nests (no reduction iterator, no init: an expression
  inlined into a reduction would be recomputed for every reduction step; an elementwise op
  feeding a matmul stays a separate nest), except for a *pure permutation*
  (``T[i, j] = X[j, i]``, FuseOps' ``permute_dims`` before a matmul), which is inlined into
  reductions too: the matmul rule then reads ``A[k, i]`` in place or packs ``B[j, k]``;
* the value is cheap (no math function call other than rounding and ``fabs``), or the
  readers together load ``Out`` at most as often as it has elements, so that nothing is
  computed twice (a broadcast reader ``x[i, j] + P[j]`` would recompute an ``exp`` of ``P``
  for every row; two readers of ``exp(x)`` would compute each ``exp`` twice).

A buffer used other than by loads and stores (its data pointer given to an extern function,
a ``match_buffer`` of it) keeps its producer; a producer that nothing reads is dropped.
Chains inline transitively (``a = f(x); b = g(a); c = h(b)`` becomes ``c = h(g(f(x)))``).
The read regions of the changed blocks are inferred again; the caller drops allocations that
nothing reads any more. This runs before the matmul epilogue rule: a matmul's epilogue
(``matmul; add bias; relu``) becomes ``matmul; relu(C + bias)``, still elementwise over the
matmul's output at ``[i, j]``, so the epilogue rule takes it into the tile as before.
"""

from __future__ import annotations

from bisect import bisect_left

from ..ffi.structural import structural_equal
from ..tirx.expr import Call, Cast, IntImm, PrimExpr, Var
from ..tirx.expr_functor import ExprFunctor, _ensure_recursion_limit
from ..tirx.op import CallEffectKind
from ..tirx.reduction import Reduce
from ..tirx.stmt import BufferLoad, BufferStore, For, IterVar, SBlock, SBlockRealize
from ..tirx.stmt_functor import StmtExprMutator, post_order_visit
from .access_region import infer_sblock_regions

__all__ = ["INLINE_ELEMENTWISE", "inline_producers"]

#: Inline elementwise producers (False: only pure permutations, the earlier rule 0; kept as a
#: switch for A/B measurements of the default schedule).
INLINE_ELEMENTWISE = True

#: Math calls cheap enough to recompute in a reader that reads an element several times.
_CHEAP_MATH = frozenset({"tirx.floor", "tirx.ceil", "tirx.round", "tirx.trunc",
                         "tirx.nearbyint", "tirx.fabs", "tirx.isnan", "tirx.copysign"})
_PURE_EFFECTS = (CallEffectKind.Pure, CallEffectKind.ExprAnnotation)


class _Producer:
    """An inlinable producer nest: its output buffer, iterator vars and stored value (as
    written, before the substitutions into it), and the buffer's number of elements (None
    when its shape is symbolic)."""

    __slots__ = ("buffer", "elements", "ivs", "permutation", "value")

    def __init__(self, buffer, ivs, value, elements, permutation):
        self.buffer, self.ivs, self.value = buffer, ivs, value
        self.elements, self.permutation = elements, permutation


def _producer_shape(stmt, intermediates):
    """``(out, iv_vars, value, elements)`` of a perfect elementwise nest storing an
    intermediate, else None. Only the nest's shape is checked here, which substituting
    loads into its value does not change; the value's checks are :func:`_producer`'s."""
    loops = []
    while isinstance(stmt, For):
        loops.append(stmt)
        stmt = stmt.body
    if not loops or not isinstance(stmt, SBlockRealize):
        return None
    realize, block = stmt, stmt.block
    if block.init is not None or block.alloc_buffers or block.match_buffers:
        return None
    if not (isinstance(realize.predicate, IntImm) and realize.predicate.value == 1):
        return None
    ivs = list(block.iter_vars)
    if len(ivs) != len(loops) or any(iv.iter_type != IterVar.DataPar for iv in ivs):
        return None
    if any(v is not lp.loop_var for v, lp in zip(realize.iter_values, loops)):
        return None
    store = block.body
    if not isinstance(store, BufferStore) or id(store.buffer) not in intermediates:
        return None
    out = store.buffer
    if len(store.indices) != len(ivs) or any(ix is not iv.var
                                             for ix, iv in zip(store.indices, ivs)):
        return None
    elements = 1
    for lp, dim in zip(loops, out.shape):
        # The nest must cover the whole buffer: a reader may read any element.
        if not (isinstance(lp.min, IntImm) and lp.min.value == 0 and _same(lp.extent, dim)):
            return None
        elements = elements * dim.value if isinstance(dim, IntImm) and elements else None
    if store.value.dtype != out.dtype:
        return None
    return out, [iv.var for iv in ivs], store.value, elements


def _producer(entry, intermediates, expander):
    """The :class:`_Producer` of an entry's nest with the substitutions made so far, else
    None; its value's purity and form come from the entry's summary, not a walk."""
    if entry.shape is False:
        entry.shape = _producer_shape(entry.stmt, intermediates)
    if entry.shape is None:
        return None
    out, iv_vars, value, elements = entry.shape
    if entry.bad or id(out) in entry.counts:  # an impure call, a Reduce, a read of ``out``
        return None
    permutation = False
    if isinstance(value, BufferLoad):
        inner = expander.producers.get(id(value.buffer))
        if inner is None:
            permutation = _is_permutation(value, iv_vars)
        elif inner.permutation:
            # A permutation of a permutation may be one (a tiny value: rebuilt to see).
            permutation = _is_permutation(expander.expand(value), iv_vars)
    if not (permutation or INLINE_ELEMENTWISE):
        return None
    return _Producer(out, iv_vars, value, elements, permutation)


def _same(a, b) -> bool:
    if isinstance(a, IntImm) and isinstance(b, IntImm):
        return a.value == b.value
    return structural_equal(a, b)


def _is_permutation(value, iv_vars) -> bool:
    """Whether ``value`` is ``In[perm(v0, ..., vn)]`` (a transpose or a copy)."""
    ids = sorted(id(v) for v in iv_vars)
    return (isinstance(value, BufferLoad) and len(value.indices) == len(ids)
            and all(isinstance(ix, Var) for ix in value.indices)
            and sorted(id(ix) for ix in value.indices) == ids)


class _Entry:
    """One root statement and what the rules ask of it, kept up to date as producers are
    inlined into it without walking it again (the walk of a reader that had a chain inlined
    into it grew with the chain: inlining was quadratic in its length).

    ``loads``/``stores``: ids of the buffers loaded/stored anywhere in the statement;
    ``names``: ids of the handle variables it mentions (the rules ask whether a buffer's
    data pointer is one; a superset once producers are inlined, their handles added: an
    index, the only thing a substitution drops, holds none); ``matched``: match_buffer
    sources. For a perfect nest ending in a block (``work`` its iterations, None when
    symbolic or not a nest):
    ``counts``, how many times the block body loads each buffer (None otherwise), and
    whether the body calls something impure or reduces (``bad``) or calls a costly math
    function (``costly``). ``inlined``: ids of the buffers inlined into it.
    """

    __slots__ = ("bad", "costly", "counts", "inlined", "loads", "matched", "names", "seq",
                 "shape", "spatial", "stmt", "stores", "work")

    def __init__(self, stmt):
        self.stmt = stmt
        self.shape = False  # _producer_shape, computed when first asked
        self.inlined = set()
        loads, stores, names, matched = set(), set(), set(), set()
        bad_spatial = []

        def visit(node):
            if isinstance(node, BufferLoad):
                loads.add(id(node.buffer))
            elif isinstance(node, BufferStore):
                stores.add(id(node.buffer))
            elif isinstance(node, Var) and node.dtype == "handle":
                names.add(id(node))
            elif isinstance(node, SBlock):
                matched.update(id(m.source.buffer) for m in node.match_buffers)
                if node.init is not None or any(iv.iter_type != IterVar.DataPar
                                                for iv in node.iter_vars):
                    bad_spatial.append(node)

        post_order_visit(stmt, visit)
        self.loads, self.stores, self.names, self.matched = loads, stores, names, matched
        self.spatial = not bad_spatial
        self.work, inner = nest_work(stmt)
        while isinstance(inner, For):  # past a symbolic extent
            inner = inner.body
        self.counts, self.bad, self.costly = None, False, False
        if isinstance(inner, SBlockRealize):
            self.counts, self.bad, self.costly = _body_summary(inner.block.body)

    def loads_per_run(self, buffer):
        """How many loads of ``buffer`` the perfect nest runs (None: not a perfect nest of
        constant extents)."""
        if self.work is None or self.counts is None:
            return None
        return self.work * self.counts.get(id(buffer), 0)

    def inline(self, producer, source):
        """Account for the loads of ``producer.buffer`` becoming its value (``source`` is the
        producer's entry, whose summary is its value's)."""
        key = id(producer.buffer)
        self.loads.discard(key)
        self.loads |= source.counts.keys()
        self.names |= source.names
        self.inlined.add(key)
        if self.counts is not None:
            times = self.counts.pop(key, 0)
            if times:
                for buf, n in source.counts.items():
                    self.counts[buf] = self.counts.get(buf, 0) + times * n
                self.bad = self.bad or source.bad
                self.costly = self.costly or source.costly


def _body_summary(body):
    """``(loads per buffer id, impure call or Reduce, costly math call)`` of a block body."""
    counts = {}
    flags = [False, False]

    def visit(node):
        if isinstance(node, BufferLoad):
            counts[id(node.buffer)] = counts.get(id(node.buffer), 0) + 1
        elif isinstance(node, Reduce):
            flags[0] = True
        elif isinstance(node, Call):
            op = node.op
            effect = op.get_attr("TCallEffectKind") if hasattr(op, "get_attr") else None
            if effect not in _PURE_EFFECTS:
                flags[0] = True
            if getattr(op, "family", "") == "math" and op.name not in _CHEAP_MATH:
                flags[1] = True

    post_order_visit(body, visit)
    return counts, flags[0], flags[1]


def inline_producers(stmts, alloc_buffers):
    """``(statements, whether any nest was inlined)``; see the module docstring.

    ``stmts`` are the root block's statements in order, ``alloc_buffers`` the intermediate
    buffers (the root block's allocations and ``AllocBuffer`` statements).

    The decisions read summaries of the statements (:class:`_Entry`) that each inlining
    updates from the producer's summary, and an index of which statements touch each
    buffer (:class:`_Index`); the readers are rewritten once at the end, each load of an
    inlined buffer expanded from the producers' values as written. A step then costs the
    size of the producer as written and of its readers' summaries, not of everything
    inlined into them, so a chain inlines in time linear in its length.
    """
    intermediates = {id(b) for b in alloc_buffers}
    index = _Index([_Entry(s) for s in stmts])
    entries = index.entries
    expander = _Expand()
    while index.pos < len(entries):
        entry = entries[index.pos]
        found = _producer(entry, intermediates, expander)
        if found is None or not _inlinable(index, found):
            index.advance()
            continue
        index.inline(found)
        expander.producers[id(found.buffer)] = found
    if not expander.producers:
        return list(stmts), False
    out = []
    for entry in entries:
        if entry.inlined:
            expander.reinfer = entry.inlined
            out.append(expander.expand(entry.stmt))
        else:
            out.append(entry.stmt)
    return out, True


class _Index:
    """The statements still there (``entries``, in order, each numbered by its first
    position), the one considered (``pos``), and what the rules ask of many statements at
    once, kept up to date instead of scanned for: the buffers touched before ``pos``,
    how many statements from ``pos`` on store each buffer, how many statements mention
    each handle, the match_buffer sources, and the statements touching each buffer."""

    def __init__(self, entries):
        self.entries, self.pos = entries, 0
        self.before = set()
        self.stores_after, self.handles, self.matched, self.touching = {}, {}, set(), {}
        for seq, entry in enumerate(entries):
            entry.seq = seq
            for key in entry.stores:
                self.stores_after[key] = self.stores_after.get(key, 0) + 1
            for key in entry.names:
                self.handles[key] = self.handles.get(key, 0) + 1
            self.matched |= entry.matched
            for key in entry.loads | entry.stores:
                self.touching.setdefault(key, {})[seq] = entry

    def advance(self):
        entry = self.entries[self.pos]
        self.before |= entry.loads
        self.before |= entry.stores
        for key in entry.stores:
            self.stores_after[key] -= 1
        self.pos += 1

    def readers(self, buffer, source):
        """The statements after ``source`` that touch ``buffer``, in order."""
        hits = self.touching.get(id(buffer), {})
        return [hits[seq] for seq in sorted(hits) if seq > source.seq]

    def position(self, entry) -> int:
        return bisect_left(self.entries, entry.seq, lo=self.pos, key=_seq)

    def inline(self, producer):
        """Drop the producer's statement at ``pos``; its readers load its value instead."""
        source = self.entries.pop(self.pos)
        out = id(producer.buffer)
        readers = self.readers(producer.buffer, source)
        for key in source.stores:
            self.stores_after[key] -= 1
        for key in source.names:
            self.handles[key] -= 1
        for key in source.loads | source.stores:
            self.touching[key].pop(source.seq, None)
        for entry in readers:
            new_names = source.names - entry.names
            for key in new_names:
                self.handles[key] = self.handles.get(key, 0) + 1
            entry.inline(producer, source)
            if out not in entry.stores:
                self.touching[out].pop(entry.seq, None)
            for key in source.counts:
                self.touching.setdefault(key, {})[entry.seq] = entry


def _seq(entry):
    return entry.seq


def _inlinable(index, producer) -> bool:
    out = producer.buffer
    entries, pos = index.entries, index.pos
    source = entries[pos]
    # Touched before the producer, stored again after it, or used other than by loads and
    # stores, which the rewrite cannot see (its data pointer given to an extern call, a
    # match_buffer of it).
    if (id(out) in index.before or index.stores_after.get(id(out), 0) > 1
            or index.handles.get(id(out.data), 0) or id(out) in index.matched):
        return False
    # No readers: the nest is dead and is dropped.
    readers = index.readers(out, source)
    inputs = source.counts.keys()
    if readers and any(not e.stores.isdisjoint(inputs)
                       for e in entries[pos + 1:index.position(readers[-1]) + 1]):
        return False
    if producer.permutation:
        return True
    if not all(e.spatial for e in readers):
        return False
    if not source.costly:
        return True
    # A costly value is computed once per load after inlining: at most once per element
    # in all (two readers of exp(x) would compute each exp twice).
    loads = 0
    for entry in readers:
        count = entry.loads_per_run(out)
        if count is None:
            return False
        loads += count
    return producer.elements is not None and loads <= producer.elements


def nest_work(stmt):
    """``(iterations, innermost statement)`` of the loop nest ``stmt`` (None iterations when
    an extent is symbolic)."""
    work = 1
    while isinstance(stmt, For):
        if not isinstance(stmt.extent, IntImm):
            return None, stmt
        work *= stmt.extent.value
        stmt = stmt.body
    return work, stmt


class _Expand(StmtExprMutator):
    """Rewrite a reader: each load ``Out[e0, ..., en]`` of an inlined buffer becomes the
    producer's value (as written) with its iterators bound to the rewritten indices, loads
    inside it expanded in turn; a block whose read regions name a buffer inlined into the
    statement (``reinfer``) has them inferred again."""

    visit_expr = ExprFunctor.visit_expr

    def __init__(self):
        self.producers = {}  # id(buffer) -> _Producer
        self.reinfer = set()
        self._env = {}  # id(iterator var) -> its index in the reader being rewritten

    def expand(self, node):
        _ensure_recursion_limit()
        if isinstance(node, PrimExpr):
            return self.visit_expr(node)
        return self.visit_stmt(node)

    def visit_var_(self, op):
        return self._env.get(id(op), op)

    def visit_buffer_load_(self, op):
        producer = self.producers.get(id(op.buffer))
        if producer is None:
            return super().visit_buffer_load_(op)
        indices = [self.visit_expr(ix) for ix in op.indices]
        # An index of another integer type (int32 against FuseTIR's int64 iterators) is
        # cast, so that the substituted arithmetic stays of one type.
        env = {id(iv): ix if ix.dtype == iv.dtype else Cast(iv.dtype, ix)
               for iv, ix in zip(producer.ivs, indices)}
        saved, self._env = self._env, env
        try:
            return self.visit_expr(producer.value)
        finally:
            self._env = saved

    def visit_sblock_(self, op):
        node = super().visit_sblock_(op)
        if any(id(r.buffer) in self.reinfer for r in op.reads):
            reads, _ = infer_sblock_regions(node, exclude_written_from_reads=node.init
                                            is not None)
            node = node.replace(reads=tuple(reads))
        return node
