"""``tvm.relax.type``: the Relax types under Apache TVM 0.27's module name.

The same classes as :mod:`tvm.relax.ty` (``TensorType``, ``TupleType``, ``ShapeType``...);
``tvm.relax.type.TensorType is tvm.relax.TensorType``.
"""

from .ty import (
    AnyType,
    FuncType,
    ObjectType,
    PackedFuncType,
    PrimType,
    ShapeType,
    TensorType,
    TupleType,
    Type,
)

__all__ = [
    "AnyType",
    "FuncType",
    "ObjectType",
    "PackedFuncType",
    "PrimType",
    "ShapeType",
    "TensorType",
    "TupleType",
    "Type",
]
