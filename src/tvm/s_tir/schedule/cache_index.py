"""``cache_index``: precompute a block's index expressions into buffers.

TVM 0.27's ``CacheIndex`` looks for the non-trivial pure sub-expressions of the block's stores
(common sub-expression elimination's candidates: not a variable or constant, no buffer load,
no impure call, not a ``Ramp``/``Broadcast``), counted with equivalent terms (equal after
simplification) merged. A candidate seen fewer than ``cse_thresh`` times gives way to its
direct sub-expressions (which inherit its count); the candidates seen at least ``cse_thresh``
times, in post order of the stored value and then by decreasing size, each get a buffer
``index_var_<k>`` indexed by the block variables they use, filled by a block ``index_<k>``
placed before the block's top-level statement in its scope, and the block loads the buffer
in their place.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...ir.op import Op
from ...tirx import expr as E
from ...tirx.analysis.expr_analysis import expr_deep_equal
from ...tirx.expr_functor import ExprVisitor, post_order_visit
from ...tirx.generic import const
from ...tirx.op import CallEffectKind
from ...tirx.stmt import (
    BufferRegion,
    BufferStore,
    For,
    ForKind,
    IterVar,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ...tirx.stmt_functor import StmtExprMutator, StmtExprVisitor, substitute
from .base import SBlockRV
from .lookup import enclosing_block
from .state import replace_stmts

__all__ = ["CacheIndexPrimitives"]

_LEAVES = (E.Var, E.IntImm, E.FloatImm, E.StringImm)


def _size(expr):
    """TVM's ``CalculateExprComplexity``: the number of expression nodes."""
    count = [0]
    post_order_visit(expr, lambda _: count.__setitem__(0, count[0] + 1))
    return count[0]


def _pure(expr):
    """Whether ``expr`` reads no buffer and calls only pure intrinsics."""
    ok = [True]

    def visit(node):
        if isinstance(node, (E.BufferLoad, E.ProducerLoad)):
            ok[0] = False
        elif isinstance(node, E.Call):
            kind = node.op.get_attr("TCallEffectKind") if isinstance(node.op, Op) else None
            if kind is None or int(kind) > CallEffectKind.Pure:
                ok[0] = False

    post_order_visit(expr, visit)
    return ok[0]


def _eligible(expr):
    return (not isinstance(expr, (E.Ramp, E.Broadcast)) and _size(expr) > 1 and _pure(expr))


def _vars_in(expr, pool):
    """The distinct variables of ``expr`` that are keys of ``pool``, in post order."""
    found = []

    def visit(node):
        if isinstance(node, E.Var) and node in pool and not any(node is f for f in found):
            found.append(node)

    post_order_visit(expr, visit)
    return found


class _Computations(StmtExprVisitor):
    """TVM's ``ComputationsDoneBy``: the outermost eligible sub-expressions, with counts."""

    def __init__(self):
        self.table = []  # [(expr, count)] in first-seen order, keyed by deep equality

    def visit_expr(self, expr):
        """Count an eligible expression; else look inside it."""
        if isinstance(expr, _LEAVES):
            return
        if _eligible(expr):
            for k, (seen, n) in enumerate(self.table):
                if expr_deep_equal(seen, expr):
                    self.table[k] = (seen, n + 1)
                    return
            self.table.append((expr, 1))
            return
        super().visit_expr(expr)


class _DirectSubexprs(ExprVisitor):
    """TVM's ``DirectSubexpr``: the outermost eligible expressions strictly inside one."""

    def __init__(self):
        self.found, self.entered = [], False

    def visit_expr(self, expr):
        """Collect the first eligible expressions below the root."""
        if self.entered and _eligible(expr):
            self.found.append(expr)
            return
        self.entered = True
        super().visit_expr(expr)


def _candidates(store, thresh, ana):
    """The expressions to precompute, in TVM's order."""
    finder = _Computations()
    finder.visit_stmt(store)
    norm = ana.simplify  # TVM's NormalizeTerm
    merged = []  # [[expr, count, normal form]]
    for expr, n in finder.table:
        key = norm(expr)
        hit = next((m for m in merged if expr_deep_equal(m[2], key)), None)
        if hit is None:
            merged.append([expr, n, key])
        else:
            hit[1] += n
    i = 0
    while i < len(merged):
        expr, n, _ = merged[i]
        if n < thresh:
            subs = _DirectSubexprs()
            subs.visit_expr(expr)
            for sub in subs.found:
                key = norm(sub)
                hit = next((m for m in merged if expr_deep_equal(m[2], key)), None)
                if hit is not None:
                    hit[1] += n
                    continue
                # Sorted by decreasing size; a new one goes after those at least as large.
                size = _size(sub)
                at = next((k for k, m in enumerate(merged) if _size(m[0]) < size), len(merged))
                merged.insert(at, [sub, n, key])
        i += 1
    chosen = []

    def visit(node):
        if isinstance(node, _LEAVES):
            return
        key = None
        for expr, n, normal in merged:
            if n < thresh or any(c is expr for c in chosen):
                continue
            key = norm(node) if key is None else key
            if expr_deep_equal(normal, key):
                chosen.append(expr)

    post_order_visit(store.value, visit)
    chosen.sort(key=lambda e: -_size(e))
    return chosen


class _Replace(StmtExprMutator):
    """Stores whose value (and indices) load the index buffers in place of the expressions."""

    def __init__(self, target, exprs, loads, ana):
        self.target, self.ana = target, ana
        self.table = [(ana.simplify(e), load) for e, load in zip(exprs, loads)]
        self.inside = False

    def visit_sblock_(self, op):
        """Rewrite only the target block's stores."""
        was, self.inside = self.inside, op is self.target or self.inside
        out = super().visit_sblock_(op)
        self.inside = was
        return out

    def visit_buffer_store_(self, op):
        """Replace each chosen expression, in order, throughout the store."""
        out = super().visit_buffer_store_(op)
        if not self.inside:
            return out
        for normal, load in self.table:
            out = _ReplaceExpr(normal, load, self.ana).visit_stmt(out)
        return out


class _ReplaceExpr(StmtExprMutator):
    def __init__(self, normal, load, ana):
        self.normal, self.load, self.ana = normal, load, ana

    def visit_expr(self, expr):
        """The load for an expression equivalent to the chosen one; else recurse."""
        if not isinstance(expr, _LEAVES) and expr_deep_equal(self.ana.simplify(expr),
                                                            self.normal):
            return self.load
        return super().visit_expr(expr)


class CacheIndexPrimitives:
    """Mixin: ``cache_index``."""

    def cache_index(self, block: SBlockRV | str, storage_scope: str,
                    cse_thresh: int = 0) -> list[SBlockRV]:
        """Precompute the block's index expressions into buffers of ``storage_scope``.

        As TVM 0.27 (see the module docstring for which expressions are chosen): each chosen
        expression gets a buffer ``index_var_<k>`` over the block variables it uses (extent:
        their bound values' maximum plus one), filled by a block ``index_<k>`` placed before the
        block's top-level statement in its scope; the block loads it instead.

        Parameters
        ----------
        block : SBlockRV or str
            The block whose index expressions are precomputed.
        storage_scope : str
            The storage scope of the index buffers.
        cse_thresh : int
            How many times an expression must occur to be precomputed (0: every candidate).

        Returns
        -------
        list of SBlockRV
            The index-computing blocks, in order.

        Raises
        ------
        ValueError
            If ``cse_thresh`` is negative.
        """
        prim = "cache_index"
        if not isinstance(storage_scope, str):
            raise TypeError(f"{prim}: storage_scope must be a str, got {storage_scope!r}")
        if not isinstance(cse_thresh, int) or cse_thresh < 0:
            raise ValueError(f"{prim}: cse_thresh should not be negative number, got "
                             f"{cse_thresh!r}")
        block = self._as_block(block)
        func_name, path = self._block(block, prim)
        realize = path[-1]
        blk = realize.block
        scope = enclosing_block(path)
        body = self.mod[func_name].body
        ana = Analyzer()
        ranges = {}
        for node in path:
            if isinstance(node, For):
                ranges[node.loop_var] = Range.from_min_extent(node.min, node.extent)
        binding = {iv.var: v for iv, v in zip(blk.iter_vars, realize.iter_values)}
        stores = []

        def collect(stmt):
            if isinstance(stmt, BufferStore):
                stores.append(stmt)

        from ...tirx.stmt_functor import post_order_visit as stmt_post_order

        # Lazy alias: the statement walker shares its name with the expression one above.
        stmt_post_order(blk.body, collect)
        exprs = []
        for store in stores:
            for e in _candidates(store, cse_thresh, ana):
                if not any(x is e for x in exprs):
                    exprs.append(e)
        stages, buffers, loads, names = [], [], [], []
        taken = set(self._block_names(func_name))
        for k, expr in enumerate(exprs):
            bvars = _vars_in(expr, binding)
            lvars = []
            for bv in bvars:
                lvars += [v for v in _vars_in(binding[bv], ranges)
                          if not any(v is x for x in lvars)]
            shape = [ana.simplify(ana.int_set(binding[bv], ranges).max_value + 1)
                     for bv in bvars]
            from ...tirx.buffer import decl_buffer  # Lazy: as state.new_buffer does.

            buf = decl_buffer(shape, expr.dtype, name=f"index_var_{k}", strides=[1],
                              scope="" if storage_scope == "global" else storage_scope)
            axes = {lv: E.Var(f"ax{i}", lv.dtype) for i, lv in enumerate(lvars)}
            ivs, idx = [], []
            for i, bv in enumerate(bvars):
                v = E.Var(f"v{i}", bv.dtype)
                ext = ranges[lvars[i]].extent if i < len(lvars) else shape[i]
                ivs.append(IterVar(Range.from_min_extent(const(0, bv.dtype), ext), v,
                                   IterVar.DataPar))
                idx.append(v)
            name = f"index_{k}"
            while name in taken:
                name += "_1"
            taken.add(name)
            new_blk = SBlock(ivs, [], [BufferRegion.from_point(buf, idx)], name,
                             BufferStore(buf, substitute(expr, dict(zip(bvars, idx))), idx))
            stmt = SBlockRealize([substitute(binding[bv], axes) for bv in bvars],
                                 const(True, "bool"), new_blk)
            for lv in reversed(lvars):
                stmt = For(axes[lv], const(0, axes[lv].dtype), ranges[lv].extent,
                           ForKind.SERIAL, stmt)
            stages.append(stmt)
            buffers.append(buf)
            loads.append(E.BufferLoad(buf, list(bvars)))
            names.append(name)
        new_scope = _Replace(blk, exprs, loads, ana).visit_stmt(scope)
        items = list(new_scope.body.seq) if isinstance(new_scope.body, SeqStmt) \
            else [new_scope.body]
        at = next(k for k in range(len(path)) if path[k] is scope)
        top = path[at + 1:]
        old_items = list(scope.body.seq) if isinstance(scope.body, SeqStmt) else [scope.body]
        pos = next((i for i, s in enumerate(old_items) if any(s is n for n in top)), 0)
        items[pos:pos] = stages
        new_scope = new_scope.replace(
            body=SeqStmt(items) if len(items) > 1 else items[0],
            alloc_buffers=tuple(new_scope.alloc_buffers) + tuple(buffers))
        self._commit(func_name, replace_stmts(body, {id(scope): new_scope}))
        rvs = [self._new_rv(SBlockRV, func_name, n) for n in names]
        self._record(prim, kwargs={"block": block, "storage_scope": storage_scope,
                                   "cse_thresh": cse_thresh},
                     outputs=rvs, returns_list=True)
        return rvs
