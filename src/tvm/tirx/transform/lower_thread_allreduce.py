"""``LowerThreadAllreduce``: ``tvm_thread_allreduce`` becomes warp shuffles and shared memory.

Input (what ``s_tir.transform.LowerCrossThreadReduction`` leaves, after block lowering)::

    for tx in T.thread_binding(128, thread="threadIdx.x"):
        ...
        with T.attr(T.comm_reducer(lambda x, y: x + y, [0.0]), "reduce_scope", 0):
            T.tvm_thread_allreduce(T.uint32(1), value, cond, out[0], tx)

Output, for ``n`` reducing threads (the extent of ``tx``'s loop), all threads of a group
(one value of the enclosing ``threadIdx.y``/``threadIdx.z`` loops) ending with the result in
``out[0]``:

* ``n`` a power of two: each warp reduces with ``tvm_warp_shuffle_down`` (offsets ``w/2 ..
  1``, ``w = min(n, 32)``, shuffle width ``w``); for ``n > 32`` lane 0 of each warp puts its
  value in a shared staging buffer, ``tvm_storage_sync("shared")``, and the first warp reduces
  the ``n / 32`` partial values with shuffles again.
* otherwise: a tree reduction in shared memory (values padded with the identity up to the
  next power of two, one ``tvm_storage_sync`` per level).
* the first thread of the group writes the result to shared ``red_result[group]``; after a
  barrier every thread reads it into ``out[0]``, then a last barrier lets the buffers be
  reused (the allreduce may sit in a loop).

Limits (``ValueError`` naming them): single-value reducers; the reducing threads must be one
loop bound to ``threadIdx.x``; its extent and the other thread loops' extents must be constant;
at most 1024 threads.
"""

from __future__ import annotations

from ...ir.transform import PassInfo
from ..buffer import decl_buffer
from ..expr import EQ, LT, Add, FloorDiv, FloorMod, IntImm, Mul, Select, Sub
from ..function import PrimFunc
from ..generic import const
from ..op import tvm_storage_sync
from ..op_gpu import tvm_warp_activemask, tvm_warp_shuffle_down
from ..stmt import (
    AllocBuffer,
    AttrStmt,
    BufferLoad,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    SeqStmt,
)
from ..stmt_functor import StmtMutator
from .common import PrimFuncPass

__all__ = ["LowerThreadAllreduce"]

WARP_SIZE = 32


def _sync():
    # The one-argument form, as TVM's passes emit it.
    return Evaluate(tvm_storage_sync("shared"))


def _thread_of(node):
    """``(tag, var, min, extent)`` of a thread loop / ``thread_extent`` attribute, or None."""
    if isinstance(node, For) and node.kind == ForKind.THREAD_BINDING and \
            node.thread_binding is not None:
        return node.thread_binding.thread_tag, node.loop_var, node.min, node.extent
    if isinstance(node, AttrStmt) and node.attr_key == "thread_extent":
        return node.node.thread_tag, node.node.var, const(0, node.value.dtype), node.value
    return None


def _is_zero(e) -> bool:
    return isinstance(e, IntImm) and e.value == 0


def _add(a, b):
    return b if _is_zero(a) else a if _is_zero(b) else Add(a, b)


def _mul(a, b):
    return a if _is_zero(a) else Mul(a, b)


def _int(expr, what):
    if not isinstance(expr, IntImm):
        # Invalid IR for this pass, hence ValueError (house rule), not TypeError.
        raise ValueError(  # noqa: TRY004
            f"LowerThreadAllreduce: {what} must be a constant, got {expr}")
    return int(expr.value)


class _Lowerer(StmtMutator):
    def __init__(self, warp_size):
        super().__init__()
        self.threads = []  # enclosing (tag, var, min, extent)
        self.warp_size = warp_size
        self.count = 0

    def visit_for_(self, op):
        info = _thread_of(op)
        if info is not None:
            self.threads.append(info)
        try:
            return super().visit_for_(op)
        finally:
            if info is not None:
                self.threads.pop()

    def visit_attr_stmt_(self, op):
        if op.attr_key == "reduce_scope" and isinstance(op.body, Evaluate):
            call = op.body.value
            if getattr(getattr(call, "op", None), "name", "") == "tirx.tvm_thread_allreduce":
                return self.lower(op.node, call)
        info = _thread_of(op)
        if info is not None:
            self.threads.append(info)
        try:
            return super().visit_attr_stmt_(op)
        finally:
            if info is not None:
                self.threads.pop()

    def lower(self, reducer, call):
        args = list(call.args)
        size = _int(args[0], "the allreduce's value count")
        if size != 1 or len(reducer.result) != 1:
            raise ValueError("LowerThreadAllreduce: reducers of several values (argmax...) are "
                             "not supported yet")
        value, cond, out = args[1], args[2], args[3]
        red_vars = args[4:]
        if len(red_vars) != 1:
            raise ValueError("LowerThreadAllreduce: reductions over several thread axes are not "
                             "supported yet (bind the reduction to threadIdx.x only)")
        info = next((t for t in self.threads if t[1] is red_vars[0]), None)
        if info is None:
            raise ValueError(f"LowerThreadAllreduce: {red_vars[0]} is not an enclosing "
                             "thread-bound loop variable")
        tag, var, lo, extent = info
        if tag != "threadIdx.x":
            raise ValueError(f"LowerThreadAllreduce: the reduction is bound to {tag}; only "
                             "threadIdx.x is supported yet")
        n = _int(extent, f"the extent of {tag}")
        if n > 1024:
            raise ValueError(f"LowerThreadAllreduce: {n} threads exceed 1024")
        group, ngroups = const(0, var.dtype), 1
        for other_tag, other_var, other_lo, other_ext in self.threads:
            if other_tag in ("threadIdx.y", "threadIdx.z"):
                ext = _int(other_ext, f"the extent of {other_tag}")
                group = _add(_mul(group, const(ext, var.dtype)),
                             other_var if _is_zero(other_lo) else Sub(other_var, other_lo))
                ngroups *= ext
        tx = var if isinstance(lo, IntImm) and lo.value == 0 else Sub(var, lo)
        if not isinstance(out, BufferLoad):
            raise ValueError(  # noqa: TRY004 - invalid IR (house rule: ValueError)
                "LowerThreadAllreduce: the allreduce output must be a buffer element (out[0])")
        self.count += 1
        return _Builder(reducer, value, cond, out, tx, n, group, ngroups, self.warp_size,
                        self.count).build()


class _Builder:
    def __init__(self, reducer, value, cond, out, tx, n, group, ngroups, warp, index):
        self.reducer = reducer
        self.dtype = value.dtype
        self.identity = reducer.identity_element[0]
        self.value, self.cond, self.out = value, cond, out
        self.tx, self.n, self.group, self.ngroups, self.warp = tx, n, group, ngroups, warp
        self.suffix = "" if index == 1 else f"_{index - 1}"
        self.stmts = []

    def buf(self, name, shape, scope, dtype=None):
        b = decl_buffer(shape, dtype or self.dtype, name + self.suffix, scope=scope)
        self.stmts.append(AllocBuffer(b))
        return b

    def c(self, v):
        return const(v, self.tx.dtype)

    def combine(self, a, b):
        return self.reducer(a, b)

    def warp_reduce(self, acc, width):
        """Shuffle-down reduction of ``acc[0]`` over sections of ``width`` lanes."""
        mask = self.buf("mask", (1,), "local", "uint32")
        tmp = self.buf("t0", (1,), "local")
        self.stmts.append(BufferStore(mask, tvm_warp_activemask(), [0]))
        off = width // 2
        while off >= 1:
            shuffled = tvm_warp_shuffle_down(BufferLoad(mask, [0]), BufferLoad(acc, [0]), off,
                                             width, self.warp)
            self.stmts.append(BufferStore(tmp, shuffled, [0]))
            self.stmts.append(BufferStore(
                acc, self.combine(BufferLoad(acc, [0]), BufferLoad(tmp, [0])), [0]))
            off //= 2

    def build(self):
        n, tx, g = self.n, self.tx, self.group
        acc = self.buf("red_buf0", (1,), "local")
        start = self.value
        if not (isinstance(self.cond, IntImm) and self.cond.value):
            start = Select(self.cond, self.value, self.identity)
        self.stmts.append(BufferStore(acc, start, [0]))
        if n & (n - 1) == 0:
            self.warp_reduce(acc, min(n, self.warp))
            final = acc
            if n > self.warp:
                nw = n // self.warp
                staging = self.buf("red_buf_staging", (self.ngroups * nw,), "shared")
                base = _mul(g, self.c(nw))
                self.stmts.append(IfThenElse(
                    EQ(FloorMod(tx, self.c(self.warp)), self.c(0)),
                    BufferStore(staging, BufferLoad(acc, [0]),
                                [_add(base, FloorDiv(tx, self.c(self.warp)))])))
                self.stmts.append(_sync())
                acc2 = self.buf("red_buf1", (1,), "local")
                self.stmts.append(BufferStore(acc2, self.identity, [0]))
                self.stmts.append(IfThenElse(
                    LT(tx, self.c(nw)),
                    BufferStore(acc2, BufferLoad(staging, [_add(base, tx)]), [0])))
                if nw > 1:
                    self.warp_reduce(acc2, nw)
                final = acc2
            final_value = BufferLoad(final, [0])
        else:
            p = 1 << (n - 1).bit_length()
            staging = self.buf("red_buf_staging", (self.ngroups * p,), "shared")
            base = _mul(g, self.c(p))
            self.stmts.append(BufferStore(staging, BufferLoad(acc, [0]), [_add(base, tx)]))
            self.stmts.append(IfThenElse(
                LT(tx, self.c(p - n)),
                BufferStore(staging, self.identity, [_add(base, Add(tx, self.c(n)))])))
            self.stmts.append(_sync())
            s = p // 2
            while s >= 1:
                here = _add(base, tx)
                self.stmts.append(IfThenElse(LT(tx, self.c(s)), BufferStore(
                    staging, self.combine(BufferLoad(staging, [here]),
                                          BufferLoad(staging, [Add(here, self.c(s))])),
                    [here])))
                self.stmts.append(_sync())
                s //= 2
            final_value = BufferLoad(staging, [base])
        result = self.buf("red_result", (self.ngroups,), "shared")
        self.stmts.append(IfThenElse(EQ(tx, self.c(0)),
                                     BufferStore(result, final_value, [g])))
        self.stmts.append(_sync())
        self.stmts.append(BufferStore(self.out.buffer, BufferLoad(result, [g]),
                                      self.out.indices))
        self.stmts.append(_sync())
        return SeqStmt(self.stmts)


def _lower(func: PrimFunc, mod, ctx):
    warp = WARP_SIZE
    target = func.get_attr("target")
    if target is not None and hasattr(target, "attrs"):
        value = target.attrs.get("thread_warp_size")
        if value is not None:
            warp = int(getattr(value, "value", value))
    body = _Lowerer(warp)(func.body)
    return func if body is func.body else func.with_body(body)


def LowerThreadAllreduce():
    """Lower ``tvm_thread_allreduce`` calls into warp shuffles and shared memory (see the
    module docstring)."""
    return PrimFuncPass(_lower, PassInfo(0, "tirx.LowerThreadAllreduce"))

