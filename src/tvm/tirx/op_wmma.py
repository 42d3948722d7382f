"""Tensor-core (WMMA) fragment builtins and the pointer/type helpers they take.

These keep Apache TVM's names and argument orders; they build ``Call`` nodes of ``handle``
type that schedules and TVMScript carry around (for example inside an opaque block):

- ``tvm_load_matrix_sync(fragment, m, n, k, index, buffer_ptr, stride, layout)``
- ``tvm_store_matrix_sync(fragment, m, n, k, index, buffer_ptr, stride, layout)``
- ``tvm_fill_fragment(fragment, m, n, k, index, value)``
- ``tvm_mma_sync(d, index_d, a, index_a, b, index_b, c, index_c)`` (and ``tvm_bmma_sync``)
- ``tvm_access_ptr(type_annotation, data, offset, extent, rw_mask)``: a pointer into a buffer
- ``type_annotation(dtype)``: a value that only carries a dtype

No code generator lowers the WMMA calls yet (the CUDA backend emits its own MMA forms); they
exist so that IR using them parses, prints, compares and goes through s_tir schedules.
"""

from __future__ import annotations

from ..ir.op import register_op, register_op_attr
from .op import CallEffectKind, call_intrin

__all__ = [
    "tvm_access_ptr",
    "tvm_bmma_sync",
    "tvm_fill_fragment",
    "tvm_load_matrix_sync",
    "tvm_mma_sync",
    "tvm_store_matrix_sync",
    "type_annotation",
]

_OPS = {
    "tvm_load_matrix_sync": (8, CallEffectKind.ReadState),
    "tvm_store_matrix_sync": (8, CallEffectKind.Opaque),
    "tvm_fill_fragment": (6, CallEffectKind.Opaque),
    "tvm_mma_sync": (8, CallEffectKind.Opaque),
    "tvm_bmma_sync": (8, CallEffectKind.Opaque),
    "tvm_access_ptr": (5, CallEffectKind.Pure),
    "type_annotation": (0, CallEffectKind.Pure),
}
for _name, (_n, _effect) in _OPS.items():
    register_op(f"tirx.{_name}", num_inputs=_n, family="intrinsic")
    register_op_attr(f"tirx.{_name}", "TCallEffectKind", _effect)


def tvm_load_matrix_sync(fragment, m, n, k, index, buffer_ptr, stride, layout, span=None):
    """Load fragment ``index`` of ``fragment`` (an ``m x n x k`` WMMA tile) from memory."""
    return call_intrin("handle", "tirx.tvm_load_matrix_sync", fragment, m, n, k, index,
                       buffer_ptr, stride, layout, span=span)


def tvm_store_matrix_sync(fragment, m, n, k, index, buffer_ptr, stride, layout, span=None):
    """Store fragment ``index`` of ``fragment`` to memory at ``buffer_ptr``."""
    return call_intrin("handle", "tirx.tvm_store_matrix_sync", fragment, m, n, k, index,
                       buffer_ptr, stride, layout, span=span)


def tvm_fill_fragment(fragment, m, n, k, index, value, span=None):
    """Fill fragment ``index`` of ``fragment`` with ``value``."""
    return call_intrin("handle", "tirx.tvm_fill_fragment", fragment, m, n, k, index, value,
                       span=span)


def tvm_mma_sync(fragment_d, index_d, fragment_a, index_a, fragment_b, index_b, fragment_c,
                 index_c, span=None):
    """``D[index_d] = A[index_a] * B[index_b] + C[index_c]`` on WMMA fragments."""
    return call_intrin("handle", "tirx.tvm_mma_sync", fragment_d, index_d, fragment_a,
                       index_a, fragment_b, index_b, fragment_c, index_c, span=span)


def tvm_bmma_sync(fragment_d, index_d, fragment_a, index_a, fragment_b, index_b, fragment_c,
                  index_c, span=None):
    """The 1-bit (binary) form of :func:`tvm_mma_sync`."""
    return call_intrin("handle", "tirx.tvm_bmma_sync", fragment_d, index_d, fragment_a,
                       index_a, fragment_b, index_b, fragment_c, index_c, span=span)


def tvm_access_ptr(ptype, data, offset, extent, rw_mask, span=None):
    """A pointer to ``extent`` elements of ``data`` from ``offset``.

    ``ptype`` is a :func:`type_annotation` giving the element type; ``rw_mask`` is 1 (read),
    2 (write) or 3 (both).
    """
    return call_intrin("handle", "tirx.tvm_access_ptr", ptype, data, offset, extent, rw_mask,
                       span=span)


def type_annotation(dtype, span=None):
    """A value of type ``dtype`` that only annotates a type (``T.type_annotation("float16")``)."""
    return call_intrin(dtype, "tirx.type_annotation", span=span)
