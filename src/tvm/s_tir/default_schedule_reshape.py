"""Default schedule, rule 2a: a copy whose source index divides its innermost loop (reshape).

``T_reshape[n, j] = X[n, j // 196, j % 196 // 14, j % 14]`` (a flatten) gathers each vector
lane with divisions. When the innermost loop's extent is the size of the source's trailing
dimensions, that loop is split along them (``j = c * 196 + h * 14 + w``) and the indices are
simplified with the loops' bounds, leaving plain strided copies::

    for n, c, h in T.grid(64, 8, 14):
        for w in T.vectorized(14):
            T_reshape[n, c * 196 + h * 14 + w] = X[n, c, h, w]

The rule applies only when every division disappears; otherwise rule 2 schedules the nest.
"""

from __future__ import annotations

from ..arith import Analyzer
from ..ir.expr import Range
from ..tirx.expr import FloorDiv, FloorMod, IntImm, Var
from ..tirx.stmt import BufferLoad, BufferStore, For, ForKind, IterVar, SBlock, SBlockRealize
from ..tirx.stmt_functor import post_order_visit, substitute

__all__ = ["plain_store", "split_reshape"]


def plain_store(loops, realize):
    """The block's store when the nest is a plain elementwise one (rules 2a and 2c): one
    ``BufferStore``, no init, an always-true predicate, spatial iterators only, loops from 0
    with constant extents, each loop bound to one iterator; else None."""
    block = realize.block
    store = block.body
    if block.init is not None or not isinstance(store, BufferStore):
        return None
    if not (isinstance(realize.predicate, IntImm) and realize.predicate.value == 1):
        return None
    if any(iv.iter_type != IterVar.DataPar for iv in block.iter_vars):
        return None
    if not all(isinstance(lp.min, IntImm) and lp.min.value == 0
               and isinstance(lp.extent, IntImm) for lp in loops):
        return None
    loop_of = {id(lp.loop_var): lp for lp in loops}
    if len(realize.iter_values) != len(loops) or any(
            id(v) not in loop_of for v in realize.iter_values):
        return None
    return store


def _has_divmod(exprs, var=None):
    found = []

    def visit(node):
        if isinstance(node, (FloorDiv, FloorMod)):
            if var is None:
                found.append(node)
            else:
                post_order_visit(node, lambda n: found.append(n) if n is var else None)

    for expr in exprs:
        post_order_visit(expr, visit)
    return bool(found)


def split_reshape(loops, realize):
    """The split copy nest (see the module docstring), or None when the rule does not apply."""
    block = realize.block
    store = plain_store(loops, realize)
    if store is None or not isinstance(store.value, BufferLoad):
        return None
    load = store.value
    inner = loops[-1]
    inner_iv = next(iv.var for iv, v in zip(block.iter_vars, realize.iter_values)
                    if v is inner.loop_var)
    if not _has_divmod(load.indices, inner_iv):
        return None
    if not all(isinstance(d, IntImm) for d in load.buffer.shape):
        return None
    shape = [d.value for d in load.buffer.shape]
    extent = inner.extent.value
    suffix = None
    for start in range(len(shape) - 1):
        size = 1
        for d in shape[start:]:
            size *= d
        if size == extent:
            suffix = shape[start:]
            break
    if suffix is None:
        return None
    dtype = inner.loop_var.dtype
    parts = [Var(f"{inner.loop_var.name}_{p}", dtype) for p in range(len(suffix))]
    flat, stride = None, 1
    for var, dim in reversed(list(zip(parts, suffix))):
        term = var * IntImm(dtype, stride) if stride != 1 else var
        flat = term if flat is None else term + flat
        stride *= dim
    analyzer = Analyzer()
    for lp in loops[:-1]:
        analyzer.bind(lp.loop_var, Range.from_min_extent(lp.min, lp.extent))
    for var, dim in zip(parts, suffix):
        analyzer.bind(var, Range.from_min_extent(IntImm(dtype, 0), IntImm(dtype, dim)))
    bind = {iv.var: (flat if v is inner.loop_var else v)
            for iv, v in zip(block.iter_vars, realize.iter_values)}
    load_index = [analyzer.simplify(substitute(ix, bind)) for ix in load.indices]
    if _has_divmod(load_index):
        return None
    store_index = [analyzer.simplify(substitute(ix, bind)) for ix in store.indices]
    body = BufferStore(store.buffer, BufferLoad(load.buffer, load_index), store_index)
    kinds = [ForKind.SERIAL] * (len(parts) - 1) + [ForKind.VECTORIZED]
    for var, dim, kind in reversed(list(zip(parts, suffix, kinds))):
        body = For(var, IntImm(dtype, 0), IntImm(dtype, dim), kind, body)
    # A block scope around the plain statements, as the other rules' tiles have.
    body = SBlockRealize((), IntImm("bool", 1),
                         SBlock((), [], [], f"{block.name_hint}_split", body))
    for lp in reversed(loops[:-1]):
        body = For(lp.loop_var, lp.min, lp.extent, ForKind.SERIAL, body)
    return body
