"""TIRx types: ``TensorMapType``, the element type of a TMA descriptor pointer.

A kernel parameter ``A_map: T.TensorMap()`` is a handle variable whose type is
``PointerType(TensorMapType(), "global")``: the address of a ``CUtensorMap`` (a TMA
descriptor, 128 bytes, encoded on the host).
"""

from __future__ import annotations

from ..ir.type import PointerType, Type

__all__ = ["TensorMapType", "is_tensormap_pointer", "tensormap_pointer_type"]


class TensorMapType(Type, type_key="tirx.TensorMapType"):
    """The type of a CUDA tensor map (TMA descriptor)."""

    def __init__(self, span=None):
        self.__init_fields__(span=span)


def tensormap_pointer_type() -> PointerType:
    """``PointerType(TensorMapType(), "global")``: the type of a ``T.TensorMap()``
    parameter."""
    return PointerType(TensorMapType(), "global")


def is_tensormap_pointer(ty) -> bool:
    """Whether ``ty`` is a pointer to a tensor map."""
    return isinstance(ty, PointerType) and isinstance(ty.element_type, TensorMapType)
