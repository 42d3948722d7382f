"""Default schedule, rule 2c: an elementwise nest that selects by ranges of its innermost loop.

A concatenation along the last axis (and the gradient of a ``split``, which is one) reads a
different input on each range of the innermost loop::

    T_concat[n, c] = T.if_then_else(c < 256, X[n, c],
                                    T.if_then_else(c < 512, Y[n, c - 256], Z[n, c - 512]))

Vectorized as it stands, every lane evaluates the conditions and every load is a gather;
after FuseTIR has inlined reshapes and transposes into it the indices also divide the loop
variable. Here the innermost loop is cut at the constants its conditions compare it with,
and each piece is simplified with its own bounds, which decides the conditions::

    for n in range(N):
        for c in T.vectorized(256): T_concat[n, c] = X[n, c]
        for c in T.vectorized(256): T_concat[n, c + 256] = Y[n, c]
        for c in T.vectorized(256): T_concat[n, c + 512] = Z[n, c]

A piece whose indices still divide its loop variable by a constant that its length is a
multiple of is split once more at that constant (``c = h * 64 + d``), when that removes the
divisions (a head-major layout read back as ``(seq, heads * dim)``). The rule applies only
when every condition on the innermost loop is decided in every piece; otherwise rule 2
schedules the nest.
"""

from __future__ import annotations

import itertools

from ..arith import Analyzer
from ..ir.expr import Range
from ..tirx.expr import GE, GT, LE, LT, Call, FloorDiv, FloorMod, IntImm, Select, Var
from ..tirx.stmt import BufferStore, For, ForKind, SBlock, SBlockRealize, SeqStmt
from ..tirx.stmt_functor import post_order_visit, substitute
from .default_schedule_reshape import plain_store

__all__ = ["CONCAT_MAX_PIECES", "split_concat"]

#: Most pieces the innermost loop is cut into (more: rule 2 schedules the nest).
CONCAT_MAX_PIECES = 16


def _uses(expr, var):
    found = []
    post_order_visit(expr, lambda n: found.append(n) if n is var else None)
    return bool(found)


def _conditions(expr):
    """The conditions of the ``if_then_else`` calls and ``Select`` nodes in ``expr``."""
    found = []

    def visit(node):
        if isinstance(node, Select):
            found.append(node.condition)
        elif isinstance(node, Call) and getattr(node.op, "name", "") == "tirx.if_then_else":
            found.append(node.args[0])

    post_order_visit(expr, visit)
    return found


def _cut_points(conditions, var, extent):
    """The constants in ``(0, extent)`` at which a comparison of ``var`` with a constant
    changes its value, or None when a condition compares ``var`` in another way."""
    cuts = set()
    compares = []
    for cond in conditions:
        post_order_visit(cond, lambda n: compares.append(n)
                         if isinstance(n, (LT, LE, GT, GE)) else None)
    for cmp in compares:
        a, b = cmp.a, cmp.b
        if a is var and isinstance(b, IntImm):
            value = b.value + (1 if isinstance(cmp, (LE, GT)) else 0)
        elif b is var and isinstance(a, IntImm):
            value = a.value + (1 if isinstance(cmp, (GE, LT)) else 0)
        elif _uses(a, var) or _uses(b, var):
            return None
        else:
            continue
        if 0 < value < extent:
            cuts.add(value)
    return sorted(cuts)


def _divisors(exprs, var):
    """Constant divisors of floordiv/floormod nodes of ``exprs`` that use ``var``."""
    found = set()

    def visit(node):
        if isinstance(node, (FloorDiv, FloorMod)) and isinstance(node.b, IntImm) \
                and _uses(node.a, var):
            found.add(node.b.value)

    for expr in exprs:
        post_order_visit(expr, visit)
    return found


def _collect(exprs, var):
    nodes = []

    def visit(node):
        if isinstance(node, (FloorDiv, FloorMod)) and _uses(node, var):
            nodes.append(node)

    for expr in exprs:
        post_order_visit(expr, visit)
    return nodes


def _piece(store, inner_iv, start, length, outer, dtype, name):
    """The loops of one piece ``[start, start + length)`` of the innermost loop, or None when
    a condition on it is left undecided."""
    var = Var(name, dtype)

    def simplified(bounds, value_of):
        analyzer = Analyzer()
        for lp_var, lp_range in outer:
            analyzer.bind(lp_var, lp_range)
        for v, extent in bounds:
            analyzer.bind(v, Range.from_min_extent(IntImm(dtype, 0), IntImm(dtype, extent)))
        value = analyzer.simplify(substitute(store.value, {inner_iv: value_of}))
        index = [analyzer.simplify(substitute(ix, {inner_iv: value_of})) for ix in store.indices]
        return value, index

    value, index = simplified([(var, length)], IntImm(dtype, start) + var if start else var)
    if any(_uses(c, var) for c in _conditions(value)):
        return None
    body = BufferStore(store.buffer, value, index)
    loops = [(var, length, ForKind.VECTORIZED)]
    if _collect([value, *index], var):
        for div in sorted(_divisors([value, *index], var), reverse=True):
            if div >= length or length % div:
                continue
            hi, lo = Var(f"{name}_o", dtype), Var(f"{name}_i", dtype)
            split_value, split_index = simplified(
                [(hi, length // div), (lo, div)],
                IntImm(dtype, start) + hi * IntImm(dtype, div) + lo if start
                else hi * IntImm(dtype, div) + lo)
            if _collect([split_value, *split_index], lo):
                continue
            body = BufferStore(store.buffer, split_value, split_index)
            loops = [(hi, length // div, ForKind.SERIAL), (lo, div, ForKind.VECTORIZED)]
            break
    for v, extent, kind in reversed(loops):
        body = For(v, IntImm(dtype, 0), IntImm(dtype, extent), kind, body)
    return body


def split_concat(loops, realize):
    """The nest with its innermost loop cut into pieces (see the module docstring), or None
    when the rule does not apply."""
    block = realize.block
    store = plain_store(loops, realize)
    # The block's iterators in the loops' order (the pieces cut the innermost one).
    if store is None or any(v is not lp.loop_var for v, lp in zip(realize.iter_values, loops)):
        return None
    if not _conditions(store.value):
        return None
    inner = loops[-1]
    inner_iv = block.iter_vars[-1].var
    extent = inner.extent.value
    outer = [(iv.var, Range.from_min_extent(lp.min, lp.extent))
             for iv, lp in zip(block.iter_vars[:-1], loops[:-1])]
    # The conditions as the loop's bounds simplify them (``c % 768 < 256`` is ``c < 256``).
    analyzer = Analyzer()
    for var, rng in outer + [(inner_iv, Range.from_min_extent(inner.min, inner.extent))]:
        analyzer.bind(var, rng)
    conditions = [analyzer.simplify(c) for c in _conditions(store.value)]
    conditions = [c for c in conditions if _uses(c, inner_iv)]
    if not conditions:
        return None
    cuts = _cut_points(conditions, inner_iv, extent)
    if not cuts or len(cuts) + 1 > CONCAT_MAX_PIECES:
        return None
    bounds = [0, *cuts, extent]
    dtype = inner.loop_var.dtype
    pieces = []
    for part, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        piece = _piece(store, inner_iv, lo, hi - lo, outer, dtype,
                       f"{inner.loop_var.name}_{part}")
        if piece is None:
            return None
        pieces.append(piece)
    # The pieces read the block's outer iterators: bind them to the outer loops' variables.
    rebind = {iv.var: lp.loop_var for iv, lp in zip(block.iter_vars[:-1], loops[:-1])}
    body = substitute(SeqStmt(pieces), rebind)
    body = SBlockRealize((), IntImm("bool", 1),
                         SBlock((), [], [], f"{block.name_hint}_pieces", body))
    for lp in reversed(loops[:-1]):
        body = For(lp.loop_var, lp.min, lp.extent, ForKind.SERIAL, body)
    return body
