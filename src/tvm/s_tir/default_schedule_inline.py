"""Default schedule, before the rules: transposes into intermediates are inlined.

FuseOps puts a ``permute_dims`` producer in the same fused function as the matmul that reads
it (``matmul(permute_dims(x), dy)`` of a gradient). FuseTIR gives it its own loop nest writing
an intermediate buffer; here that nest is removed and its consumers read the transpose's input
in place (TVM's ``compute_inline``): ``T[i, j] = X[j, i]; ... T[a, b] ...`` becomes
``... X[b, a] ...``. The matmul rule then reads ``A[k, i]`` directly (consecutive rows of the
register tile are consecutive floats) or packs ``B[j, k]`` into its strip.
"""

from __future__ import annotations

from ..tirx.expr import IntImm, Var
from ..tirx.stmt import BufferLoad, BufferStore, For, IterVar, SBlockRealize
from ..tirx.stmt_functor import ir_transform, post_order_visit, substitute

__all__ = ["inline_permutations"]


def _permutation(stmt, intermediates):
    """``(out buffer, iterator vars, input load)`` of a pure transpose nest, else None.

    The nest must be a perfect nest over the whole output, one loop per (spatial) block
    iterator, whose block stores ``Out[v0, ..., vn] = In[perm(v0, ..., vn)]`` into an
    intermediate buffer (an ``alloc_buffer`` of the root block).
    """
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
    for lp, dim in zip(loops, out.shape):
        if not (isinstance(lp.min, IntImm) and lp.min.value == 0 and isinstance(lp.extent, IntImm)
                and isinstance(dim, IntImm) and lp.extent.value == dim.value):
            return None
    load = store.value
    if not isinstance(load, BufferLoad) or load.buffer is out or load.buffer.dtype != out.dtype:
        return None
    ids = [id(iv.var) for iv in ivs]
    if not (len(load.indices) == len(ids) and all(isinstance(ix, Var) for ix in load.indices)
            and sorted(id(ix) for ix in load.indices) == sorted(ids)):
        return None
    return out, [iv.var for iv in ivs], load


def inline_permutations(stmts, alloc_buffers):
    """``(statements, whether any nest was inlined)``; see the module docstring.

    A transpose nest is inlined when every read of its output is in a later nest, no other
    nest writes that buffer, and no later nest writes the transpose's input.
    """
    intermediates = {id(b) for b in alloc_buffers}
    stmts = list(stmts)
    inlined = False
    pos = 0
    while pos < len(stmts):
        found = _permutation(stmts[pos], intermediates)
        if (found is None or not _only_read_later(stmts, pos, found[0])
                or _written(stmts[pos + 1:], found[2].buffer)):
            pos += 1
            continue
        out, ivs, load = found

        def rewrite(node, out=out, ivs=ivs, load=load):
            if isinstance(node, BufferLoad) and node.buffer is out:
                return substitute(load, dict(zip(ivs, node.indices)))
            return None

        stmts = stmts[:pos] + [ir_transform(s, None, rewrite, ["tirx.BufferLoad"])
                               for s in stmts[pos + 1:]]
        inlined = True
    return stmts, inlined


def _written(stmts, buffer):
    """Whether a statement stores into ``buffer`` (the inlined read would see the new data)."""
    stores = []
    for stmt in stmts:
        post_order_visit(stmt, lambda n: stores.append(n)
                         if isinstance(n, BufferStore) and n.buffer is buffer else None)
    return bool(stores)


def _only_read_later(stmts, pos, out):
    touched = []

    def visit(node):
        if isinstance(node, (BufferLoad, BufferStore)) and node.buffer is out:
            touched.append(node)

    for stmt in stmts[:pos]:
        post_order_visit(stmt, visit)
    if touched:
        return False
    for stmt in stmts[pos + 1:]:
        post_order_visit(stmt, lambda n: touched.append(n)
                         if isinstance(n, BufferStore) and n.buffer is out else None)
    return not touched
