"""Padding primitives: ``decompose_padding`` and ``can_decompose_padding``.

A padding block stores ``T.if_then_else(cond, value, pad)`` at its iteration variables, where
``cond`` is a conjunction of constant bounds on them (``v_x >= 1 and v_x < 10``). It is split
into ``<name>_pad_const`` (``pad`` everywhere) and the original block restricted to the
in-bound range, without the condition. The loops from the given one down are copied for the
first block and narrowed for the second.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx.expr import GE, GT, LE, LT, And, Call, IntImm, Var
from ...tirx.generic import const
from ...tirx.stmt import BufferRegion, BufferStore, For, IterVar, SBlock, SBlockRealize
from ...tirx.stmt_functor import substitute
from ..access_region import infer_sblock_regions
from .base import SBlockRV
from .error import ScheduleError
from .loops import uses_var
from .state import make_seq, replace_stmts

__all__ = ["PaddingPrimitives"]


def _conjuncts(cond):
    if isinstance(cond, And):
        return _conjuncts(cond.a) + _conjuncts(cond.b)
    return [cond]


def _bounds(cond, ivars):
    """``{id(var): [lo, hi)}`` from constant comparisons, or ``None`` if ``cond`` has others."""
    out = {id(v): [None, None] for v in ivars}
    for c in _conjuncts(cond):
        if not isinstance(c, (LT, LE, GT, GE)):
            return None
        a, b, cls = c.a, c.b, type(c)
        if isinstance(b, Var) and isinstance(a, IntImm):
            # Mirror ``k < v`` into ``v > k``.
            a, b = b, a
            cls = {LT: GT, LE: GE, GT: LT, GE: LE}[cls]
        if not (isinstance(a, Var) and id(a) in out and isinstance(b, IntImm)):
            return None
        lo_hi = out[id(a)]
        if cls is GE:
            lo_hi[0] = b.value if lo_hi[0] is None else max(lo_hi[0], b.value)
        elif cls is GT:
            lo_hi[0] = b.value + 1 if lo_hi[0] is None else max(lo_hi[0], b.value + 1)
        elif cls is LT:
            lo_hi[1] = b.value if lo_hi[1] is None else min(lo_hi[1], b.value)
        else:
            lo_hi[1] = b.value + 1 if lo_hi[1] is None else min(lo_hi[1], b.value + 1)
    return out


class PaddingPrimitives:
    """Mixin: split padding from data movement."""

    def can_decompose_padding(self, block: SBlockRV, loop) -> bool:
        """Whether ``decompose_padding(block, loop)`` would apply (nothing is changed)."""
        block = self._as_block(block)
        try:
            self._decompose_padding_plan(block, loop)
        except ScheduleError:
            return False
        return True

    def decompose_padding(self, block: SBlockRV | str, loop) -> SBlockRV:
        """Split a padding block into a constant fill (returned) and an in-bound copy."""
        block = self._as_block(block)
        func_name, target, pad_nest, data_nest, pad_name = self._decompose_padding_plan(
            block, loop)
        body = self.mod[func_name].body
        self._commit(func_name, replace_stmts(body, {id(target): make_seq([pad_nest,
                                                                          data_nest])}))
        rv = self._new_rv(SBlockRV, func_name, pad_name)
        self._record("decompose_padding", kwargs={"block": block, "loop": loop}, outputs=[rv])
        return rv

    def _decompose_padding_plan(self, block, loop):
        prim = "decompose_padding"
        func_name, bpath = self._block(block, prim)
        lfunc, lpath = self._loop(loop, prim)
        realize, target = bpath[-1], lpath[-1]
        blk = realize.block
        if lfunc != func_name or not any(n is target for n in bpath):
            raise self._error(prim, f"The loop {target.loop_var.name} is not an ancestor of "
                              f"block {blk.name_hint!r}", [target, blk])
        store = blk.body if isinstance(blk.body, BufferStore) else None
        value = store.value if store is not None else None
        if (blk.init is not None or store is None or not isinstance(value, Call)
                or getattr(value.op, "name", "") != "tirx.if_then_else"):
            raise self._error(prim, f"The block {blk.name_hint!r} is not a padding block: its "
                              "body must store T.if_then_else(cond, value, pad) with no init",
                              [blk])
        cond, data, pad = value.args
        ivars = [iv.var for iv in blk.iter_vars]
        bounds = _bounds(cond, ivars)
        if bounds is None or any(uses_var(pad, v) for v in ivars):
            raise self._error(prim, f"The padding condition {cond} of block {blk.name_hint!r} "
                              "must be constant bounds on its iteration variables, and the pad "
                              "value must not depend on them", [blk])
        nest, node = [], target
        while isinstance(node, For):
            nest.append(node)
            node = node.body
        if node is not realize:
            raise self._error(prim, f"The loops from {target.loop_var.name} down to block "
                              f"{blk.name_hint!r} must form a single chain", [target, blk])
        loop_of = {}
        for iv, v in zip(blk.iter_vars, realize.iter_values):
            used = [lp for lp in nest if uses_var(v, lp.loop_var)]
            if used and (len(used) > 1 or v is not used[0].loop_var):
                raise self._error(prim, f"The binding {v} of {iv.var.name} must be a single "
                                  "loop variable to be narrowed", [blk])
            if used:
                loop_of[id(used[0])] = iv
        ana = Analyzer()
        # Constant fill: the same nest over new loop variables.
        lmap = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in nest}
        pad_ivs = [IterVar(iv.dom, Var(iv.var.name, iv.var.dtype), iv.iter_type)
                   for iv in blk.iter_vars]
        vmap = {iv.var: n.var for iv, n in zip(blk.iter_vars, pad_ivs)}
        pad_store = BufferStore(store.buffer, pad, [substitute(i, vmap) for i in store.indices])
        pad_name = self._unique_block_name(func_name, f"{blk.name_hint}_pad_const")
        pad_blk = SBlock(pad_ivs, [], [BufferRegion.from_point(store.buffer,
                                                               pad_store.indices)],
                         pad_name, pad_store)
        pad_nest = SBlockRealize([substitute(v, lmap) for v in realize.iter_values],
                                 substitute(realize.predicate, lmap),
                                 pad_blk)
        for lp in reversed(nest):
            pad_nest = lp.replace(loop_var=lmap[lp.loop_var], body=pad_nest)
        # In-bound copy: each bounded iterator re-based to 0 over [lo, hi).
        new_ivs, shift = [], {}
        for iv in blk.iter_vars:
            lo, hi = bounds[id(iv.var)]
            dom_lo = iv.dom.min.value if isinstance(iv.dom.min, IntImm) else None
            dom_hi = (dom_lo + iv.dom.extent.value
                      if dom_lo is not None and isinstance(iv.dom.extent, IntImm) else None)
            lo = dom_lo if lo is None else max(lo, dom_lo if dom_lo is not None else lo)
            hi = dom_hi if hi is None else min(hi, dom_hi if dom_hi is not None else hi)
            if lo is None or hi is None or (lo, hi) == (dom_lo, dom_hi):
                new_ivs.append(iv)
                continue
            new = IterVar(Range.from_min_extent(const(0, iv.var.dtype),
                                                const(hi - lo, iv.var.dtype)),
                          Var(iv.var.name, iv.var.dtype), iv.iter_type)
            new_ivs.append(new)
            shift[iv.var] = new.var + lo if lo else new.var
        data_store = BufferStore(store.buffer, ana.simplify(substitute(data, shift)),
                                 [ana.simplify(substitute(i, shift)) for i in store.indices])
        data_blk = SBlock(new_ivs, [], [], blk.name_hint, data_store,
                          alloc_buffers=blk.alloc_buffers, annotations=blk.annotations)
        reads, writes = infer_sblock_regions(data_blk)
        data_blk = data_blk.replace(reads=tuple(reads), writes=tuple(writes))
        data_nest = SBlockRealize(realize.iter_values, realize.predicate, data_blk)
        for lp in reversed(nest):
            iv = loop_of.get(id(lp))
            new = None if iv is None else next(
                n for o, n in zip(blk.iter_vars, new_ivs) if o is iv)
            if new is not None and new is not iv:
                if not ana.can_prove_equal(lp.extent, iv.dom.extent):
                    raise self._error(prim, f"The loop {lp.loop_var.name} must span the whole "
                                      f"domain of {iv.var.name} to be narrowed", [lp, blk])
                lp = lp.replace(extent=new.dom.extent)
            data_nest = lp.replace(body=data_nest)
        return func_name, target, pad_nest, data_nest, pad_name
