"""``blockize``: turn the loop nest under a loop into an outer block ``<name>_o``.

Each binding of the block under the loop is divided into an outer part (loops above the
target) and an inner part (loops from the target down): ``i_0 * 4 + i_1`` gives an outer
iterator ``v_i_o`` (bound to ``i_0``) and an inner one ``v_i_i`` (bound to ``i_1``), and
``v_i`` becomes ``v_i_o * 4 + v_i_i`` in the block. Supported (``ScheduleError`` otherwise):
one block under the loop, reached through a chain of loops, no block predicate, and bindings
that are sums of terms each using only outer or only inner loops, the inner part ranging over
``[0, c)`` and the outer part a multiple of ``c``.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx.expr import Add, IntImm, Var
from ...tirx.generic import const
from ...tirx.stmt import BufferRegion, For, IterVar, SBlock, SBlockRealize
from ...tirx.stmt_functor import substitute
from .base import SBlockRV
from .loops import uses_var
from .state import relax_region, replace_stmts

__all__ = ["BlockizePrimitives"]


def _terms(expr):
    if isinstance(expr, Add):
        return _terms(expr.a) + _terms(expr.b)
    return [expr]


def _sum(terms):
    out = None
    for t in terms:
        out = t if out is None else out + t
    return out


def _region(region, vmap):
    return BufferRegion(region.buffer,
                        [Range.from_min_extent(substitute(r.min, vmap), substitute(r.extent, vmap))
                         for r in region.region])


def _relax(region, vmap, dom, ana):
    return BufferRegion(region.buffer, [Range.from_min_extent(lo, ana.simplify(hi - lo + 1))
                                        for lo, hi in relax_region(region, vmap, dom, ana)])


class BlockizePrimitives:
    """Mixin: ``blockize``."""

    def blockize(self, target, preserve_unit_iters: bool = True) -> SBlockRV:
        """Wrap the loop nest under ``target`` (a loop) in a new outer block and return it."""
        prim = "blockize"
        if isinstance(target, (list, tuple)):
            raise self._error(prim, "blockize of several blocks is not supported by this "
                              "implementation; pass one loop", [])
        func_name, lpath = self._loop(target, prim)
        top = lpath[-1]
        chain, node = [], top
        while isinstance(node, For):
            chain.append(node)
            node = node.body
        if not isinstance(node, SBlockRealize):
            raise self._error(prim, f"The loops under {top.loop_var.name} must form a single "
                              "chain down to one block to be blockized", [top])
        realize, blk = node, node.block
        if not (isinstance(realize.predicate, IntImm) and realize.predicate.value == 1):
            raise self._error(prim, f"The block {blk.name_hint!r} has a predicate; blockize of "
                              "predicated blocks is not supported by this implementation", [blk])
        ana = Analyzer()
        inner_dom = {lp.loop_var: Range.from_min_extent(lp.min, lp.extent) for lp in chain}
        inner_ids = {id(lp.loop_var) for lp in chain}
        outer_ivs, outer_vals, inner_ivs, inner_vals, vmap = [], [], [], [], {}
        init_parts = []  # (spatial inner IterVar, inner binding) for the init block
        for iv, value in zip(blk.iter_vars, realize.iter_values):
            outer_t, inner_t = [], []
            for t in _terms(ana.simplify(value)):
                ins = any(uses_var(t, lp.loop_var) for lp in chain)
                outs = any(isinstance(n, Var) and id(n) not in inner_ids and uses_var(t, n)
                           for n in _vars(t))
                if ins and outs:
                    raise self._error(
                        prim, f"The binding {value} of {iv.var.name} mixes loops inside and "
                        f"outside {top.loop_var.name}; it cannot be divided", [top, blk])
                (inner_t if ins else outer_t).append(t)
            name, dtype = iv.var.name, iv.var.dtype
            inner_v, outer_v = _sum(inner_t), _sum(outer_t)
            if inner_v is None:
                new = IterVar(iv.dom, Var(f"{name}_o", dtype), iv.iter_type)
                outer_ivs.append(new)
                outer_vals.append(outer_v)
                vmap[iv.var] = new.var
                continue
            bound = ana.int_set(inner_v, inner_dom)
            lo, hi = bound.min_value, bound.max_value
            if not (isinstance(lo, IntImm) and lo.value == 0 and isinstance(hi, IntImm)):
                raise self._error(prim, f"The inner part {inner_v} of the binding of "
                                  f"{name} does not range over [0, c)", [top, blk])
            c = hi.value + 1
            inner_iv = IterVar(Range.from_min_extent(const(0, dtype), const(c, dtype)),
                               Var(f"{name}_i", dtype), iv.iter_type)
            inner_ivs.append(inner_iv)
            inner_vals.append(inner_v)
            if iv.iter_type == IterVar.DataPar:
                init_parts.append((iv, inner_iv, inner_v))
            if outer_v is None and not preserve_unit_iters:
                vmap[iv.var] = inner_iv.var
                continue
            inner_only = outer_v is None
            outer_v = const(0, dtype) if inner_only else outer_v
            quotient = ana.simplify(outer_v // c)
            extent = iv.dom.extent.value if isinstance(iv.dom.extent, IntImm) else None
            if not ana.can_prove_equal(quotient * c, outer_v) or extent is None or extent % c:
                raise self._error(prim, f"The outer part {outer_v} of the binding of {name} "
                                  f"is not a multiple of the inner extent {c}", [top, blk])
            outer_iv = IterVar(Range.from_min_extent(const(0, dtype), const(extent // c, dtype)),
                               Var(f"{name}_o", dtype), iv.iter_type)
            outer_ivs.append(outer_iv)
            outer_vals.append(quotient)
            # A purely inner binding keeps a unit outer iterator (bound to 0) that the body
            # does not use, as in TVM.
            vmap[iv.var] = inner_iv.var if inner_only else outer_iv.var * c + inner_iv.var
        # Inner block: the original, over the inner iterators (its init moves out).
        reads = [_region(r, vmap) for r in blk.reads]
        writes = [_region(w, vmap) for w in blk.writes]
        if blk.init is not None:
            have = {id(r.buffer) for r in reads}
            reads = [w for w in writes if id(w.buffer) not in have] + reads
        inner_blk = SBlock(inner_ivs, reads, writes, blk.name_hint, substitute(blk.body, vmap),
                           alloc_buffers=blk.alloc_buffers, annotations=blk.annotations)
        stmt = SBlockRealize(inner_vals, realize.predicate, inner_blk)
        for lp in reversed(chain):
            stmt = lp.replace(body=stmt)
        # Outer block: regions of the inner one relaxed over the inner loops.
        bind = {n.var: v for n, v in zip(inner_ivs, inner_vals)}
        out_writes = [_relax(w, bind, inner_dom, ana) for w in writes]
        written = {id(w.buffer) for w in out_writes}
        out_reads = [_relax(r, bind, inner_dom, ana) for r in reads
                     if id(r.buffer) not in written]
        init = None
        if blk.init is not None:
            init = self._blockize_init(blk, chain, init_parts, vmap, ana)
        outer_name = self._unique_block_name(func_name, f"{blk.name_hint}_o")
        outer_blk = SBlock(outer_ivs, out_reads, out_writes, outer_name, stmt, init=init)
        new = SBlockRealize(outer_vals, const(True, "bool"), outer_blk)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(top): new}))
        rv = self._new_rv(SBlockRV, func_name, outer_name)
        self._record(prim, kwargs={"target": target, "preserve_unit_iters": preserve_unit_iters},
                     outputs=[rv])
        return rv

    def _blockize_init(self, blk, chain, init_parts, vmap, ana):
        """The init of the outer block: the old init under copies of the spatial inner loops."""
        used = [lp for lp in chain if any(uses_var(v, lp.loop_var) for _, _, v in init_parts)]
        lmap = {lp.loop_var: Var(lp.loop_var.name, lp.loop_var.dtype) for lp in used}
        ivs, vals, imap = [], [], dict(vmap)
        for iv, inner_iv, inner_v in init_parts:
            new = IterVar(inner_iv.dom, Var(f"{inner_iv.var.name}_init", iv.var.dtype),
                          IterVar.DataPar)
            ivs.append(new)
            vals.append(substitute(inner_v, lmap))
            imap[iv.var] = substitute(vmap[iv.var], {inner_iv.var: new.var})
        init_blk = SBlock(ivs, [], [_region(w, imap) for w in blk.writes],
                          f"{blk.name_hint}_init", substitute(blk.init, imap))
        stmt = SBlockRealize(vals, const(True, "bool"), init_blk)
        for lp in reversed(used):
            stmt = lp.replace(loop_var=lmap[lp.loop_var], body=stmt)
        del ana
        return stmt


def _vars(expr):
    from ...tirx.expr_functor import post_order_visit  # Lazy: keeps imports to what's common.

    found = []
    post_order_visit(expr, lambda n: found.append(n) if isinstance(n, Var) else None)
    return found
