"""``LowerCrossThreadReduction``: reduction loops bound to ``threadIdx`` become an allreduce.

A reduction block whose reduction loops include a loop bound to ``threadIdx.*`` (what
``sch.bind(k_inner, "threadIdx.x")`` makes, e.g. ``dlight.gpu.Reduction``) is rewritten into
per-thread stages, all inside the thread-bound loops (which are moved above the serial
reduction loops)::

    for k_1 in T.thread_binding(64, thread="threadIdx.x"):
        with T.sblock("B_cross_thread_scope"):          # allocates the two local buffers
            in_thread_B[0] = 0                            # B_in_thread_init
            for k_0 in range(2):                          # B_in_thread (the serial part)
                in_thread_B[0] = in_thread_B[0] + A[i, k_0 * 64 + k_1]   (block predicate kept)
            with T.attr(T.comm_reducer(lambda x, y: x + y, [0.0]), "reduce_scope", 0):
                T.tvm_thread_allreduce(T.uint32(1), in_thread_B[0], T.bool(True),
                                       cross_thread_B[0], k_1)          # B_cross_thread
            if k_1 == 0:                                  # B_write_back
                B[i] = cross_thread_B[0]

Without serial reduction loops, the block's value goes into the allreduce directly, with the
block predicate as the allreduce's condition. Unlike TVM, which allocates the two buffers in
the root block and lets ``PlanAndUpdateBufferAllocationLocation`` move them, they are
allocated in a block inside the thread loops (so every thread has its own).

Supported: single-value reducers recognised from the update ``B[...] = B[...] op value`` with
``op`` one of ``+``, ``*``, ``max``, ``min`` (the block's init value is the identity), the
reduction loops forming a perfect nest right above the block. Anything else with a
thread-bound reduction loop raises a ``ValueError`` saying what is not supported.
"""

from __future__ import annotations

import itertools

from ...ir.expr import Range
from ...ir.transform import PassInfo
from ...tirx.buffer import decl_buffer
from ...tirx.expr import EQ, Add, And, IntImm, Max, Min, Mul, Var
from ...tirx.function import PrimFunc
from ...tirx.generic import const
from ...tirx.op_gpu import tvm_thread_allreduce
from ...tirx.reduction import CommReducer
from ...tirx.stmt import (
    AttrStmt,
    BufferLoad,
    BufferRegion,
    BufferStore,
    Evaluate,
    ForKind,
    IterVar,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ...tirx.stmt_functor import StmtMutator, post_order_visit, substitute
from ...tirx.transform.common import PrimFuncPass

__all__ = ["LowerCrossThreadReduction", "match_reduction_update"]

_COMBINERS = {Add: "sum", Mul: "prod", Max: "max", Min: "min"}


def _is_thread_loop(loop) -> bool:
    tag = loop.thread_binding.thread_tag if loop.thread_binding is not None else ""
    return loop.kind == ForKind.THREAD_BINDING and tag.startswith("threadIdx")


def _var_ids(expr):
    out = set()

    def visit(node):
        if isinstance(node, Var):
            out.add(id(node))

    post_order_visit(expr, visit)
    return out


def _same_access(load, store) -> bool:
    return (isinstance(load, BufferLoad) and load.buffer is store.buffer
            and len(load.indices) == len(store.indices)
            and all(str(a) == str(b) for a, b in zip(load.indices, store.indices)))


def match_reduction_update(block):
    """``(store, combiner_cls, value)`` of ``B[idx] = B[idx] op value``, or ``None``.

    ``op`` is ``+``, ``*``, ``max`` or ``min``; blocks that do not match (argmax's two
    values, a subtraction) cannot be lowered to ``tvm_thread_allreduce``.
    """
    store = block.body
    if not isinstance(store, BufferStore):
        return None
    upd = store.value
    cls = type(upd)
    if cls not in _COMBINERS:
        return None
    if _same_access(upd.a, store):
        return store, cls, upd.b
    if _same_access(upd.b, store):
        return store, cls, upd.a
    return None


def _region(buf):
    return BufferRegion(buf, [Range.from_min_extent(0, 1)])


def _opaque(name, body, reads=(), writes=(), alloc_buffers=()):
    return SBlockRealize((), True, SBlock((), list(reads), list(writes), name, body,
                                          alloc_buffers=list(alloc_buffers)))


def _conjuncts(expr):
    if isinstance(expr, And):
        return _conjuncts(expr.a) + _conjuncts(expr.b)
    return [expr]


class _Lowerer(StmtMutator):
    def __init__(self):
        super().__init__()
        self.loops = []
        self.plans = {}  # id(top loop of the chain) -> replacement builder

    # Phase 1 (collect) and phase 2 (rewrite) share the walk: a chain top is rewritten on
    # the way out, after its realize was seen on the way in.
    def visit_for_(self, op):
        self.loops.append(op)
        try:
            new = super().visit_for_(op)
        finally:
            self.loops.pop()
        build = self.plans.pop(id(op), None)
        return build() if build is not None else new

    def visit_sblock_(self, op):
        saved, self.loops = self.loops, []
        try:
            return super().visit_sblock_(op)
        finally:
            self.loops = saved

    def visit_sblock_realize_(self, op):
        block = op.block
        reduce_ivs = [iv for iv in block.iter_vars if iv.iter_type == IterVar.CommReduce]
        if block.init is None or not reduce_ivs:
            return super().visit_sblock_realize_(op)
        spatial_ids, reduce_ids = set(), set()
        for iv, value in zip(block.iter_vars, op.iter_values):
            (reduce_ids if iv.iter_type == IterVar.CommReduce else spatial_ids).update(
                _var_ids(value))
        red_loops = [lp for lp in self.loops
                     if id(lp.loop_var) in reduce_ids and id(lp.loop_var) not in spatial_ids]
        if not any(_is_thread_loop(lp) for lp in red_loops):
            return super().visit_sblock_realize_(op)
        name = block.name_hint
        chain = self.loops[len(self.loops) - len(red_loops):]
        if [id(x) for x in chain] != [id(x) for x in red_loops]:
            raise ValueError(
                f"LowerCrossThreadReduction: block {name!r}: its reduction loops must be the "
                "innermost loops above it (spatial loops between them are not supported yet)"
            )
        for outer, inner in itertools.pairwise(chain):
            if outer.body is not inner:
                raise ValueError(
                    f"LowerCrossThreadReduction: block {name!r}: the reduction loops must form "
                    "a perfect nest (other statements between them are not supported yet)"
                )
        if chain[-1].body is not op:
            raise ValueError(
                f"LowerCrossThreadReduction: block {name!r} must be the only statement in "
                "its innermost reduction loop"
            )
        match = match_reduction_update(block)
        if match is None:
            raise ValueError(
                f"LowerCrossThreadReduction: block {name!r}: the reduction update must be "
                "B[...] = B[...] op value with op in +, *, max, min (other reducers are not "
                "supported yet)"
            )
        if not isinstance(block.init, BufferStore):
            # Invalid IR for this pass, hence ValueError (house rule), not TypeError.
            raise ValueError(  # noqa: TRY004
                f"LowerCrossThreadReduction: block {name!r}: init must be one store")
        self.plans[id(chain[0])] = lambda: _build(op, chain, match)
        return op


def _build(realize, chain, match):
    block = realize.block
    store, cls, value = match
    out = store.buffer
    dtype = out.dtype
    name = block.name_hint
    identity = block.init.value
    x, y = Var("x0", dtype), Var("y0", dtype)
    reducer = CommReducer([x], [y], [cls(x, y)], [identity])
    thread_loops = [lp for lp in chain if _is_thread_loop(lp)]
    serial_loops = [lp for lp in chain if not _is_thread_loop(lp)]
    cross = decl_buffer((1,), dtype, f"cross_thread_{out.name}", scope="local")
    allocs = [cross]
    stages = []
    if serial_loops:
        acc = decl_buffer((1,), dtype, f"in_thread_{out.name}", scope="local")
        allocs.insert(0, acc)
        acc_load = BufferLoad(acc, [0])
        stages.append(_opaque(f"{name}_in_thread_init", BufferStore(acc, identity, [0]),
                              writes=[_region(acc)]))
        in_block = SBlock(
            block.iter_vars,
            [r for r in block.reads if r.buffer is not out] + [_region(acc)],
            [_region(acc)], f"{name}_in_thread",
            BufferStore(acc, cls(acc_load, value), [0]),
            annotations=block.annotations,
        )
        body = SBlockRealize(realize.iter_values, realize.predicate, in_block)
        for lp in reversed(serial_loops):
            body = lp.replace(body=body)
        stages.append(body)
        red_value, cond = acc_load, const(True, "bool")
        cross_reads = [_region(acc)]
    else:
        vmap = {iv.var: v for iv, v in zip(block.iter_vars, realize.iter_values)}.get
        red_value = substitute(value, vmap)
        cond = realize.predicate
        if isinstance(cond, IntImm):
            cond = const(bool(cond.value), "bool")
        cross_reads = [r for r in block.reads if r.buffer is not out]
    call = tvm_thread_allreduce(const(1, "uint32"), red_value, cond, BufferLoad(cross, [0]),
                                *[lp.loop_var for lp in thread_loops])
    stages.append(_opaque(
        f"{name}_cross_thread",
        AttrStmt(reducer, "reduce_scope", const(0, "int32"), Evaluate(call)),
        reads=cross_reads, writes=[_region(cross)],
    ))
    # Write back from the first thread, under the predicate's parts that do not depend on
    # the reduction loops.
    red_ids = {id(lp.loop_var) for lp in chain}
    conds = [EQ(lp.loop_var, lp.min) for lp in thread_loops]
    conds += [c for c in _conjuncts(realize.predicate)
              if not isinstance(c, IntImm) and not (_var_ids(c) & red_ids)]
    pred = conds[0]
    for c in conds[1:]:
        pred = And(pred, c)
    spatial = [(iv, v) for iv, v in zip(block.iter_vars, realize.iter_values)
               if iv.iter_type != IterVar.CommReduce]
    wb_block = SBlock(
        [iv for iv, _ in spatial], [_region(cross)],
        [r for r in block.writes if r.buffer is out], f"{name}_write_back",
        BufferStore(out, BufferLoad(cross, [0]), store.indices),
    )
    stages.append(SBlockRealize([v for _, v in spatial], pred, wb_block))
    body = _opaque(f"{name}_cross_thread_scope", SeqStmt(stages), alloc_buffers=allocs)
    for lp in reversed(thread_loops):
        body = lp.replace(body=body)
    return body


def _lower(func: PrimFunc, mod, ctx):
    body = _Lowerer()(func.body)
    return func if body is func.body else func.with_body(body)


def LowerCrossThreadReduction():
    """Turn reduction blocks with ``threadIdx``-bound reduction loops into
    ``tvm_thread_allreduce`` stages (see the module docstring)."""
    return PrimFuncPass(_lower, PassInfo(0, "s_tir.LowerCrossThreadReduction"))

