"""Types shared by the IRs: ``Type``, ``PrimType``, ``PointerType``, ``TupleType``, ``FuncType``.

Relax adds its own types (``TensorType``, ``ShapeType``, ``ObjectType``, its ``FuncType``) in
``tvm.relax.ty``; ``PrimType`` and ``TupleType`` defined here are used by both IRs, as in Apache
TVM 0.27 (``tvm.relax.PrimType is tvm.ir.PrimType``).

Types are declared nodes: they compare structurally, field by field, and are immutable.
"""

from __future__ import annotations

from ..ffi.node import IGNORE, Node, field
from .base import Scriptable

__all__ = [
    "FuncType",
    "OpaqueType",
    "PointerType",
    "PrimType",
    "StringType",
    "TupleType",
    "Type",
]


class Type(Scriptable, Node, type_key="ir.Type"):
    """Base class of every type (TIR and Relax)."""

    span: object = field(None, role=IGNORE, kw_only=True)


class PrimType(Type, type_key="ir.PrimType"):
    """A scalar type such as ``int64`` or ``float32``; optionally a known scalar ``value``.

    Parameters
    ----------
    dtype : str or PrimExpr
        The dtype string. A PrimExpr is accepted too: its dtype is used and it becomes
        ``value`` (Relax's ``R.Prim(value=n)``).
    value : PrimExpr, optional
        The known value of the scalar, when Relax tracks it.
    """

    dtype: str
    value: object = None

    def __init__(self, dtype="", value=None, span=None):
        if not isinstance(dtype, str):
            # ``PrimType(n)`` with a PrimExpr: the scalar's value is known.
            value, dtype = dtype, getattr(dtype, "dtype", None)
            if not isinstance(dtype, str):
                raise TypeError(f"PrimType expects a dtype string or a PrimExpr, got {value!r}")
        if value is not None and hasattr(value, "dtype") and not dtype:
            dtype = value.dtype
        self.__init_fields__(str(dtype), value, span=span)

    def __str__(self):
        # 0.27 prints a plain scalar type as its dtype (``str(PrimType("int32")) == "int32"``).
        return self.dtype if self.value is None else super().__str__()

    def __repr__(self):
        # 0.27's repr is the TVMScript form (``T.int64``), which messages show.
        return super().__str__()

    def __eq__(self, other):
        # As Apache TVM 0.27: types compare structurally (``var.ty == PrimType("int32")``),
        # and a PrimType equals its dtype string.
        if isinstance(other, str):
            return self.dtype == other
        if not isinstance(other, PrimType):
            return NotImplemented
        from ..ffi.structural import structural_equal  # local: structural imports ir nodes

        return structural_equal(self, other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash(("PrimType", self.dtype))


class PointerType(Type, type_key="ir.PointerType"):
    """A pointer to ``element_type`` in memory scope ``storage_scope`` (TIR buffers)."""

    element_type: Type
    storage_scope: str = ""

    def __init__(self, element_type, storage_scope="", span=None):
        if not isinstance(element_type, Type):
            raise TypeError(f"PointerType expects a Type, got {type(element_type).__name__}")
        self.__init_fields__(element_type, storage_scope, span=span)


class TupleType(Type, type_key="ir.TupleType"):
    """The type of a tuple: one type per field (Relax ``R.Tuple(...)``)."""

    fields: tuple

    def __init__(self, fields=(), span=None):
        fields = tuple(fields)
        for i, item in enumerate(fields):
            if not isinstance(item, Type):
                raise TypeError(f"TupleType field {i} must be a Type, got {type(item).__name__}")
        self.__init_fields__(fields, span=span)


class FuncType(Type, type_key="ir.FuncType"):
    """The type of a TIR-level function: argument types and return type.

    Relax functions use ``tvm.relax.FuncType`` (params, ret, purity) instead.
    """

    arg_types: tuple
    ret_type: Type

    def __init__(self, arg_types, ret_type, span=None):
        self.__init_fields__(tuple(arg_types), ret_type, span=span)


class OpaqueType(Type, type_key="ir.OpaqueType"):
    """A type with no further structure (opaque handles)."""

    def __init__(self, span=None):
        self.__init_fields__(span=span)


class StringType(Type, type_key="ir.StringType"):
    """The type of a string value."""

    def __init__(self, span=None):
        self.__init_fields__(span=span)
