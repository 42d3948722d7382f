"""``copy`` variant ``fallback`` (priority 0): the first active thread of the scope copies the
tile element by element, after every faster variant declined (a ``UserWarning`` says so)."""

from __future__ import annotations

import warnings

from .....tirx.expr import IntImm, Var
from .....tirx.function import PrimFunc
from .....tirx.operator.tile_primitive import predicate, register_dispatch
from .....tirx.stmt import BufferLoad, BufferStore, For, ForKind, IfThenElse
from .._common import first_active_thread, scope_thread_index
from . import _operands, _scope_ok, _valid_operands

__all__ = ["copy_fallback"]


def _fallback_applicable(call, ctx):
    ok, why = _scope_ok(call, ctx)
    if not ok:
        return ok, why
    return _valid_operands(call, ctx)


@register_dispatch("copy", "cuda", variant="fallback", priority=0,
                   when=[predicate("validate_copy", _fallback_applicable)])
def copy_fallback(call, ctx):
    """Scalar copy by the first active thread of the scope (slow; warns)."""
    dst, src = _operands(call)
    shape = [dst.extents[k] for k in dst.dims]
    loop_vars = [Var(f"v{k}", "int32") for k in range(len(shape))]

    def indices(op):
        out = list(op.mins)
        for k, v in zip(op.dims, loop_vars):
            out[k] = op.mins[k] + v
        return out

    body = BufferStore(dst.buffer, BufferLoad(src.buffer, indices(src)), indices(dst))
    for v, ext in reversed(list(zip(loop_vars, shape))):
        body = For(v, IntImm("int32", 0), IntImm("int32", ext), ForKind.SERIAL, body)
    if ctx.scope_kind != "thread":
        first = first_active_thread(ctx)
        body = IfThenElse(scope_thread_index(ctx) == first, body)
        warnings.warn(f"copy/fallback (scalar, one thread) picked for {call.scope.name} copy "
                      f"{src.buffer.name} -> {dst.buffer.name}: all faster variants rejected",
                      UserWarning, stacklevel=2)
    return PrimFunc([], body)
