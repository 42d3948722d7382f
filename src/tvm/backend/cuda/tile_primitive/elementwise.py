"""CUDA variants of the elementwise tile primitives: ``reg`` and ``smem`` (priority 10).

Ops: ``fill``, ``zero``, the unary ops (``sqrt``, ``exp``, ``exp2``, ``log2``,
``reciprocal``, ``silu``, with the optional ``bias``/``scale``), ``cast``, the binary ops
(``add``, ``sub``, ``mul``, ``fdiv``, ``maximum``, ``minimum``) and ``fma``.

* ``smem``: every tile operand is in shared (or global) memory with the default layout; at
  thread, warp, warpgroup or CTA scope with all of the scope's threads active. The tile's
  elements, flattened row-major, are dealt round-robin to the scope's threads (element
  ``k * n + t`` to thread ``t`` of ``n``, the thread index taken from the kernel's scope ids:
  lane for a warp, thread-in-warpgroup, thread-in-CTA), with a guard on the last step when
  ``n`` does not divide the element count. The caller synchronises (``T.cuda.cta_sync()``)
  before other threads read the result, as for any shared-memory write.
* ``reg``: every tile operand is a register (``local``) buffer with the default layout; each
  thread applies the op to its own registers, at any of those scopes (registers are private,
  so a warp-scope call is the same loop in every lane).

The per-element arithmetic is the generic variant's (``tvm.tirx.operator.tile_primitive
.generic``): these variants reuse it with the scope's thread index and count, which the
generic variant does not know about (it handles thread and CTA scope only). Not supported
yet: vectorized (packed ``f32x2``/``half2``) arithmetic, register tiles with a thread-axis
layout, swizzled shared layouts.
"""

from __future__ import annotations

from ....ir.expr import Range
from ....tirx.expr import IntImm, Var
from ....tirx.operator.tile_primitive import fail, predicate, register_dispatch
from ....tirx.operator.tile_primitive.dispatcher import _DISPATCH_TABLE, ANY_TARGET
from ....tirx.stmt import BufferRegion, IterVar
from ....tirx.stmt_functor import substitute
from ....tirx.tile_primitive import DispatchContext, get_tile_op
from ._common import (
    _row_major_layout,
    all_threads_active,
    memory_kind,
    scope_thread_index,
    scope_threads,
)

__all__ = ["ELEMENTWISE_OPS"]

ELEMENTWISE_OPS = (
    "fill", "zero", "sqrt", "exp", "exp2", "log2", "reciprocal", "silu", "cast",
    "add", "sub", "mul", "fdiv", "maximum", "minimum", "fma",
)

_SCOPES = ("thread", "warp", "warpgroup", "cta")


def _regions(call):
    return [a for a in call.args if isinstance(a, BufferRegion)]


def _check(call, ctx, kinds, label):
    if ctx.scope_kind not in _SCOPES:
        return False, f"scope {ctx.scope_kind!r} is not one of {', '.join(_SCOPES)}"
    regions = _regions(call)
    if not regions:
        return False, "no tile operand"
    for r in regions:
        kind = memory_kind(r.buffer)
        if kind not in kinds:
            return False, f"operand {r.buffer.name} is in {kind} memory, not {label}"
        if not _row_major_layout(r.buffer):
            return False, (f"operand {r.buffer.name} has a non-default layout (not supported "
                           "yet)")
    return True, None


def _smem_applicable(call, ctx):
    ok, why = _check(call, ctx, ("shared", "global"), "shared/global")
    if not ok:
        return ok, why
    return all_threads_active(ctx)


def _reg_applicable(call, ctx):
    return _check(call, ctx, ("local",), "registers (local)")


def _generic_impl(call):
    for case in _DISPATCH_TABLE.get((get_tile_op(call.name), ANY_TARGET), []):
        if case.variant == "default":
            return case.impl
    fail(f"no generic lowering of {call.name} to build on")
    return None


def _lower_with_threads(call, ctx, threads: int, tid):
    """The generic lowering, dealt over ``threads`` threads whose index is ``tid``."""
    impl = _generic_impl(call)
    if threads == 1:
        sub = DispatchContext(ctx.target, "thread", ctx.launch_params, ctx.var_range_map,
                              shared_state=ctx.shared_state)
        return impl(call, sub)
    t = Var("t_in_scope", "int32")
    dom = Range.from_min_extent(IntImm("int32", 0), IntImm("int32", threads))
    sub = DispatchContext(ctx.target, "cta", {"thread_id": IterVar(dom, t, IterVar.ThreadIndex,
                                                                   "thread_id")},
                          ctx.var_range_map, shared_state=ctx.shared_state)
    func = impl(call, sub)
    return func.with_body(substitute(func.body, {t: tid}))


def _smem(call, ctx):
    """Elementwise op over shared/global tiles, spread over the scope's threads."""
    return _lower_with_threads(call, ctx, scope_threads(ctx), scope_thread_index(ctx))


def _reg(call, ctx):
    """Elementwise op over each thread's own register tiles."""
    return _lower_with_threads(call, ctx, 1, None)


for _name in ELEMENTWISE_OPS:
    register_dispatch(_name, "cuda", variant="smem", priority=10,
                      when=[predicate(f"{_name}_smem", _smem_applicable)])(_smem)
    register_dispatch(_name, "cuda", variant="reg", priority=10,
                      when=[predicate(f"{_name}_reg", _reg_applicable)])(_reg)
del _name
