"""CUDA variant of ``Tx.copy_async``: ``ldgsts`` (priority 20), ``cp.async`` global -> shared.

The tile is cut and dealt to the scope's threads as by ``copy``'s ``vec_auto`` (the widest
of 16, 8 or 4 bytes that contiguity, alignment and the thread count allow; vector
``f * threads + t`` to thread ``t``), in a ``T.unroll`` loop; each vector is one
``cp.async.cg.shared.global`` (16 bytes, bypassing L1) or ``cp.async.ca.shared.global``
(4/8 bytes) from the global pointer to the shared-window address, through no registers.

Completion is the caller's: ``T.ptx.cp.async.commit_group()`` then
``T.ptx.cp.async.wait_group(n)`` / ``wait_all``, and a barrier before other threads read the
tile. The source must be in global memory and the destination in shared memory, both with
the default layout, at thread, warp, warpgroup or CTA scope with all threads active. Not
supported yet: the ``L2::cache_hint`` / prefetch options, zero-fill (``src-size``), the other
copy_async variants (TMA, DSMEM, tcgen05).
"""

from __future__ import annotations

from .....tirx.operator.tile_primitive import predicate, register_dispatch
from .....tirx.stmt import ForKind
from .._common import all_threads_active, scope_thread_index, scope_threads
from ..copy import _emit_vector_copy, _operands, _scope_ok, plan_vector_copy

__all__ = ["LDGSTS_BYTES"]

#: cp.async sizes, widest first (bytes).
LDGSTS_BYTES = (16, 8, 4)


def _ldgsts_applicable(call, ctx):
    ok, why = _scope_ok(call, ctx)
    if not ok:
        return ok, why
    ok, why = all_threads_active(ctx)
    if not ok:
        return ok, why
    if (call.config or {}).get("mbar") is not None:
        return False, "mbar= asks for a TMA copy (dispatch='tma_auto')"
    dst, src = _operands(call)
    if src.kind != "global" or dst.kind != "shared":
        return False, (f"cp.async copies global -> shared; this copy is {src.kind} -> "
                       f"{dst.kind}")
    plan_vector_copy(dst, src, scope_threads(ctx), LDGSTS_BYTES)
    return True, None


@register_dispatch("copy_async", "cuda", variant="ldgsts", priority=20,
                   when=[predicate("ldgsts_applicable", _ldgsts_applicable)])
def copy_async_ldgsts(call, ctx):
    """Asynchronous global -> shared copy with ``cp.async`` (module docstring)."""
    dst, src = _operands(call)
    threads = scope_threads(ctx)
    num_bytes, vec, steps = plan_vector_copy(dst, src, threads, LDGSTS_BYTES)
    cop = "cg" if num_bytes == 16 else "ca"
    return _emit_vector_copy(dst, src, num_bytes, vec, steps, threads, scope_thread_index(ctx),
                             async_chain=f"cp.async.{cop}.shared.global",
                             loop_kind=ForKind.UNROLLED)
