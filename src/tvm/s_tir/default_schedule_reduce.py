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

**Row reductions** (one reduction loop of ``R`` iterations, ``ROW_REDUCE_MIN <= R``, a
multiple of ``ROW_REDUCE_LANES``: layer norm's mean and variance over 256 columns, softmax's
max and sum over a row) are split into ``R / L`` steps of an ``L``-lane vector
(``L = ROW_REDUCE_LANES``, 16), then the ``L`` partial results are combined: ``R / L + L``
dependent operations instead of ``R`` (a scalar add waits ~4 cycles for the previous one).
Sums, ``max`` and ``min`` are rewritten (the block's init value starts every lane).
"""

from __future__ import annotations

from ..ffi.structural import structural_equal
from ..tirx.buffer import decl_buffer
from ..tirx.expr import Add, FloatImm, IntImm, Max, Min, Var
from ..tirx.stmt import BufferLoad, BufferStore, For, ForKind, SBlock, SBlockRealize, SeqStmt
from ..tirx.stmt_functor import post_order_visit, substitute

__all__ = ["REDUCE_VECTOR_MIN_WORK", "ROW_REDUCE_LANES", "ROW_REDUCE_MIN", "vector_reduce"]

#: Fewest terms per output of a sum given the vector of partial sums.
REDUCE_VECTOR_MIN_WORK = 1024
#: Lanes of a split row reduction, and the shortest row split (see the module docstring).
ROW_REDUCE_LANES = 16
ROW_REDUCE_MIN = 32


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
    store, init = block.body, block.init
    combine = type(store.value) if isinstance(store, BufferStore) else None
    if combine not in (Add, Max, Min) or not (isinstance(init, BufferStore)
                                               and init.buffer is store.buffer):
        return None
    split = None
    if lanes < 8 or work < REDUCE_VECTOR_MIN_WORK or combine is not Add:
        # A row reduction: its one loop split into steps of a ROW_REDUCE_LANES vector.
        if (len(reductions) != 1 or lanes < ROW_REDUCE_MIN or lanes % ROW_REDUCE_LANES
                or inner.min.value != 0):
            return None
        split = inner
    elif inner.min.value != 0:
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
    if combine is not Add:
        # max/min: every lane starts at the init value (-inf-like), which must not depend
        # on the output's position.
        zero = init.value
        if any(isinstance(n, Var) for n in _nodes(zero)):
            return None
    loops = list(reductions[:-1])
    term = substitute(term, bind)
    if split is not None:
        lanes = ROW_REDUCE_LANES
        r = Var(f"{split.var.name}_l", split.var.dtype)
        step = Var(f"{split.var.name}_s", split.var.dtype)
        term = substitute(term, {split.var: step * IntImm(r.dtype, lanes) + r})
        loops.append(_Loop(step, IntImm(r.dtype, 0),
                           IntImm(r.dtype, split.extent.value // lanes)))
    else:
        r = inner.var
    acc = decl_buffer((lanes,), dtype, name=f"{store.buffer.name}_rf")
    body = For(r, IntImm(r.dtype, 0), IntImm(r.dtype, lanes), ForKind.VECTORIZED,
               BufferStore(acc, _combine(combine, acc[r], term), [r]))
    for h in reversed(loops):
        body = For(h.var, h.min, h.extent, ForKind.SERIAL, body)
    r0, r1 = Var(f"{r.name}_init", r.dtype), Var(f"{r.name}_sum", r.dtype)
    extent = IntImm(r.dtype, lanes)
    first = IntImm(r.dtype, 0)
    stmts = [
        For(r0, first, extent, ForKind.VECTORIZED, BufferStore(acc, zero, [r0])),
        body,
        BufferStore(store.buffer, substitute(init.value, bind), out_index),
        For(r1, first, extent, ForKind.SERIAL,
            BufferStore(store.buffer,
                        _combine(combine, BufferLoad(store.buffer, out_index), acc[r1]),
                        out_index)),
    ]
    scope = SBlock((), [], [], f"{block.name_hint}_rf", SeqStmt(stmts), alloc_buffers=[acc])
    nest = SBlockRealize((), IntImm("bool", 1), scope)
    for h in reversed(headers[:n_spatial]):
        nest = For(h.var, h.min, h.extent, h.kind, nest)
    return nest


class _Loop:
    __slots__ = ("extent", "min", "var")

    def __init__(self, var, min_, extent):
        self.var, self.min, self.extent = var, min_, extent


def _combine(kind, a, b):
    return kind(a, b)


def _nodes(expr):
    found = []
    post_order_visit(expr, found.append)
    return found
