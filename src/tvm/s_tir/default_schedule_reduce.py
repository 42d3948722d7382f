"""Rule 2b of the default schedule: a long sum whose innermost loop is a reduction runs on a
vector of partial sums (TVM's ``rfactor`` over the innermost reduction loop).

When nothing spatial can go inside the reduction (a convolution's weight gradient: 72
outputs, each a sum over ``batch x height x width``), the innermost reduction loop would run
one dependent scalar add after another. Instead::

    for spatial...:                        # (parallel/serial as rule 2 chose)
        acc = alloc(R)                     # R: the innermost reduction loop's extent
        acc[0:R] = 0                       # vectorized
        for other reduction loops:
            for r in T.vectorized(R):
                acc[r] += expr(..., r)
        C[...] = init
        for r in range(R):
            C[...] += acc[r]

Only sums (``C = C + expr``) with at least ``REDUCE_VECTOR_MIN_WORK`` terms per output and an
innermost reduction of at least 8 iterations are rewritten; the result differs only in the
order of the floating-point additions.
"""

from __future__ import annotations

from ..ffi.structural import structural_equal
from ..tirx.buffer import decl_buffer
from ..tirx.expr import Add, FloatImm, IntImm, Var
from ..tirx.stmt import BufferLoad, BufferStore, For, ForKind, SBlock, SBlockRealize, SeqStmt
from ..tirx.stmt_functor import post_order_visit, substitute

__all__ = ["REDUCE_VECTOR_MIN_WORK", "vector_reduce"]

#: Fewest terms per output of a sum given the vector of partial sums.
REDUCE_VECTOR_MIN_WORK = 1024


def vector_reduce(headers, kind_of, realize):
    """The rewritten nest (see the module docstring), or None when the rule does not apply.

    ``headers`` are the loop headers in their scheduled order (spatial loops first) and
    ``kind_of`` maps a loop variable's id to whether it is spatial.
    """
    block = realize.block
    if block.init is None or not (isinstance(realize.predicate, IntImm)
                                  and realize.predicate.value == 1):
        return None
    n_spatial = sum(1 for h in headers if kind_of[id(h.var)])
    if any(not kind_of[id(h.var)] for h in headers[:n_spatial]) or n_spatial == len(headers):
        return None
    reductions = headers[n_spatial:]
    inner = reductions[-1]
    if not all(isinstance(h.extent, IntImm) and isinstance(h.min, IntImm) for h in reductions):
        return None
    lanes = inner.extent.value
    work = 1
    for h in reductions:
        work *= h.extent.value
    if lanes < 8 or work < REDUCE_VECTOR_MIN_WORK or inner.min.value != 0:
        return None
    store, init = block.body, block.init
    if not (isinstance(store, BufferStore) and isinstance(store.value, Add)
            and isinstance(init, BufferStore) and init.buffer is store.buffer):
        return None
    acc_load, term = store.value.a, store.value.b
    if not (isinstance(acc_load, BufferLoad) and acc_load.buffer is store.buffer
            and structural_equal(list(acc_load.indices), list(store.indices))
            and structural_equal(list(init.indices), list(store.indices))):
        return None
    loaded = []
    post_order_visit(term, lambda n: loaded.append(n.buffer) if isinstance(n, BufferLoad)
                     else None)
    if any(b is store.buffer for b in loaded):
        return None
    dtype = store.buffer.dtype
    if dtype.startswith("float"):
        zero = FloatImm(dtype, 0.0)
    elif dtype.startswith(("int", "uint")):
        zero = IntImm(dtype, 0)
    else:
        return None
    bind = {iv.var: value for iv, value in zip(block.iter_vars, realize.iter_values)}
    out_index = [substitute(ix, bind) for ix in store.indices]
    acc = decl_buffer((lanes,), dtype, name=f"{store.buffer.name}_rf")
    r = inner.var
    body = For(r, inner.min, inner.extent, ForKind.VECTORIZED,
               BufferStore(acc, acc[r] + substitute(term, bind), [r]))
    for h in reversed(reductions[:-1]):
        body = For(h.var, h.min, h.extent, ForKind.SERIAL, body)
    r0, r1 = Var(f"{r.name}_init", r.dtype), Var(f"{r.name}_sum", r.dtype)
    extent = IntImm(r.dtype, lanes)
    first = IntImm(r.dtype, 0)
    stmts = [
        For(r0, first, extent, ForKind.VECTORIZED, BufferStore(acc, zero, [r0])),
        body,
        BufferStore(store.buffer, substitute(init.value, bind), out_index),
        For(r1, first, extent, ForKind.SERIAL,
            BufferStore(store.buffer, BufferLoad(store.buffer, out_index) + acc[r1], out_index)),
    ]
    scope = SBlock((), [], [], f"{block.name_hint}_rf", SeqStmt(stmts), alloc_buffers=[acc])
    nest = SBlockRealize((), IntImm("bool", 1), scope)
    for h in reversed(headers[:n_spatial]):
        nest = For(h.var, h.min, h.extent, h.kind, nest)
    return nest
