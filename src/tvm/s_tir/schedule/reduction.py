"""Reduction primitives: ``decompose_reduction`` and ``rfactor``.

``rfactor`` recognises the reducers ``x + e``, ``x * e``, ``max(x, e)`` and ``min(x, e)``
(the accumulator load on either side) in a block whose body is a single ``BufferStore``.
"""

from __future__ import annotations

from ...ffi.structural import structural_equal
from ...ir.expr import Range
from ...tirx.expr import Add, And, IntImm, Max, Min, Mul, Var
from ...tirx.generic import const
from ...tirx.stmt import (
    BufferLoad,
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    IterVar,
    SBlock,
    SBlockRealize,
)
from ...tirx.stmt_functor import substitute
from ..access_region import infer_sblock_regions
from .base import SBlockRV
from .lookup import block_loops, child_realizes, enclosing_block
from .loops import uses_var
from .state import make_seq, new_buffer, replace_stmts

__all__ = ["ReductionPrimitives"]


def _fresh_iter(iv, name=None, dom=None, kind=None):
    return IterVar(dom if dom is not None else iv.dom, Var(name or iv.var.name, iv.var.dtype),
                   iv.iter_type if kind is None else kind)


def _conjuncts(pred):
    if isinstance(pred, And):
        return _conjuncts(pred.a) + _conjuncts(pred.b)
    return [] if _is_true(pred) else [pred]


def _is_true(pred):
    return isinstance(pred, IntImm) and pred.value == 1


def _subst_region(region, vmap):
    return BufferRegion(region.buffer,
                        [Range.from_min_extent(substitute(r.min, vmap), substitute(r.extent, vmap))
                         for r in region.region])


def _reducer(store):
    """``(combine(a, b), rhs)`` of ``buf[idx] = buf[idx] op rhs``, or ``None``."""
    value = store.value
    for cls, fn in ((Add, lambda a, b: a + b), (Mul, lambda a, b: a * b),
                    (Max, Max), (Min, Min)):
        if type(value) is not cls:
            continue
        for acc, rhs in ((value.a, value.b), (value.b, value.a)):
            if (isinstance(acc, BufferLoad) and acc.buffer is store.buffer
                    and len(acc.indices) == len(store.indices)
                    and all(x is y or str(x) == str(y)
                            for x, y in zip(acc.indices, store.indices))):
                return fn, rhs
    return None


def _identity_of(value, dtype):
    """The identity element of the reduction ``value`` (an Add/Mul/Max/Min) in ``dtype``."""
    from ...tirx.op import max_value, min_value  # Lazy: only rfactor's checks need them.

    if isinstance(value, Add):
        return 0
    if isinstance(value, Mul):
        return 1
    if isinstance(value, Max):
        return min_value(dtype).value
    return max_value(dtype).value


def _check_rfactor_block(sch, prim, blk, store, target):
    """rfactor's preconditions beyond the `C[...] = C[...] op value` shape (as TVM's)."""
    if target.kind != ForKind.SERIAL:
        raise sch._error(prim, f"The loop {target.loop_var.name} to be rfactor-ed must be a "
                         f"serial loop, but it is {target.kind.name.lower()}", [target])
    init = blk.init
    if not (isinstance(init, BufferStore) and init.buffer is store.buffer
            and structural_equal(list(init.indices), list(store.indices))):
        raise sch._error(prim, f"The init of block {blk.name_hint!r} must be a single "
                         f"BufferStore to the element the update writes "
                         f"({store.buffer.name}[{', '.join(map(str, store.indices))}])", [blk])
    init_value = getattr(init.value, "value", None)
    if init_value is None or init_value != _identity_of(store.value, store.buffer.dtype):
        raise sch._error(prim, f"The init value {init.value} of block {blk.name_hint!r} is not "
                         "the identity element of its reduction", [blk])
    reduce_vars = {id(iv.var) for iv in blk.iter_vars if iv.iter_type == IterVar.CommReduce}
    for index in store.indices:
        if any(uses_var(index, iv.var) for iv in blk.iter_vars if id(iv.var) in reduce_vars):
            raise sch._error(prim, f"The block {blk.name_hint!r} writes "
                             f"{store.buffer.name} at an index that uses a reduction iteration "
                             "variable; it is not a reduction block", [blk])


def _check_rfactor_loops(sch, prim, blk, realize, loops):
    """TVM: the block's bindings are affine over its loops, and no loop drives both a
    data-parallel and a reduction iterator."""
    from .loops import _affine  # Lazy: the binding check lives with reorder's.

    if not _affine(realize, loops):
        raise sch._error(prim, f"The block {blk.name_hint!r} is required to have an affine "
                         "binding (its bindings are not splits of fused loops)", [blk])
    kinds = {}
    for iv, value in zip(blk.iter_vars, realize.iter_values):
        for lp in loops:
            if uses_var(value, lp.loop_var):
                kinds.setdefault(id(lp), set()).add(iv.iter_type)
    for lp in loops:
        if {IterVar.DataPar, IterVar.CommReduce} <= kinds.get(id(lp), set()):
            raise sch._error(
                prim, f"The loop {lp.loop_var.name} is touched by both data parallel and "
                f"reduction iterators of block {blk.name_hint!r}; rfactor needs each loop to "
                "drive one kind", [lp, blk])


def _check_stage_pipeline(sch, prim, body, bpath):
    """TVM's *stage pipeline* property of the block's scope: every region a block reads of a
    buffer other blocks of the scope write is covered by what they write."""
    from ...arith import Analyzer  # Lazy: only this check relaxes regions.
    from .lookup import scope_blocks
    from .state import iter_blocks, relax_region

    ana = Analyzer()
    scope = scope_blocks(body, bpath)
    paths = {id(r): p for r, p in iter_blocks(body) if any(r is x for x in scope)}

    def bounds(realize, region):
        loops = [n for n in paths[id(realize)] if isinstance(n, For)]
        vmap = {iv.var: v for iv, v in zip(realize.block.iter_vars, realize.iter_values)}
        dom = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent) for lp in loops}
        return relax_region(region, vmap, dom, ana)

    written = {}
    for r in scope:
        for w in r.block.writes:
            got = bounds(r, w)
            old = written.get(id(w.buffer))
            written[id(w.buffer)] = got if old is None else [
                (ana.simplify(_min(a, c)), ana.simplify(_max(b, d)))
                for (a, b), (c, d) in zip(old, got)]
    for r in scope:
        for rd in r.block.reads:
            cover = written.get(id(rd.buffer))
            if cover is None or any(w.buffer is rd.buffer for w in r.block.writes):
                continue
            for dim, ((lo, hi), (clo, chi)) in enumerate(zip(bounds(r, rd), cover)):
                # A predicated tail (a split of 3 by 2) relaxes past the buffer; the predicate
                # keeps those reads from running, so only the in-bounds part must be covered.
                lo = ana.simplify(_max(lo, IntImm(lo.dtype, 0)))
                hi = ana.simplify(_min(hi, rd.buffer.shape[dim] - 1))
                if not (ana.can_prove(clo <= lo) and ana.can_prove(hi <= chi)):
                    raise sch._error(
                        prim, "The scope is required to be a stage pipeline: block "
                        f"{r.block.name_hint!r} reads {rd.buffer.name} outside the region the "
                        "other blocks write", [r.block])


def _min(a, b):
    from ...tirx.generic import min as gmin  # Lazy: only region unions need it.

    return gmin(a, b)


def _max(a, b):
    from ...tirx.generic import max as gmax  # Lazy: only region unions need it.

    return gmax(a, b)


class ReductionPrimitives:
    """Mixin: split the init out of a reduction, factor a reduction loop out."""

    def decompose_reduction(self, block: SBlockRV | str, loop) -> SBlockRV:
        """Move the block's ``init`` into a block ``<name>_init`` placed before ``loop``.

        The original block becomes ``<name>_update``; the loops from ``loop`` down that only
        drive spatial iteration variables are copied (as ``<loop>_init``) around the init block.
        """
        block = self._as_block(block)
        prim = "decompose_reduction"
        func_name, bpath = self._block(block, prim)
        lfunc, lpath = self._loop(loop, prim)
        realize, target = bpath[-1], lpath[-1]
        blk = realize.block
        if blk.init is None:
            raise self._error(prim, f"The block {blk.name_hint!r} has no init statement, so it "
                              "is not a reduction block that can be decomposed", [blk])
        if lfunc != func_name or not any(n is target for n in bpath):
            raise self._error(prim, f"The loop {target.loop_var.name} is not an ancestor of "
                              f"block {blk.name_hint!r}", [target, blk])
        loops = block_loops(bpath)
        at = next(i for i, lp in enumerate(loops) if lp is target)
        nest = loops[at:]
        reduce_binds = [v for iv, v in zip(blk.iter_vars, realize.iter_values)
                        if iv.iter_type != IterVar.DataPar]
        above = [lp for lp in loops[:at] if any(uses_var(v, lp.loop_var) for v in reduce_binds)]
        if above:
            raise self._error(
                prim, f"The loop {above[0].loop_var.name} above loop {target.loop_var.name} "
                f"drives a reduction iteration variable of block {blk.name_hint!r}; "
                "decompose_reduction needs every reduction loop under the given loop (the "
                "init would otherwise run on every iteration)", [above[0], target, blk])
        spatial = [(iv, v) for iv, v in zip(blk.iter_vars, realize.iter_values)
                   if iv.iter_type == IterVar.DataPar]
        reduce_vals = [v for iv, v in zip(blk.iter_vars, realize.iter_values)
                       if iv.iter_type != IterVar.DataPar]
        kept, vmap = [], {}
        for lp in nest:
            in_s = any(uses_var(v, lp.loop_var) for _, v in spatial)
            in_r = any(uses_var(v, lp.loop_var) for v in reduce_vals)
            if in_s and in_r:
                raise self._error(prim, f"The loop {lp.loop_var.name} drives both spatial and "
                                  "reduction iteration variables; decompose_reduction cannot "
                                  "separate them", [lp, blk])
            if in_s:
                new_var = Var(f"{lp.loop_var.name}_init", lp.loop_var.dtype)
                vmap[lp.loop_var] = new_var
                binding = lp.thread_binding
                if binding is not None:
                    # Each loop has its own thread IterVar (as parsed loops do).
                    binding = binding.replace(var=Var(binding.var.name, binding.var.dtype))
                kept.append(lp.replace(loop_var=new_var, thread_binding=binding))
        # The init keeps the predicate's conjuncts that do not involve the dropped loops.
        kept_ids = {id(v) for v in vmap}
        dropped = [lp.loop_var for lp in nest if id(lp.loop_var) not in kept_ids]
        conds = [c for c in _conjuncts(realize.predicate)
                 if not any(uses_var(c, v) for v in dropped)]
        init_pred = conds[0] if conds else const(True, "bool")
        for c in conds[1:]:
            init_pred = And(init_pred, c)
        new_ivs = [_fresh_iter(iv) for iv, _ in spatial]
        ivmap = {iv.var: n.var for (iv, _), n in zip(spatial, new_ivs)}
        init_body = substitute(blk.init, ivmap)
        init_name = self._unique_block_name(func_name, f"{blk.name_hint}_init")
        init_blk = SBlock(new_ivs, [], [_subst_region(w, ivmap) for w in blk.writes], init_name,
                          init_body, annotations=blk.annotations)
        init_stmt = SBlockRealize([substitute(v, vmap) for _, v in spatial],
                                  substitute(init_pred, vmap), init_blk)
        for lp in reversed(kept):
            init_stmt = lp.replace(body=init_stmt)
        update_name = self._unique_block_name(func_name, f"{blk.name_hint}_update")
        have = {id(r.buffer) for r in blk.reads}
        reads = tuple(w for w in blk.writes if id(w.buffer) not in have) + tuple(blk.reads)
        new_blk = blk.replace(init=None, name_hint=update_name, reads=reads)
        new_loop = replace_stmts(target, {id(blk): new_blk})
        body = self.mod[func_name].body
        self._commit(func_name, replace_stmts(body, {id(target): make_seq([init_stmt,
                                                                            new_loop])}))
        self._rename_block(func_name, blk.name_hint, update_name)
        rv = self._new_rv(SBlockRV, func_name, init_name)
        self._record(prim, kwargs={"block": block, "loop": loop}, outputs=[rv])
        return rv

    def rfactor(self, loop, factor_axis: int) -> SBlockRV:
        """Factor the reduction over ``loop`` into a new block ``<name>_rf`` that writes
        partial results to ``<buffer>_rf`` (the loop's extent inserted at ``factor_axis``); the
        original block then reduces ``<buffer>_rf`` over that axis."""
        prim = "rfactor"
        func_name, lpath = self._loop(loop, prim)
        target = lpath[-1]
        realizes = child_realizes(target)
        if len(realizes) != 1:
            raise self._error(prim, f"The loop {target.loop_var.name} must contain exactly one "
                              f"block to be rfactor-ed, found {len(realizes)}", [target])
        realize = realizes[0]
        blk = realize.block
        store = blk.body if isinstance(blk.body, BufferStore) else None
        red = _reducer(store) if store is not None and blk.init is not None else None
        if red is None:
            raise self._error(prim, f"The block {blk.name_hint!r} is not a reduction block of "
                              "the form `C[...] = C[...] op value` (op: +, *, max, min) with an "
                              "init statement", [blk])
        combine, rhs = red
        _check_rfactor_block(self, prim, blk, store, target)
        rvar = target.loop_var
        bound = [(iv, v) for iv, v in zip(blk.iter_vars, realize.iter_values)
                 if uses_var(v, rvar)]
        if not bound or any(iv.iter_type != IterVar.CommReduce for iv, _ in bound):
            raise self._error(prim, f"The loop {rvar.name} must drive only reduction iteration "
                              f"variables of block {blk.name_hint!r}", [target, blk])
        _, bpath = self._block_path_of(func_name, realize)
        loops = block_loops(bpath)
        _check_rfactor_loops(self, prim, blk, realize, loops)
        _check_stage_pipeline(self, prim, self.mod[func_name].body, bpath)
        buf = store.buffer
        ndim = len(buf.shape)
        if not isinstance(factor_axis, int) or not -ndim - 1 <= factor_axis <= ndim:
            raise self._error(prim, f"factor_axis {factor_axis} is out of range for a "
                              f"{ndim + 1}-d rfactor buffer", [blk])
        axis = factor_axis if factor_axis >= 0 else factor_axis + ndim + 1
        rf_shape = list(buf.shape)
        rf_shape.insert(axis, target.extent)
        rf_buf = new_buffer(rf_shape, buf.dtype, f"{buf.name}_rf", buf.scope())
        # rf block: a spatial var for the rf loop, other loops of the rfactor-ed iters as vars.
        rf_iv = IterVar(Range.from_min_extent(target.min, target.extent),
                        Var(f"v{rvar.name}", rvar.dtype), IterVar.DataPar)
        ivs, values, vmap = [rf_iv], [rvar], {}
        loop_of = {lp.loop_var: lp for lp in loops}
        for iv, v in zip(blk.iter_vars, realize.iter_values):
            if not uses_var(v, rvar):
                new = _fresh_iter(iv)
                ivs.append(new)
                values.append(v)
                vmap[iv.var] = new.var
                continue
            lmap = {rvar: rf_iv.var}
            for lv, lp in loop_of.items():
                if lv is not rvar and uses_var(v, lv):
                    new = IterVar(Range.from_min_extent(lp.min, lp.extent),
                                  Var(f"v{lv.name}", lv.dtype), IterVar.CommReduce)
                    ivs.append(new)
                    values.append(lv)
                    lmap[lv] = new.var
            vmap[iv.var] = substitute(v, lmap)
        rf_idx = [substitute(i, vmap) for i in store.indices]
        rf_idx.insert(axis, rf_iv.var)
        rf_load = BufferLoad(rf_buf, rf_idx)
        rf_body = BufferStore(rf_buf, combine(rf_load, substitute(rhs, vmap)), rf_idx)
        rf_init = BufferStore(rf_buf, substitute(blk.init.value, vmap), rf_idx)
        rf_name = self._unique_block_name(func_name, f"{blk.name_hint}_rf")
        rf_blk = SBlock(ivs, [], [BufferRegion.from_point(rf_buf, rf_idx)], rf_name, rf_body,
                        init=rf_init, annotations=blk.annotations)
        reads, _ = infer_sblock_regions(rf_blk, exclude_written_from_reads=True)
        rf_blk = rf_blk.replace(reads=tuple(reads))
        rf_realize = SBlockRealize(values, realize.predicate, rf_blk)
        # Write-back block: reduce the rf buffer over the rf axis.
        scope = enclosing_block(bpath)
        top = self._exclusive_top(bpath, realize, loops)
        wb_loops, wmap = [], {}
        for lp in loops[next(i for i, n in enumerate(loops) if n is top):]:
            used = lp.loop_var is rvar or any(
                uses_var(v, lp.loop_var) for iv, v in zip(blk.iter_vars, realize.iter_values)
                if iv.iter_type == IterVar.DataPar)
            if used:
                nv = Var(lp.loop_var.name, lp.loop_var.dtype)
                wmap[lp.loop_var] = nv
                wb_loops.append(lp.replace(loop_var=nv))
        wb_rf = IterVar(rf_iv.dom, Var(rf_iv.var.name, rvar.dtype), IterVar.CommReduce)
        wb_ivs, wb_vals, wvmap = [wb_rf], [wmap[rvar]], {}
        for iv, v in zip(blk.iter_vars, realize.iter_values):
            if iv.iter_type == IterVar.DataPar:
                new = _fresh_iter(iv)
                wb_ivs.append(new)
                wb_vals.append(substitute(v, wmap))
                wvmap[iv.var] = new.var
        wb_idx = [substitute(i, wvmap) for i in store.indices]
        rf_read_idx = list(wb_idx)
        rf_read_idx.insert(axis, wb_rf.var)
        wb_body = BufferStore(buf, combine(BufferLoad(buf, wb_idx), BufferLoad(rf_buf,
                                                                               rf_read_idx)),
                              wb_idx)
        wb_blk = SBlock(wb_ivs, [BufferRegion.from_point(rf_buf, rf_read_idx)],
                        [BufferRegion.from_point(buf, wb_idx)], blk.name_hint, wb_body,
                        init=BufferStore(buf, substitute(blk.init.value, wvmap), wb_idx),
                        annotations=blk.annotations)
        # The write-back keeps the predicate's conjuncts over the loops it copies.
        top_at = next(i for i, n in enumerate(loops) if n is top)
        kept_ids = {id(v) for v in wmap}
        dropped = [lp.loop_var for lp in loops[top_at:] if id(lp.loop_var) not in kept_ids]
        conds = [substitute(c, wmap) for c in _conjuncts(realize.predicate)
                 if not any(uses_var(c, v) for v in dropped)]
        wb_pred = conds[0] if conds else const(True, "bool")
        for c in conds[1:]:
            wb_pred = And(wb_pred, c)
        wb_stmt = SBlockRealize(wb_vals, wb_pred, wb_blk)
        for lp in reversed(wb_loops):
            wb_stmt = lp.replace(body=wb_stmt)
        new_top = replace_stmts(top, {id(realize): rf_realize})
        # The write-back nest follows the rf nest (in the sequence holding it, or a new one).
        new_scope = replace_stmts(scope, {id(top): make_seq([new_top, wb_stmt])})
        new_scope = new_scope.replace(alloc_buffers=tuple(new_scope.alloc_buffers) + (rf_buf,))
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(scope): new_scope}))
        rv = self._new_rv(SBlockRV, func_name, rf_name)
        self._record(prim, kwargs={"loop": loop, "factor_axis": factor_axis}, outputs=[rv])
        return rv

    def _block_path_of(self, func_name, realize):
        from .state import find_path  # Lazy: keeps this module's imports to what it uses most.

        return func_name, find_path(self.mod[func_name].body, lambda n: n is realize)

    def _exclusive_top(self, bpath, realize, loops):
        """The outermost loop above ``realize`` whose subtree holds no other block."""
        top = loops[-1]
        for lp in reversed(loops):
            found = child_realizes(lp)
            if len(found) == 1 and found[0] is realize:
                top = lp
            else:
                break
        return top
