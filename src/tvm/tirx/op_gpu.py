"""GPU synchronisation and cross-thread builtins used by the default GPU schedules.

The ops keep Apache TVM's names and argument orders, so TVMScript prints them the same way
(``T.tvm_storage_sync("shared")``, ``T.tvm_warp_shuffle_down(mask, v, 16, 32, 32)``...):

=========================  ======================================================  ========
op                         arguments                                                dtype
=========================  ======================================================  ========
``tvm_storage_sync``       ``scope`` (``"shared"``/``"warp"``/``"global"``)        ``void``
                           [, ``is_load``, ``num_blocks``]
``tvm_thread_allreduce``   ``size, value..., cond, out_ptr..., thread_vars...``      ``void``
``tvm_warp_shuffle_down``  ``mask, value, offset, width, warp_size``                value's
``tvm_warp_shuffle_up``    ``mask, value, offset, width, warp_size``                value's
``tvm_warp_shuffle``       ``mask, value, src_lane, width, warp_size``              value's
``tvm_warp_activemask``    (none)                                                   uint32
=========================  ======================================================  ========

``tvm_thread_allreduce`` is produced by ``s_tir.transform.LowerCrossThreadReduction`` (under a
``reduce_scope`` attribute holding the ``CommReducer``) and consumed by
``tirx.transform.LowerThreadAllreduce``. The shuffles and ``tvm_storage_sync`` are what the
CUDA code generator emits as ``__shfl_*_sync`` and ``__syncthreads()``.
``tvm.tirx.gpu_simulator`` gives all of them their SIMT meaning on the CPU.

Registering an op is idempotent (``register_op``), so another module may register the same
names (with the same meaning) without conflict.
"""

from __future__ import annotations

from ..ir.op import register_op, register_op_attr
from . import generic as _g
from .op import CallEffectKind, call_intrin

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

_GPU_OPS = {
    "tvm_storage_sync": (-1, CallEffectKind.Opaque),
    "tvm_thread_allreduce": (-1, CallEffectKind.Opaque),
    "tvm_warp_shuffle": (5, CallEffectKind.Opaque),
    "tvm_warp_shuffle_down": (5, CallEffectKind.Opaque),
    "tvm_warp_shuffle_up": (5, CallEffectKind.Opaque),
    "tvm_warp_activemask": (0, CallEffectKind.Opaque),
}


def _register():
    for name, (num_inputs, effect) in _GPU_OPS.items():
        register_op(f"tirx.{name}", num_inputs=num_inputs, family="intrinsic")
        register_op_attr(f"tirx.{name}", "TCallEffectKind", effect)


_register()


def tvm_storage_sync(storage_scope, is_load=False, num_blocks=-1, span=None):
    """A barrier over the threads that share ``storage_scope`` memory.

    ``tvm_storage_sync("shared")`` is ``__syncthreads()``. The passes emit the one-argument form;
    this function, like TVM's, spells out ``is_load`` and ``num_blocks`` (global syncs only).
    """
    if not isinstance(storage_scope, str):
        raise TypeError(f"tvm_storage_sync: storage_scope must be a str, got {storage_scope!r}")
    return call_intrin("void", "tirx.tvm_storage_sync", storage_scope, _g.convert(is_load),
                       _g.convert(num_blocks), span=span)


def tvm_thread_allreduce(*freduce_args, span=None):
    """Reduce across threads: ``(size, values..., cond, out_ptrs..., thread_vars...)``."""
    return call_intrin("void", "tirx.tvm_thread_allreduce", *freduce_args, span=span)


def _shuffle(name, mask, value, lane, width, warp_size, span):
    value = _g.convert(value)
    return call_intrin(value.dtype, f"tirx.{name}", _g.convert(mask), value, _g.convert(lane),
                       _g.convert(width), _g.convert(warp_size), span=span)


def tvm_warp_shuffle(mask, value, warp_id, width, warp_size, span=None):
    """``value`` as held by lane ``warp_id`` of the ``width``-lane section (``__shfl_sync``)."""
    return _shuffle("tvm_warp_shuffle", mask, value, warp_id, width, warp_size, span)


def tvm_warp_shuffle_down(mask, value, offset, width, warp_size, span=None):
    """``value`` from lane ``lane + offset`` of the section (``__shfl_down_sync``)."""
    return _shuffle("tvm_warp_shuffle_down", mask, value, offset, width, warp_size, span)


def tvm_warp_shuffle_up(mask, value, offset, width, warp_size, span=None):
    """``value`` from lane ``lane - offset`` of the section (``__shfl_up_sync``)."""
    return _shuffle("tvm_warp_shuffle_up", mask, value, offset, width, warp_size, span)


def tvm_warp_activemask(span=None):
    """The 32-bit mask of the calling warp's active lanes (``__activemask()``)."""
    return call_intrin("uint32", "tirx.tvm_warp_activemask", span=span)
