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

from ..ffi.structural import structural_equal
from ..tirx.expr import Call, Cast, IntImm, Var
from ..tirx.op import CallEffectKind
from ..tirx.reduction import Reduce
from ..tirx.stmt import BufferLoad, BufferStore, For, IterVar, SBlock, SBlockRealize
from ..tirx.stmt_functor import ir_transform, post_order_visit, substitute
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
    """An inlinable producer nest: its output buffer, iterator vars and stored value, and the
    buffer's number of elements (None when its shape is symbolic)."""

    __slots__ = ("buffer", "elements", "ivs", "permutation", "value")

    def __init__(self, buffer, ivs, value, elements, permutation):
        self.buffer, self.ivs, self.value = buffer, ivs, value
        self.elements, self.permutation = elements, permutation


def _producer(stmt, intermediates):
    """The :class:`_Producer` of an elementwise nest storing an intermediate, else None."""
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
    value = store.value
    if value.dtype != out.dtype or not _pure(value, out):
        return None
    iv_vars = [iv.var for iv in ivs]
    permutation = _is_permutation(value, iv_vars)
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


def _pure(value, out) -> bool:
    """Whether ``value`` can be recomputed anywhere: no reduction, no read of ``out``, and
    only calls of pure intrinsics (an opaque ``call_extern`` may have side effects)."""
    bad = []

    def visit(node):
        if isinstance(node, Reduce) or (isinstance(node, BufferLoad) and node.buffer is out):
            bad.append(node)
        elif isinstance(node, Call):
            op = node.op
            effect = op.get_attr("TCallEffectKind") if hasattr(op, "get_attr") else None
            if effect not in _PURE_EFFECTS:
                bad.append(node)

    post_order_visit(value, visit)
    return not bad


def _cheap(value) -> bool:
    """Whether ``value`` calls no math function (other than rounding and ``fabs``)."""
    costly = []

    def visit(node):
        if (isinstance(node, Call) and getattr(node.op, "family", "") == "math"
                and node.op.name not in _CHEAP_MATH):
            costly.append(node)

    post_order_visit(value, visit)
    return not costly


def inline_producers(stmts, alloc_buffers):
    """``(statements, whether any nest was inlined)``; see the module docstring.

    ``stmts`` are the root block's statements in order, ``alloc_buffers`` the intermediate
    buffers (the root block's allocations and ``AllocBuffer`` statements).
    """
    intermediates = {id(b) for b in alloc_buffers}
    stmts = list(stmts)
    uses = _Uses()
    inlined = False
    pos = 0
    while pos < len(stmts):
        found = _producer(stmts[pos], intermediates)
        if found is None or not _inlinable(stmts, pos, found, uses):
            pos += 1
            continue
        # Only the readers change: rewriting every later nest made a chain quadratic.
        stmts = stmts[:pos] + [_substitute_reads(s, found) if uses.touches(s, found.buffer)
                               else s for s in stmts[pos + 1:]]
        inlined = True
    return stmts, inlined


def _inlinable(stmts, pos, producer, uses) -> bool:
    out = producer.buffer
    if (any(uses.touches(s, out) for s in stmts[:pos])
            or any(uses.stores_into(s, {id(out)}) for s in stmts[pos + 1:])
            or any(uses.opaque(s, out) for s in stmts)):
        return False
    # No readers: the nest is dead and is dropped.
    readers = [p for p in range(pos + 1, len(stmts)) if uses.touches(stmts[p], out)]
    inputs = set()
    post_order_visit(producer.value, lambda n: inputs.add(id(n.buffer))
                     if isinstance(n, BufferLoad) else None)
    if readers and any(uses.stores_into(s, inputs) for s in stmts[pos + 1:readers[-1] + 1]):
        return False
    if producer.permutation:
        return True
    if not all(_spatial_only(stmts[p]) for p in readers):
        return False
    if _cheap(producer.value):
        return True
    # A costly value is computed once per load after inlining: at most once per element
    # in all (two readers of exp(x) would compute each exp twice).
    loads = 0
    for p in readers:
        count = _loads_per_run(stmts[p], out)
        if count is None:
            return False
        loads += count
    return producer.elements is not None and loads <= producer.elements


class _Uses:
    """Which buffers each statement loads and stores, and which variables and match_buffer
    sources it mentions: one walk per statement, however many producers ask."""

    def __init__(self):
        self._seen = {}  # id(stmt) -> (stmt, (loads, stores, vars, matched)); stmt kept alive

    def _of(self, stmt):
        hit = self._seen.get(id(stmt))
        if hit is not None and hit[0] is stmt:
            return hit[1]
        loads, stores, names, matched = set(), set(), set(), set()

        def visit(node):
            if isinstance(node, BufferLoad):
                loads.add(id(node.buffer))
            elif isinstance(node, BufferStore):
                stores.add(id(node.buffer))
            elif isinstance(node, Var):
                names.add(id(node))
            elif isinstance(node, SBlock):
                matched.update(id(m.source.buffer) for m in node.match_buffers)

        post_order_visit(stmt, visit)
        summary = (loads, stores, names, matched)
        self._seen[id(stmt)] = (stmt, summary)
        return summary

    def touches(self, stmt, buffer) -> bool:
        loads, stores, _, _ = self._of(stmt)
        return id(buffer) in loads or id(buffer) in stores

    def stores_into(self, stmt, buffer_ids) -> bool:
        return not self._of(stmt)[1].isdisjoint(buffer_ids)

    def opaque(self, stmt, buffer) -> bool:
        """Whether ``stmt`` uses ``buffer`` other than by loads and stores, which the rewrite
        cannot see: a match_buffer of it, or its data pointer (an extern call's argument)."""
        _, _, names, matched = self._of(stmt)
        return id(buffer.data) in names or id(buffer) in matched


def _spatial_only(stmt) -> bool:
    """Whether every block of ``stmt`` is spatial (no reduction iterator, no init)."""
    bad = []

    def visit(node):
        if isinstance(node, SBlock) and (node.init is not None or any(
                iv.iter_type != IterVar.DataPar for iv in node.iter_vars)):
            bad.append(node)

    post_order_visit(stmt, visit)
    return not bad


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


def _loads_per_run(stmt, buffer):
    """How many loads of ``buffer`` the perfect nest ``stmt`` runs (None: not a perfect nest
    of constant extents)."""
    work, stmt = nest_work(stmt)
    if work is None or not isinstance(stmt, SBlockRealize):
        return None
    loads = []
    post_order_visit(stmt.block.body, lambda n: loads.append(n)
                     if isinstance(n, BufferLoad) and n.buffer is buffer else None)
    return work * len(loads)


def _substitute_reads(stmt, producer):
    """``stmt`` with each load of the producer's buffer replaced by the producer's value."""
    out, ivs, value = producer.buffer, producer.ivs, producer.value

    def rewrite_load(node):
        if node.buffer is out:
            # An index of another integer type (int32 against FuseTIR's int64 iterators)
            # is cast, so that the substituted arithmetic stays of one type.
            return substitute(value, {iv: ix if ix.dtype == iv.dtype else Cast(iv.dtype, ix)
                                      for iv, ix in zip(ivs, node.indices)})
        return None

    def rewrite(node):
        if isinstance(node, BufferLoad):
            return rewrite_load(node)
        # A block that read the buffer now reads the producer's inputs.
        if any(r.buffer is out for r in node.reads):
            reads, _ = infer_sblock_regions(node, exclude_written_from_reads=node.init
                                            is not None)
            return node.replace(reads=tuple(reads))
        return None

    return ir_transform(stmt, None, rewrite, ["BufferLoad", "SBlock"])
