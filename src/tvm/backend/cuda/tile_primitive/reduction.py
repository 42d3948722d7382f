"""CUDA variants of the reductions ``Tx.sum`` / ``Tx.max`` / ``Tx.min``: ``shared`` (priority 10).

``Tx.warp.sum(dst, src, axes, accum)`` and ``Tx.cta.sum(...)`` reduce a tile in shared (or
global) memory with the default layout over ``axes``:

* for each output element (the kept dimensions, flattened, in a serial loop), every thread
  of the scope folds a strided part of the reduced elements into a register (element
  ``j * n + t`` to thread ``t`` of ``n``);
* warp scope: ``T.cuda.warp_reduce`` (a ``__shfl_xor_sync`` butterfly, every lane gets the
  result) combines the 32 lanes; lane 0 writes a shared/global ``dst``, every lane writes a
  register (``local``) ``dst``;
* CTA scope: each warp reduces with ``T.cuda.warp_reduce``, lane 0 of every warp stores its
  partial into a shared workspace (one element per warp, a private allocation of the kernel),
  ``T.cuda.cta_sync()``, then warp 0 reduces the partials and its lane 0 writes ``dst``; a
  second ``T.cuda.cta_sync()`` ends each output element (the workspace is reused).

``accum=True`` folds the current ``dst`` in. Every thread of the scope must be active. The
caller synchronises before other threads read a shared ``dst``. Thread scope is left to the
generic variant. Not supported yet: register-tile sources spread over lanes (thread-axis
layouts), warpgroup scope, packed ``f32x2`` reductions (0.27's sm100 variants).
"""

from __future__ import annotations

import math

from ....tirx.buffer import decl_buffer
from ....tirx.cuda_ops import cuda
from ....tirx.expr import IntImm, Var
from ....tirx.function import PrimFunc
from ....tirx.operator.tile_primitive import fail, predicate, register_dispatch
from ....tirx.operator.tile_primitive.generic import _REDUCE, _cast, _reduce_init, _Tile
from ....tirx.stmt import (
    AllocBuffer,
    BufferLoad,
    BufferRegion,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    SeqStmt,
)
from ....tirx.stmt_functor import substitute
from ._common import (
    WARP_SIZE,
    _row_major_layout,
    all_threads_active,
    const_int,
    memory_kind,
    scope_thread_index,
    scope_threads,
)

__all__ = ["REDUCE_OPS"]

REDUCE_OPS = ("sum", "max", "min")
_ZERO = IntImm("int32", 0)


def _parts(call):
    if len(call.args) < 3:
        fail(f"{call.name} needs dst, src and the reduction axes")
    dst, src = call.args[0], call.args[1]
    for what, r in (("destination", dst), ("source", src)):
        if not isinstance(r, BufferRegion):
            fail(f"the {what} must be a buffer region, got {type(r).__name__}")
    axes = [int(a) for a in call.args[2]]
    accum = bool(call.args[3]) if len(call.args) > 3 else False
    return dst, src, axes, accum


def _applicable(call, ctx):
    if ctx.scope_kind not in ("warp", "cta"):
        return False, f"scope {ctx.scope_kind!r} is not one of warp, cta"
    ok, why = all_threads_active(ctx)
    if not ok:
        return ok, why
    dst, src, _, _ = _parts(call)
    if memory_kind(src.buffer) == "local":
        return False, ("a register (local) source at warp/cta scope needs a layout with thread "
                       "axes, which is not supported yet")
    if ctx.scope_kind == "cta" and memory_kind(dst.buffer) == "local":
        return False, "a register (local) destination of a CTA reduction is not supported yet"
    for r in (dst, src):
        if not _row_major_layout(r.buffer):
            return False, f"operand {r.buffer.name} has a non-default layout (not supported yet)"
    return True, None


def _unflatten(flat, extents):
    """Row-major indices of ``flat`` over ``extents``."""
    out = []
    for pos, ext in enumerate(extents):
        inner = math.prod(extents[pos + 1:])
        q = flat // inner if inner != 1 else flat
        out.append(q % ext if pos else q)
    return out


def _shared_reduce(call, ctx):
    """Warp/CTA reduction of a shared/global tile (module docstring)."""
    dst, src, axes, accum = _parts(call)
    name, dtype = call.name, dst.buffer.dtype
    fn = _REDUCE[name]
    ndim = len(src.region)
    axes = sorted({a % ndim for a in axes})
    ext = [const_int(r.extent, "source extent") for r in src.region]
    kept = [k for k in range(ndim) if k not in axes]
    kept_ext = [ext[k] for k in kept]
    red_ext = [ext[k] for k in axes]
    n_out, n_red = math.prod(kept_ext), math.prod(red_ext)
    threads = scope_threads(ctx)
    tid = scope_thread_index(ctx)
    dst_tile = _Tile(dst, [e for e in kept_ext if e != 1], "destination")

    o = Var(f"{name}_o", "int32")
    j = Var(f"{name}_j", "int32")
    o_idx = dict(zip(kept, _unflatten(o, kept_ext)))
    r_flat = j * threads + tid
    r_idx = dict(zip(axes, _unflatten(r_flat, red_ext)))
    src_idx = [src.region[k].min + (o_idx[k] if k in o_idx else r_idx[k]) for k in range(ndim)]
    dst_idx = dst_tile.indices([o_idx[k] for k in kept if ext[k] != 1])

    acc = decl_buffer((1,), dtype, f"{name}_acc", scope="local")
    acc0 = BufferLoad(acc, [_ZERO])
    steps = -(-n_red // threads)
    fold = BufferStore(acc, fn(acc0, _cast(BufferLoad(src.buffer, src_idx), dtype)), [_ZERO])
    if n_red % threads:
        fold = IfThenElse(r_flat < n_red, fold)
    body = [AllocBuffer(acc), BufferStore(acc, _reduce_init(name, dtype), [_ZERO]),
            For(j, _ZERO, IntImm("int32", steps), ForKind.SERIAL, fold),
            BufferStore(acc, cuda.warp_reduce(acc0, name), [_ZERO])]
    lane = tid % WARP_SIZE if ctx.scope_kind == "cta" else tid

    def write(value):
        if accum:
            value = fn(BufferLoad(dst.buffer, dst_idx), value)
        return BufferStore(dst.buffer, value, dst_idx)

    if ctx.scope_kind == "warp":
        if memory_kind(dst.buffer) == "local":
            body.append(write(acc0))
        else:
            body.append(IfThenElse(lane == 0, write(acc0)))
    else:
        nwarps = threads // WARP_SIZE
        if threads % WARP_SIZE or nwarps > WARP_SIZE:
            fail(f"a CTA reduction needs whole warps, at most 32 ({threads} threads)")
        ws = decl_buffer((nwarps,), dtype, f"{name}_partial", scope="shared")
        ctx.add_alloc_buffer(ws)
        warp = tid // WARP_SIZE
        part = decl_buffer((1,), dtype, f"{name}_part", scope="local")
        part0 = BufferLoad(part, [_ZERO])
        body += [
            IfThenElse(lane == 0, BufferStore(ws, acc0, [warp])),
            Evaluate(cuda.cta_sync()),
            IfThenElse(warp == 0, SeqStmt([
                AllocBuffer(part),
                BufferStore(part, _reduce_init(name, dtype), [_ZERO]),
                IfThenElse(lane < nwarps, BufferStore(part, BufferLoad(ws, [lane]), [_ZERO])),
                BufferStore(part, cuda.warp_reduce(part0, name), [_ZERO]),
                IfThenElse(lane == 0, write(part0)),
            ])),
            Evaluate(cuda.cta_sync()),
        ]
    loop = SeqStmt(body)
    if n_out > 1:
        loop = For(o, _ZERO, IntImm("int32", n_out), ForKind.SERIAL, loop)
    else:
        loop = substitute(loop, {o: _ZERO})
    return PrimFunc([], loop)


for _name in REDUCE_OPS:
    register_dispatch(_name, "cuda", variant="shared", priority=10,
                      when=[predicate("shared_valid", _applicable)])(_shared_reduce)
del _name
