"""Compute-location primitives: ``compute_inline``, ``reverse_compute_inline``,
``compute_at`` and ``reverse_compute_at``.

Supported block shapes (each checked, with a ``ScheduleError`` naming the condition otherwise):

* inlining needs a *complete* block (spatial iters only, no ``init``) whose body is one
  ``BufferStore`` indexed by distinct iteration variables;
* ``compute_at``/``reverse_compute_at``: the region each iteration of the target loop needs
  is found with interval arithmetic (a dimension it cannot bound is taken whole) and solved
  for the moved block's iterators by :mod:`.compute_at_domain` (bijective affine indices such
  as ``[v // 16, v % 16]``, or per dimension ``v``, ``v * c``, ``x // c``, ``x % c``);
  iterations that can overhang the block's domain or the buffer are guarded with
  ``T.where``. ``compute_at`` refuses output blocks (writing a buffer the scope does not
  allocate), as TVM.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ffi.structural import structural_equal
from ...ir.expr import Range
from ...tirx.expr import GE, LE, LT, Add, And, IntImm, Sub, Var
from ...tirx.generic import const
from ...tirx.stmt import BufferRegion, BufferStore, For, ForKind, IterVar, SBlockRealize
from ...tirx.stmt_functor import StmtExprMutator, pre_order_visit, substitute
from ..access_region import infer_sblock_regions
from .base import SBlockRV
from .compute_at_domain import DomainSolveError, solve_block_var_domains
from .lookup import consumers, enclosing_block, producers, scope_blocks
from .state import children, iter_blocks, make_seq, relax_region, replace_stmts, seq_of

__all__ = ["ComputeLocationPrimitives"]


class _InlineLoads(StmtExprMutator):
    """Replace loads of ``buffer`` by ``fn(indices)``; with a ``producer`` block (storing at
    ``index_vars``), also replace read regions of ``buffer`` by what the producer reads."""

    def __init__(self, buffer, fn, producer=None, index_vars=None):
        self.buffer = buffer
        self.fn = fn
        self.producer = producer
        self.index_vars = index_vars

    def visit_buffer_load_(self, op):
        op = super().visit_buffer_load_(op)
        if op.buffer is self.buffer:
            return self.fn(op.indices)
        return op

    def visit_sblock_(self, op):
        new = super().visit_sblock_(op)
        if self.producer is None or not any(r.buffer is self.buffer for r in new.reads):
            return new
        ana = Analyzer()
        reads = []
        for r in new.reads:
            if r.buffer is not self.buffer:
                reads.append(r)
                continue
            dom = dict(zip(self.index_vars, r.region))
            for pr in self.producer.reads:
                bounds = relax_region(pr, {}, dom, ana)
                mapped = BufferRegion(pr.buffer,
                                      [Range.from_min_extent(lo, ana.simplify(hi - lo + 1))
                                       for lo, hi in bounds])
                if not any(x.buffer is mapped.buffer and structural_equal(x, mapped)
                           for x in reads):
                    reads.append(mapped)
        return new.replace(reads=tuple(reads))


def _store_of(block):
    return block.body if isinstance(block.body, BufferStore) else None


def _is_complete(block):
    return block.init is None and all(iv.iter_type == IterVar.DataPar for iv in block.iter_vars)


def _index_vars(indices, block):
    """The iteration variables used as ``indices`` (each index a distinct iter var), or None."""
    ivars = {id(iv.var): iv.var for iv in block.iter_vars}
    out = []
    for idx in indices:
        if not isinstance(idx, Var) or id(idx) not in ivars or any(idx is v for v in out):
            return None
        out.append(idx)
    return out


def _loads(stmt, buffer):
    found = []

    class _Find(StmtExprMutator):
        def visit_buffer_load_(self, op):
            if op.buffer is buffer:
                found.append(op)
            return super().visit_buffer_load_(op)

    _Find().visit_stmt(stmt)
    return found


def _opaque_users(body, buffer):
    """Blocks that use ``buffer`` other than by loads and stores: its data variable in an
    expression (``T.tvm_fill_fragment(B.data, ...)``) or as a ``match_buffer`` source."""
    users = []
    for realize, _ in iter_blocks(body):
        blk = realize.block
        if any(mb.source.buffer is buffer for mb in blk.match_buffers):
            users.append(blk)
            continue
        found = []

        def visit(node, found=found):
            # A nested block is checked on its own.
            if isinstance(node, SBlockRealize):
                return False
            if node is buffer.data:
                found.append(node)
            return True

        for stmt in (blk.init, blk.body):
            if stmt is not None:
                pre_order_visit(stmt, visit)
        if found:
            users.append(blk)
    return users


def _is_param(sch, func_name, buffer):
    return any(b is buffer for b in sch.mod[func_name].buffer_map.values())


def _drop_alloc(body, buffer):
    """``body`` without ``buffer`` in the alloc list of the block that allocates it."""
    for realize, _ in iter_blocks(body):
        blk = realize.block
        if any(b is buffer for b in blk.alloc_buffers):
            allocs = tuple(b for b in blk.alloc_buffers if b is not buffer)
            return replace_stmts(body, {id(blk): blk.replace(alloc_buffers=allocs)})
    return body


def _relaxed_region(region, realize, inner_loops, ana):
    """``[(lo, hi)]`` of a block region in loop variables, relaxing ``inner_loops``."""
    vmap = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
    dom = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent) for lp in inner_loops}
    return relax_region(region, vmap, dom, ana)


def _storage_rank(scope):
    if scope.startswith("shared"):
        return 1
    if scope.startswith("warp"):
        return 2
    if scope.startswith("local"):
        return 3
    return 0  # global


def _relax_for_storage(loop, scope):
    """Whether every thread of ``loop``'s thread axis sees the same ``scope`` buffer."""
    if loop.kind != ForKind.THREAD_BINDING or loop.thread_binding is None:
        return False
    tag = loop.thread_binding.thread_tag
    thread_rank = 0 if tag.startswith("blockIdx") else 1 if tag.startswith("threadIdx") else None
    if thread_rank is None:
        return False
    rank = _storage_rank(scope)
    if rank == 0:
        # TVM relaxes nothing above the loop for global buffers: a producer computed at a
        # blockIdx loop covers that block's part only (dlight's rows depend on it).
        return False
    if rank == 2 and tag == "threadIdx.x":
        return True
    return rank <= thread_rank


def _compare(cls, value, bound, ana):
    """``cls(a, c)`` from ``value`` against ``bound``, constants moved to the right side
    (``i - 16 >= 0`` is ``i >= 16``), as TVM's simplified predicates read."""
    diff = ana.simplify(value - bound)
    const_part = 0
    if isinstance(diff, IntImm):
        return ana.simplify(cls(diff, const(0, diff.dtype)))
    if isinstance(diff, Add) and isinstance(diff.b, IntImm):
        diff, const_part = diff.a, diff.b.value
    elif isinstance(diff, Sub) and isinstance(diff.b, IntImm):
        diff, const_part = diff.a, -diff.b.value
    if cls is GE and isinstance(diff, Var):
        # TVM's simplifier writes a lower bound of a lone variable as ``4 <= i``.
        return LE(const(-const_part, diff.dtype), diff)
    return cls(diff, const(-const_part, diff.dtype))


class ComputeLocationPrimitives:
    """Mixin: move or inline blocks."""

    # --- inlining ------------------------------------------------------------------------------
    def _inline_checks(self, block, primitive):
        func_name, path = self._block(block, primitive)
        realize = path[-1]
        blk = realize.block
        store = _store_of(blk)
        if enclosing_block(path) is None:
            raise self._error(primitive, "The root block cannot be inlined", [blk])
        others = [r.block.name_hint for r in scope_blocks(self.mod[func_name].body, path)
                  if r is not realize and store is not None
                  and any(w.buffer is store.buffer for w in r.block.writes)]
        if others:
            raise self._error(
                primitive, f"The block {blk.name_hint!r} is not the only writer of "
                f"{store.buffer.name} (also written by {others}); it is not a complete block "
                "and cannot be inlined", [blk])
        if not _is_complete(blk) or store is None:
            raise self._error(
                primitive,
                f"The block {blk.name_hint!r} is not a complete block whose body is a single "
                "BufferStore: inlining needs spatial iteration variables only, no init, and "
                "one store statement", [blk])
        return func_name, path, realize, blk, store

    def compute_inline(self, block: SBlockRV | str) -> None:
        """Inline a complete block into its consumers (its buffer disappears)."""
        block = self._as_block(block)
        func_name, _path, realize, blk, store = self._inline_checks(block, "compute_inline")
        buf = store.buffer
        index_vars = _index_vars(store.indices, blk)
        if index_vars is None:
            raise self._error(
                "compute_inline", f"The block {blk.name_hint!r} must store to {buf.name} at "
                "distinct iteration variables (e.g. B[v_i, v_j]) to be inlined", [blk])
        if _is_param(self, func_name, buf):
            raise self._error(
                "compute_inline", f"The block {blk.name_hint!r} writes {buf.name}, an output "
                "buffer of the function; an output block cannot be inlined", [blk])
        if _loads(store, buf):
            raise self._error("compute_inline", f"The block {blk.name_hint!r} reads the buffer "
                              f"{buf.name} it writes and cannot be inlined", [blk])
        opaque = _opaque_users(self.mod[func_name].body, buf)
        if opaque:
            raise self._error(
                "compute_inline", f"The buffer {buf.name} written by block {blk.name_hint!r} "
                "is accessed opaquely (through its data pointer or a match_buffer) by "
                f"{sorted(b.name_hint for b in opaque)}; it cannot be inlined", [blk, *opaque])
        value = store.value

        def inline(indices):
            return substitute(value, dict(zip(index_vars, indices)))

        body = replace_stmts(self.mod[func_name].body, {id(realize): None})
        # Loads of the buffer become the producer's value; in every block (nested ones too)
        # a read region of the buffer becomes the regions the producer reads for it.
        body = _InlineLoads(buf, inline, blk, index_vars).visit_stmt(body)
        self._commit(func_name, _drop_alloc(body, buf))
        self._record("compute_inline", kwargs={"block": block})

    def reverse_compute_inline(self, block: SBlockRV | str) -> None:
        """Inline a complete block into its single complete producer."""
        block = self._as_block(block)
        prim = "reverse_compute_inline"
        func_name, path, realize, blk, store = self._inline_checks(block, prim)
        body = self.mod[func_name].body
        prods = producers(body, path)
        if len(prods) != 1:
            raise self._error(
                prim, f"The consumer block {blk.name_hint!r} to be inlined is required to have "
                f"only a single producer block, found {len(prods)}", [blk])
        prod = prods[0]
        pstore = _store_of(prod.block)
        if not _is_complete(prod.block) or pstore is None:
            raise self._error(
                prim, f"The producer block {prod.block.name_hint!r} must be a complete block "
                "(spatial iters only, no init) with a single BufferStore body", [blk, prod.block])
        prod_path = next(p for r, p in iter_blocks(body) if r is prod)
        if any(r is not prod and any(w.buffer is pstore.buffer for w in r.block.writes)
               for r in scope_blocks(body, prod_path)):
            raise self._error(prim, f"The producer block {prod.block.name_hint!r} is not the "
                              f"only writer of {pstore.buffer.name}", [blk, prod.block])
        if len(consumers(body, prod_path)) != 1:
            raise self._error(prim, f"The producer block {prod.block.name_hint!r} must have "
                              f"{blk.name_hint!r} as its only consumer", [blk, prod.block])
        buf = pstore.buffer
        loads = _loads(store, buf)
        if not loads:
            raise self._error(prim, f"The block {blk.name_hint!r} does not load {buf.name}",
                              [blk])
        same = all(len(ld.indices) == len(loads[0].indices)
                   and all(structural_equal(a, b) for a, b in zip(ld.indices, loads[0].indices))
                   for ld in loads)
        vmap = self._reverse_inline_map(blk, loads[0].indices, pstore.indices) if same else None
        if vmap is None:
            raise self._error(
                prim, f"The block {blk.name_hint!r} must load {buf.name} at one affine index "
                "map of its iteration variables that is invertible (each index a fused "
                "iterator, or its // or % split) to be reverse-inlined", [blk])
        if _is_param(self, func_name, buf):
            raise self._error(prim, f"The buffer {buf.name} is an output of the function; its "
                              "producer's result cannot be dropped", [blk])
        vmap, guards = vmap
        new_value = substitute(_InlineLoads(buf, lambda _idx: pstore.value)
                               .visit_expr(store.value), vmap)
        new_store = BufferStore(store.buffer, new_value,
                                [substitute(i, vmap) for i in store.indices])
        pblk = prod.block.replace(body=new_store)
        reads, writes = infer_sblock_regions(pblk)
        pblk = pblk.replace(reads=tuple(reads), writes=tuple(writes))
        table = {id(realize): None, id(prod.block): pblk}
        pred = _overhang_predicate(prod, guards)
        if pred is not None:
            table[id(prod)] = SBlockRealize(prod.iter_values, pred, pblk)
        self._commit(func_name, _drop_alloc(replace_stmts(body, table), buf))
        self._record(prim, kwargs={"block": block})

    @staticmethod
    def _reverse_inline_map(blk, load_indices, store_indices):
        """``({consumer iter var: expr of the producer's store indices}, guards)`` or None;
        ``guards`` are ``(expr, extent)`` pairs the producer must keep below ``extent``."""
        from .affine_inverse import invert_split_indices  # Lazy: only this path inverts.

        direct = _index_vars(load_indices, blk)
        if direct is not None and len(direct) == len(blk.iter_vars):
            ext = {id(iv.var): iv.dom.extent for iv in blk.iter_vars}
            return (dict(zip(direct, store_indices)),
                    [(idx, ext[id(v)]) for v, idx in zip(direct, store_indices)])
        unit = {}
        iters = []
        for iv in blk.iter_vars:
            ext = getattr(iv.dom.extent, "value", None)
            if getattr(iv.dom.min, "value", None) != 0 or ext is None:
                return None
            if ext == 1:
                unit[iv.var] = iv.dom.min
            else:
                iters.append((iv.var, ext))
        ana = Analyzer()
        indices = [ana.simplify(substitute(i, unit)) if unit else i for i in load_indices]
        inv = invert_split_indices(indices, iters, list(store_indices))
        if inv is None:
            return None
        vmap = dict(unit)
        guards = []
        for var, ext in iters:
            vmap[var] = inv[id(var)]
            guards.append((inv[id(var)], ext))
        return vmap, guards

    # --- compute_at -----------------------------------------------------------------------------
    def _at_common(self, block, loop, primitive):
        func_name, bpath = self._block(block, primitive)
        lfunc, lpath = self._loop(loop, primitive)
        realize, target = bpath[-1], lpath[-1]
        if lfunc != func_name:
            raise ValueError(f"{primitive}: the block and the loop are in different functions")
        if any(n is target for n in bpath):
            raise self._error(
                primitive, f"The loop {target.loop_var.name} is an ancestor of block "
                f"{realize.block.name_hint!r}; the target loop must be outside the block's "
                "loop nest", [target, realize.block])
        scope = enclosing_block(bpath)
        written = {id(w.buffer) for w in realize.block.writes}
        others = [r.block.name_hint for r in scope_blocks(self.mod[func_name].body, bpath)
                  if r is not realize and written & {id(w.buffer) for w in r.block.writes}]
        if others:
            raise self._error(
                primitive, f"The block {realize.block.name_hint!r} is not a complete block: it "
                f"is not the only writer of its output (also written by {others}); it cannot "
                "be moved", [realize.block])
        loop_scope = enclosing_block(lpath)
        if loop_scope is not scope:
            raise self._error(
                primitive, "Expected the block and the loop to be under the same block scope: "
                f"loop {target.loop_var.name} is in block "
                f"{getattr(loop_scope, 'name_hint', None)!r}, block "
                f"{realize.block.name_hint!r} in {getattr(scope, 'name_hint', None)!r}",
                [target, realize.block])
        return func_name, bpath, lpath, realize, target

    def _place(self, func_name, bpath, lpath, realize, regions, related, index, primitive,
               preserve_unit_loops):
        """Move ``realize`` under the loop ``lpath[-1]``; ``regions`` is ``(provided,
        required)`` (see :func:`solve_block_var_domains`), or None to compute the block's
        whole domain."""
        target = lpath[-1]
        blk = realize.block
        body = self.mod[func_name].body
        # Producers left outside the loop must run before it, consumers after it.
        order = _program_order(body)
        start, end = order[id(target)]
        for r in producers(body, bpath):
            if not start <= order[id(r)][0] < end and order[id(r)][0] > start:
                raise self._error(primitive, f"The producer {r.block.name_hint!r} of block "
                                  f"{blk.name_hint!r} runs after loop {target.loop_var.name}",
                                  [target, r.block])
        for r in consumers(body, bpath):
            if not start <= order[id(r)][0] < end and order[id(r)][0] < start:
                raise self._error(primitive, f"The consumer {r.block.name_hint!r} of block "
                                  f"{blk.name_hint!r} runs before loop {target.loop_var.name}",
                                  [target, r.block])
        ana = Analyzer()
        outer = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent)
                 for lp in lpath if isinstance(lp, For)}
        for var, rng in outer.items():
            ana.bind(var, rng)
        # Loop variables with one iteration are their minimum (TVM's simplifier folds them).
        unit = {v: r.min for v, r in outer.items() if getattr(r.extent, "value", None) == 1}
        if regions is None:
            doms = [(None, None)] * len(blk.iter_vars)
        else:
            provided, required = regions
            required = {k: [[tuple(ana.simplify(substitute(b, unit)) for b in dim)
                             for dim in reg] for reg in regs] for k, regs in required.items()}
            try:
                doms = solve_block_var_domains(blk, provided, required, ana)
            except DomainSolveError as err:
                raise self._error(primitive, f"Cannot solve the iteration domain of block "
                                  f"{blk.name_hint!r}: {err}", [blk]) from None
        loops, values, conds = [], [], []
        for iv, (dom, guard) in zip(blk.iter_vars, doms):
            if dom is None:
                lo, ext = iv.dom.min, iv.dom.extent
            else:
                lo, hi = dom
                ext = ana.simplify(hi - lo + 1)
            ext = ana.simplify(ext)
            if not preserve_unit_loops and getattr(ext, "value", None) == 1:
                value = ana.simplify(lo)
            else:
                var = Var(f"ax{len(loops)}", iv.var.dtype)
                loops.append((var, ext))
                ana.bind(var, Range.from_min_extent(const(0, var.dtype), ext))
                value = ana.simplify(lo + var)
                if getattr(ext, "value", None) == 1:
                    unit[var] = const(0, var.dtype)
            values.append(value)
            if guard is not None:
                bmin, bmax = guard
                value = ana.simplify(substitute(value, unit))
                # As TVM: guard each side the region can overhang (unless provably inside).
                if not ana.can_prove(value >= bmin):
                    conds.append(_compare(GE, value, bmin, ana))
                if not ana.can_prove(value < bmax + 1):
                    conds.append(_compare(LT, value, ana.simplify(bmax + 1), ana))
        pred = None
        for cond in conds:
            pred = cond if pred is None else And(pred, cond)
        nest = SBlockRealize(values, const(True, "bool") if pred is None else pred, blk)
        for var, ext in reversed(loops):
            nest = For(var, const(0, var.dtype), ext, ForKind.SERIAL, nest)
        items = seq_of(target.body)
        inside = [{id(x) for x in _subtree(s)} for s in items]
        # Valid positions: after every producer, before every consumer of the moved block.
        prods, cons = related
        lo_pos = max((i + 1 for i, ids in enumerate(inside) if any(id(r) in ids for r in prods)),
                     default=0)
        hi_pos = min((i for i, ids in enumerate(inside) if any(id(r) in ids for r in cons)),
                     default=len(items))
        if lo_pos > hi_pos:
            raise self._error(primitive, f"No position under loop {target.loop_var.name} is "
                              f"after the producers and before the consumers of block "
                              f"{blk.name_hint!r}", [target, blk])
        if index == -1:
            pos = hi_pos
        elif index == -2:
            pos = lo_pos
        elif lo_pos <= index <= hi_pos:
            pos = index
        else:
            raise self._error(primitive, f"index {index} is not a valid insertion point; valid "
                              f"positions are {lo_pos}..{hi_pos} (or -1 / -2)", [target])
        items.insert(pos, nest)
        new_loop = target.replace(body=make_seq(items))
        body = self.mod[func_name].body
        self._commit(func_name, replace_stmts(body, {id(realize): None, id(target): new_loop}))

    def _deps_under(self, target, deps, blk, role, prim):
        """``(realize, path)`` of the ``deps`` (``role``: consumer/producer of ``blk``) under
        loop ``target``; all of them must be there."""
        under = [(r, p) for r, p in iter_blocks(target) if any(r is c for c in deps)]
        if deps and not under:
            raise self._error(
                prim, f"The primitive requires all the {role}(s) of the given block to be "
                f"under the target loop: the loop {target.loop_var.name} is not an ancestor of "
                f"any {role} of block {blk.name_hint!r}", [target, blk])
        if len(under) != len(deps):
            raise self._error(
                prim, f"The primitive requires all the {role}(s) of the given block to be "
                f"under the target loop: {len(deps) - len(under)} {role}(s) of block "
                f"{blk.name_hint!r} are not under loop {target.loop_var.name}", [target, blk])
        return under

    def compute_at(self, block: SBlockRV | str, loop, preserve_unit_loops: bool = False,
                   index: int = -1) -> None:
        """Move a producer block under ``loop``, computing what each iteration's consumers
        need."""
        block = self._as_block(block)
        prim = "compute_at"
        if self._at_mark(block, loop, prim, preserve_unit_loops, index):
            return
        func_name, bpath, lpath, realize, target = self._at_common(block, loop, prim)
        blk = realize.block
        body = self.mod[func_name].body
        if len(blk.writes) != 1:
            raise self._error(prim, f"The block {blk.name_hint!r} must write exactly one buffer",
                              [blk])
        scope = enclosing_block(bpath)
        allocated = {id(b) for b in scope.alloc_buffers} if scope is not None else set()
        if any(id(w.buffer) not in allocated for w in blk.writes):
            raise self._error(prim, f"Cannot operate on an output block: the block "
                              f"{blk.name_hint!r} is an output block (it writes a buffer its "
                              "scope block does not allocate)", [blk])
        cons = consumers(body, bpath)
        under = self._deps_under(target, cons, blk, "consumer", prim)
        regions = None
        if under:  # without consumers the whole domain is computed, as in TVM
            regions = self._regions(blk.writes, under, "reads", lpath, True)
        prods = [r for r, _ in iter_blocks(target)
                 if any(r is c for c in producers(body, bpath))]
        self._place(func_name, bpath, lpath, realize, regions,
                    (prods, [r for r, _ in under]), index, prim, preserve_unit_loops)
        self._record(prim, kwargs={"block": block, "loop": loop,
                                   "preserve_unit_loops": preserve_unit_loops, "index": index})

    def reverse_compute_at(self, block: SBlockRV | str, loop, preserve_unit_loops: bool = False,
                           index: int = -1) -> None:
        """Move a consumer block under ``loop``, consuming what each iteration produces."""
        block = self._as_block(block)
        prim = "reverse_compute_at"
        if self._at_mark(block, loop, prim, preserve_unit_loops, index):
            return
        func_name, bpath, lpath, realize, target = self._at_common(block, loop, prim)
        blk = realize.block
        body = self.mod[func_name].body
        prods = producers(body, bpath)
        under = self._deps_under(target, prods, blk, "producer", prim)
        regions = None
        if under:  # without producers the whole domain is computed, as in TVM
            regions = self._regions(blk.reads, under, "writes", lpath, False)
        cons = [r for r, _ in iter_blocks(target)
                if any(r is c for c in consumers(body, bpath))]
        self._place(func_name, bpath, lpath, realize, regions,
                    ([r for r, _ in under], cons), index, prim, preserve_unit_loops)
        self._record(prim, kwargs={"block": block, "loop": loop,
                                   "preserve_unit_loops": preserve_unit_loops, "index": index})

    def _at_mark(self, block, loop, prim, preserve_unit_loops, index):
        """Handle a location mark of ``sample_compute_location`` as TVM: "root" leaves the
        block in place, "inline" inlines it. Returns whether ``loop`` was a mark."""
        mark = self._location_mark(loop)
        if mark is None:
            return False
        if mark == "compute-inline":
            before = len(self._trace)
            if prim == "compute_at":
                self.compute_inline(block)
            else:
                self.reverse_compute_inline(block)
            while len(self._trace) > before:  # recorded as this primitive, below
                self._trace.pop()
        self._record(prim, kwargs={"block": block, "loop": loop,
                                   "preserve_unit_loops": preserve_unit_loops, "index": index})
        return True

    def _regions(self, accesses, under, field_name, lpath, relax_storage):
        """``(provided, required)`` for :func:`solve_block_var_domains`: the moved block's
        ``accesses`` per buffer, and the ``reads``/``writes`` regions of the blocks ``under``
        the loop on those buffers, relaxed over the loops between the loop and each block.

        As in TVM, ``compute_at`` (``relax_storage``) also relaxes the loops bound to threads
        that share a buffer's storage (``threadIdx`` for ``shared``; none for ``global``),
        even above the loop.
        """
        ana = Analyzer()
        provided, required = {}, {}
        for acc in accesses:
            dims = [(r.min, ana.simplify(r.min + r.extent - 1)) for r in acc.region]
            provided.setdefault(id(acc.buffer), (acc.buffer, []))[1].append(dims)
        for realize, path in under:
            inner = [n for n in path if isinstance(n, For)][1:]
            for reg in getattr(realize.block, field_name):
                if id(reg.buffer) not in provided:
                    continue
                shared = [lp for lp in lpath if isinstance(lp, For) and relax_storage
                          and _relax_for_storage(lp, reg.buffer.scope())]
                got = _relaxed_region(reg, realize, shared + inner, ana)
                required.setdefault(id(reg.buffer), []).append(got)
        return provided, required


def _overhang_predicate(prod, guards):
    """The producer's predicate with ``expr < extent`` added for each guard that can exceed
    its extent (an over-computing producer), in the producer's loop variables; None when
    nothing is added."""
    ana = Analyzer()
    blk = prod.block
    binding = {iv.var: v for iv, v in zip(blk.iter_vars, prod.iter_values)}
    dom = {iv.var: iv.dom for iv in blk.iter_vars}
    conds = []
    for expr, ext in guards:
        hi = ana.int_set(expr, dom).max_value
        if hi is not None and ana.can_prove(hi < ext):
            continue
        value = ana.simplify(substitute(expr, binding))
        bound = const(ext, value.dtype) if isinstance(ext, int) else ext
        conds.append(LT(value, bound))
    if not conds:
        return None
    pred = prod.predicate
    if getattr(pred, "value", None) == 1:
        pred = None
    have = _conjuncts(pred) if pred is not None else []
    for cond in conds:
        if any(structural_equal(cond, c) for c in have):
            continue  # the producer already guards it
        pred = cond if pred is None else And(pred, cond)
    return pred


def _conjuncts(expr):
    if isinstance(expr, And):
        return _conjuncts(expr.a) + _conjuncts(expr.b)
    return [expr]


def _program_order(root):
    """``{id(node): (first, end)}``: pre-order number of each statement, and the number after
    its subtree's last (so the subtree is ``first <= n < end``)."""
    order, counter = {}, [0]
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order[id(node)] = (order[id(node)][0], counter[0])
            continue
        order[id(node)] = (counter[0], None)
        counter[0] += 1
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(children(node)))
    return order


def _subtree(stmt):
    return [r for r, _ in iter_blocks(stmt)]

