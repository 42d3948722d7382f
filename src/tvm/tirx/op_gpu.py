"""GPU cross-thread builtins used by the default GPU schedules.

``tvm_thread_allreduce(size, value..., cond, out..., thread_vars...)`` (``void``) is
registered here: ``s_tir.transform.LowerCrossThreadReduction`` produces it (under a
``reduce_scope`` attribute holding the ``CommReducer``) and ``tirx.transform.
LowerThreadAllreduce`` consumes it. The other GPU builtins the passes use keep TVM's names and
live in :mod:`tvm.tirx.op` (registered by the CUDA code generator's work):
``tvm_storage_sync("shared")`` (``__syncthreads()``), ``tvm_warp_shuffle``/``_down``/``_up``
(``mask, value, lane/offset, width, warp_size``) and ``tvm_warp_activemask()``; they are
re-exported here. ``tvm.tirx.gpu_simulator`` gives all of them their SIMT meaning on the CPU.
"""

from __future__ import annotations

from ..ir.op import register_op, register_op_attr
from .op import (
    CallEffectKind,
    call_intrin,
    tvm_storage_sync,
    tvm_warp_activemask,
    tvm_warp_shuffle,
    tvm_warp_shuffle_down,
    tvm_warp_shuffle_up,
)

__all__ = [
    "GPU_SHUFFLE_OPS",
    "tvm_storage_sync",
    "tvm_thread_allreduce",
    "tvm_warp_activemask",
    "tvm_warp_shuffle",
    "tvm_warp_shuffle_down",
    "tvm_warp_shuffle_up",
]

GPU_SHUFFLE_OPS = ("tvm_warp_shuffle", "tvm_warp_shuffle_down", "tvm_warp_shuffle_up")

register_op("tirx.tvm_thread_allreduce", family="intrinsic")
register_op_attr("tirx.tvm_thread_allreduce", "TCallEffectKind", CallEffectKind.Opaque)


def tvm_thread_allreduce(*freduce_args, span=None):
    """Reduce across threads: ``(size, values..., cond, out_ptrs..., thread_vars...)``."""
    return call_intrin("void", "tirx.tvm_thread_allreduce", *freduce_args, span=span)
