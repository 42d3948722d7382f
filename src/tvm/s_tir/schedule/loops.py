"""Loop primitives: ``split``, ``fuse``, ``reorder``, ``add_unit_loop``, and the loop kinds
(``parallel``, ``vectorize``, ``unroll``, ``bind``).

Split and fuse substitute the old loop variables by expressions of the new ones in the loop
body and simplify the block bindings; a split whose factors overshoot the extent guards the
blocks below with a predicate (``T.where``).
"""

from __future__ import annotations

import itertools

from ...arith import Analyzer
from ...arith.iter_map import merge_index_digits
from ...ir.expr import Range
from ...tirx.expr import And, IntImm, Var
from ...tirx.expr_functor import post_order_visit
from ...tirx.generic import const, floordiv
from ...tirx.stmt import For, ForKind, IterVar, SBlockRealize, SeqStmt
from ...tirx.stmt_functor import substitute
from .base import ExprRV, LoopRV, SBlockRV
from .state import common_prefix_len, const_int, iter_blocks, make_seq, replace_stmts

__all__ = ["LoopPrimitives", "simplify_bindings"]


def _and(a, b):
    if isinstance(a, IntImm) and a.value == 1:
        return b
    return And(a, b)


def simplify_bindings(stmt, extra_pred=None):
    """Simplify the bindings of every block realize under ``stmt`` (and AND ``extra_pred``
    into their predicates)."""
    ana = Analyzer()
    table = {}
    for realize, _ in iter_blocks(stmt):
        values = tuple(merge_index_digits(ana.simplify(v)) for v in realize.iter_values)
        pred = realize.predicate if extra_pred is None else _and(realize.predicate, extra_pred)
        table[id(realize)] = realize.replace(iter_values=values, predicate=pred)
    return replace_stmts(stmt, table) if table else stmt


def uses_var(expr, var) -> bool:
    """Whether ``expr`` mentions ``var``."""
    found = []
    post_order_visit(expr, lambda n: found.append(n) if n is var else None)
    return bool(found)


_VERBS = {"parallel": "parallelized", "vectorize": "vectorized", "bind": "bound to a thread"}


def check_iter_kinds(sch, loop, path, primitive, allow_reduce=False):
    """Refuse a loop bound to a reduction (or opaque) block iter of a block below it."""
    for realize, _ in iter_blocks(loop.body):
        for iv, value in zip(realize.block.iter_vars, realize.iter_values):
            if not uses_var(value, loop.loop_var):
                continue
            if iv.iter_type == IterVar.DataPar:
                continue
            if iv.iter_type == IterVar.CommReduce and allow_reduce:
                continue
            kind = "reduction" if iv.iter_type == IterVar.CommReduce else "non-spatial"
            raise sch._error(
                primitive,
                f"The loop {loop.loop_var.name} cannot be {_VERBS[primitive]}: it is bound to "
                f"the "
                f"{kind} block iter {iv.var.name} of block {realize.block.name_hint!r}; only "
                "loops bound to spatial (data-parallel) block iters qualify",
                [loop, realize.block],
            )


def _affine(realize, loops):
    """Whether ``realize``'s bindings are affine over ``loops`` (constant extents), its
    predicate bounding only fused loops the bindings use."""
    from .affine_inverse import is_affine_binding  # Lazy: only reorder checks bindings.

    extents = {}
    for lp in loops:
        ext = const_int(lp.extent)
        if ext is None or const_int(lp.min) != 0:
            return True  # symbolic loops: not analysed here, so not refused
        extents[id(lp.loop_var)] = (lp.loop_var, ext)
    return is_affine_binding(realize.iter_values, extents, realize.predicate)


class LoopPrimitives:
    """Mixin: loop transformations."""

    # --- split ----------------------------------------------------------------------------------
    def split(self, loop: LoopRV, factors, preserve_unit_iters: bool = True,
              disable_predication: bool = False) -> list:
        """Split ``loop`` into ``len(factors)`` nested loops (one factor may be ``None``).

        The factors must multiply to at least the loop's extent; when they overshoot, the
        blocks below get the predicate ``fused < extent`` (unless ``disable_predication``).
        With ``preserve_unit_iters=False`` the variables of unit loops are replaced by 0 in the
        block bindings.
        """
        func_name, path = self._loop(loop, "split")
        node = path[-1]
        values = []
        for f in factors:
            if isinstance(f, ExprRV):
                f = self.get(f)
            if f is not None and not isinstance(f, (int, IntImm)):
                raise TypeError(f"split: factors must be int, None or ExprRV, got {f!r}")
            values.append(None if f is None else int(f.value if isinstance(f, IntImm) else f))
        if len(values) < 2:
            raise self._error("split", f"split needs at least 2 factors, got {len(values)}",
                              [node])
        if values.count(None) > 1:
            raise self._error("split", "at most one factor of split can be None (inferred)",
                              [node])
        for f in values:
            if f is not None and f <= 0:
                raise self._error("split", f"split factors must be positive, got {values}",
                                  [node])
        extent = const_int(node.extent)
        known = 1
        for f in values:
            known *= f if f is not None else 1
        dtype = node.loop_var.dtype
        symbolic = None
        if None in values:
            if extent is None:
                # A symbolic extent: the inferred factor is ceildiv(extent, known), with the
                # predicate ``fused < extent`` below (as TVM does).
                symbolic = values.index(None)
                values[symbolic] = 1
            else:
                values[values.index(None)] = -(-extent // known)
        product = 1
        for f in values:
            product *= f
        if extent is not None and product < extent:
            raise self._error(
                "split",
                f"The product of factors {values} ({product}) is not larger than or equal to "
                f"the extent ({extent}) of loop {node.loop_var.name}",
                [node])
        name = node.loop_var.name
        new_vars = [Var(f"{name}_{i}", dtype) for i in range(len(values))]
        extents = [const(f, dtype) for f in values]
        if symbolic is not None:
            extents[symbolic] = Analyzer().simplify(
                floordiv(node.extent + const(known - 1, dtype), const(known, dtype)))
        fused = None
        for i, (var, f) in enumerate(zip(new_vars, values)):
            unit = f == 1 and i != symbolic
            term = var if (preserve_unit_iters or not unit) else const(0, dtype)
            fused = term if fused is None else fused * extents[i] + term
        pred_expr = None
        for var, ext in zip(new_vars, extents):
            pred_expr = var if pred_expr is None else pred_expr * ext + var
        value = fused if const_int(node.min) == 0 else node.min + fused
        body = substitute(node.body, {node.loop_var: value})
        needs_pred = extent is None or product != extent
        extra = None
        if needs_pred and not disable_predication:
            extra = pred_expr < node.extent
        body = simplify_bindings(body, extra)
        for var, ext in reversed(list(zip(new_vars, extents))):
            body = For(var, const(0, dtype), ext, ForKind.SERIAL, body)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(node): body}))
        rvs = [self._new_rv(LoopRV, func_name, v) for v in new_vars]
        self._record("split", kwargs={"loop": loop, "factors": list(factors),
                                      "preserve_unit_iters": preserve_unit_iters,
                                      "disable_predication": disable_predication},
                     outputs=rvs)
        return rvs

    # --- fuse -----------------------------------------------------------------------------------
    def _loop_chain(self, loops, primitive):
        """Paths of ``loops`` sorted outermost first, after checking they form one chain."""
        if len(set(map(id, loops))) != len(loops):
            raise self._error(primitive, f"{primitive}: the same loop is given twice", [])
        paths = [self._loop(rv, primitive) for rv in loops]
        func_names = {fn for fn, _ in paths}
        if len(func_names) != 1:
            raise ValueError(f"{primitive}: the loops belong to different functions")
        func_name = func_names.pop()
        ordered = sorted((p for _, p in paths), key=len)
        top = ordered[0]
        for p in ordered[1:]:
            if not all(a is b for a, b in zip(p, top)) or not all(
                    a is b for a, b in zip(p, ordered[-1])):
                raise self._error(
                    primitive,
                    "The loops are not in a single chain: loop "
                    f"{p[-1].loop_var.name} is not nested inside loop {top[-1].loop_var.name}"
                    " (they are not on one line of ancestors)",
                    [top[-1], p[-1]])
        bottom = ordered[-1]
        chain = [n for n in bottom[len(top) - 1:]]
        for outer, inner in itertools.pairwise(chain):
            if not isinstance(outer, For) or outer.body is not inner:
                raise self._error(
                    primitive,
                    f"The loops are not in a single chain: between loop "
                    f"{top[-1].loop_var.name} and loop {bottom[-1].loop_var.name} there is a "
                    f"{type(inner).__name__ if not isinstance(outer, For) else 'statement'} "
                    "that is not the only child of its parent loop",
                    [top[-1], bottom[-1]])
        return func_name, ordered, chain

    def fuse(self, *loops: LoopRV, preserve_unit_iters: bool = True) -> LoopRV:
        """Fuse consecutive nested loops (each the only child of the previous) into one."""
        if len(loops) == 1 and isinstance(loops[0], (list, tuple)):
            loops = tuple(loops[0])
        if len(loops) < 2:
            raise ValueError(f"fuse needs at least 2 loops, got {len(loops)}")
        func_name, _, chain = self._loop_chain(list(loops), "fuse")
        nodes = [self._loop(rv, "fuse")[1][-1] for rv in loops]
        if len(chain) != len(nodes) or any(a is not b for a, b in zip(chain, nodes)):
            raise self._error(
                "fuse", "The loops to fuse must be given outermost first and be directly "
                "nested (no other loop between them)", nodes)
        extents = []
        for n in nodes:
            if const_int(n.min) != 0:
                raise self._error("fuse", f"fuse requires loops starting at 0; loop "
                                  f"{n.loop_var.name} starts at {n.min}", [n])
            extents.append(n.extent)
        dtype = nodes[0].loop_var.dtype
        fused = Var("_".join(n.loop_var.name for n in nodes) + "_fused", dtype)
        vmap = {}
        inner = None  # product of the extents of the loops inside the current one
        for n in reversed(nodes):
            value = fused if inner is None else fused // inner
            if n is not nodes[0]:
                value = value % n.extent
            if not preserve_unit_iters and const_int(n.extent) == 1:
                value = const(0, dtype)
            vmap[n.loop_var] = value
            inner = n.extent if inner is None else inner * n.extent
        ana = Analyzer()
        body = simplify_bindings(substitute(nodes[-1].body, vmap))
        new = For(fused, const(0, dtype), ana.simplify(inner), ForKind.SERIAL, body)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(nodes[0]): new}))
        rv = self._new_rv(LoopRV, func_name, fused)
        self._record("fuse", args=list(loops),
                     kwargs={"preserve_unit_iters": preserve_unit_iters}, outputs=[rv])
        return rv

    # --- reorder --------------------------------------------------------------------------------
    def reorder(self, *ordered_loops: LoopRV) -> None:
        """Reorder loops of one chain; loops of the chain not given keep their positions."""
        if len(ordered_loops) == 1 and isinstance(ordered_loops[0], (list, tuple)):
            ordered_loops = tuple(ordered_loops[0])
        if not ordered_loops:
            return
        func_name, _, chain = self._loop_chain(list(ordered_loops), "reorder")
        given = [self._loop(rv, "reorder")[1][-1] for rv in ordered_loops]
        positions = sorted(i for i, n in enumerate(chain) if any(n is g for g in given))
        new_chain = list(chain)
        for pos, node in zip(positions, given):
            new_chain[pos] = node
        top_path = next(p for p in (self._loop(rv, "reorder")[1] for rv in ordered_loops)
                        if p[-1] is chain[0])
        self._reorder_checks(new_chain, chain[-1], chain, top_path[:-1])
        body = chain[-1].body
        for node in reversed(new_chain):
            body = node.replace(body=body)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(chain[0]): body}))
        self._record("reorder", args=list(ordered_loops))

    def _reorder_checks(self, new_chain, innermost, chain, above):
        """TVM's reorder preconditions: no loop bound uses a loop moved inside it, and the
        blocks under the loops have only data-parallel and reduction iterators and affine
        bindings (over all their loops in the scope, or at least over the loops from the
        outermost reordered one down)."""
        for k, loop in enumerate(new_chain):
            inner = new_chain[k + 1:]
            for other in inner:
                if uses_var(loop.min, other.loop_var) or uses_var(loop.extent, other.loop_var):
                    raise self._error(
                        "reorder", f"The loop {loop.loop_var.name} depends on loop "
                        f"{other.loop_var.name} (its range uses it), which the new order "
                        "puts inside it", [loop])
        for realize, path in iter_blocks(innermost.body):
            bad = [iv.var.name for iv in realize.block.iter_vars
                   if iv.iter_type not in (IterVar.DataPar, IterVar.CommReduce)]
            if bad:
                raise self._error(
                    "reorder", f"The block {realize.block.name_hint!r} has iteration "
                    f"variables {bad} that are neither data parallel nor reduction; reorder "
                    "needs one of the two", [realize.block])
            if any(isinstance(n, SBlockRealize) for n in path[:-1]):
                continue  # TVM checks the bindings of the outermost blocks only
            inner = list(chain) + [n for n in path if isinstance(n, For)]
            outer = []
            for node in reversed(above):
                if not isinstance(node, For):
                    break
                outer.append(node)
            if not (_affine(realize, outer + inner) or _affine(realize, inner)):
                raise self._error(
                    "reorder", f"The block {realize.block.name_hint!r} is required to have "
                    f"an partial affine binding under {chain[0].loop_var.name} (its bindings "
                    "must be splits of fused loops with a trivial predicate)", [realize.block])

    # --- merge ----------------------------------------------------------------------------------
    def merge(self, *loops: LoopRV) -> LoopRV:
        """Merge loops of sibling nests into one loop running their bodies in turn.

        The loops must have the same extents and depth below the sequence holding their nests,
        each nest a chain of loops; the whole chains are merged level by level (``i_m``,
        ``j_m``). The nests must be adjacent in that sequence (TVM also merges across other
        statements, which can reorder dependent blocks; here that is refused).
        """
        if len(loops) == 1 and isinstance(loops[0], (list, tuple)):
            loops = tuple(loops[0])
        if len(loops) < 2:
            raise ValueError(f"merge needs at least 2 loops, got {len(loops)}")
        found = [self._loop(rv, "merge") for rv in loops]
        if len({fn for fn, _ in found}) != 1:
            raise ValueError("merge: the loops belong to different functions")
        func_name = found[0][0]
        paths = [p for _, p in found]
        common = common_prefix_len(paths)
        seq = paths[0][common - 1]
        chains = [p[common:] for p in paths]
        nodes = [p[-1] for p in paths]
        if not isinstance(seq, SeqStmt) or len({len(c) for c in chains}) != 1:
            raise self._error("merge", "Merge loop's nesting depth must be same, but not: the "
                              "loops must sit at the same depth in sibling loop nests", nodes)
        for chain in chains:
            for outer, inner in itertools.pairwise(chain):
                if not isinstance(outer, For) or outer.body is not inner:
                    raise self._error("merge", "Each loop to merge must be reached from the "
                                      "sequence holding the nests by a chain of loops, each the "
                                      "only child of the previous", nodes)
        for level in zip(*chains):
            first = level[0]
            for lp in level:
                if (const_int(lp.min) != 0 or lp.kind != ForKind.SERIAL or lp.annotations
                        or not Analyzer().can_prove_equal(lp.extent, first.extent)):
                    raise self._error(
                        "merge", f"The loops to merge must be serial, start at 0, have no "
                        f"annotations and the same extent; loop {lp.loop_var.name} (extent "
                        f"{lp.extent}) differs from loop {first.loop_var.name} (extent "
                        f"{first.extent})", list(level))
        positions = sorted(next(i for i, s in enumerate(seq.seq) if s is c[0]) for c in chains)
        if positions != list(range(positions[0], positions[0] + len(positions))):
            raise self._error("merge", "The loop nests to merge must be adjacent statements; "
                              "merging across other statements could reorder dependent blocks",
                              nodes)
        ordered = sorted(chains, key=lambda c: next(i for i, s in enumerate(seq.seq)
                                                     if s is c[0]))
        new_vars = [Var(f"{lp.loop_var.name}_m", lp.loop_var.dtype) for lp in ordered[0]]
        bodies = []
        for chain in ordered:
            bodies.append(substitute(chain[-1].body, dict(zip([lp.loop_var for lp in chain],
                                                              new_vars))))
        stmt = make_seq(bodies)
        for var, lp in reversed(list(zip(new_vars, ordered[0]))):
            stmt = For(var, const(0, var.dtype), lp.extent, ForKind.SERIAL, stmt)
        table = {id(c[0]): None for c in ordered[1:]}
        table[id(ordered[0][0])] = stmt
        self._commit(func_name, replace_stmts(self.mod[func_name].body, table))
        rv = self._new_rv(LoopRV, func_name, new_vars[-1])
        self._record("merge", args=list(loops), outputs=[rv])
        return rv

    # --- add_unit_loop --------------------------------------------------------------------------
    def add_unit_loop(self, block_or_loop) -> LoopRV:
        """Wrap a block or loop in a new loop of extent 1 (named ``u``)."""
        if isinstance(block_or_loop, SBlockRV):
            func_name, path = self._block(block_or_loop, "add_unit_loop")
        else:
            func_name, path = self._loop(block_or_loop, "add_unit_loop")
        node = path[-1]
        var = Var("u", "int32")
        new = For(var, 0, 1, ForKind.SERIAL, node)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(node): new}))
        rv = self._new_rv(LoopRV, func_name, var)
        self._record("add_unit_loop", kwargs={"block_or_loop": block_or_loop}, outputs=[rv])
        return rv

    # --- loop kinds -----------------------------------------------------------------------------
    def _set_kind(self, loop, primitive, kind, allow_reduce=False, thread_binding=None):
        func_name, path = self._loop(loop, primitive)
        node = path[-1]
        if primitive == "vectorize" and const_int(node.extent) is None:
            raise self._error(
                primitive, f"The loop {node.loop_var.name} cannot be vectorized: its extent "
                f"{node.extent} is not a constant", [node])
        if kind != ForKind.UNROLLED:
            check_iter_kinds(self, node, path, primitive, allow_reduce)
        new = node.replace(kind=kind, thread_binding=thread_binding)
        self._commit(func_name, replace_stmts(self.mod[func_name].body, {id(node): new}))

    def parallel(self, loop: LoopRV) -> None:
        """Run ``loop`` in parallel (its block iters must be spatial)."""
        self._set_kind(loop, "parallel", ForKind.PARALLEL)
        self._record("parallel", kwargs={"loop": loop})

    def vectorize(self, loop: LoopRV) -> None:
        """Vectorize ``loop`` (constant extent; its block iters must be spatial)."""
        self._set_kind(loop, "vectorize", ForKind.VECTORIZED)
        self._record("vectorize", kwargs={"loop": loop})

    def unroll(self, loop: LoopRV) -> None:
        """Unroll ``loop``."""
        self._set_kind(loop, "unroll", ForKind.UNROLLED)
        self._record("unroll", kwargs={"loop": loop})

    def bind(self, loop: LoopRV, thread_axis: str) -> None:
        """Bind ``loop`` to a GPU thread axis (``"blockIdx.x"``, ``"threadIdx.y"``...).

        Loops bound to reduction block iters may only be bound to ``threadIdx.*``
        (cross-thread reduction).
        """
        if not isinstance(thread_axis, str):
            raise TypeError(f"bind: thread_axis must be a str, got {type(thread_axis).__name__}")
        node = self._loop(loop, "bind")[1][-1]
        iv = IterVar(Range.from_min_extent(const(0, node.loop_var.dtype), node.extent),
                     Var(thread_axis, node.loop_var.dtype), IterVar.ThreadIndex, thread_axis)
        self._set_kind(loop, "bind", ForKind.THREAD_BINDING,
                       allow_reduce=thread_axis.startswith("threadIdx"), thread_binding=iv)
        self._record("bind", kwargs={"loop": loop, "thread_axis": thread_axis})
