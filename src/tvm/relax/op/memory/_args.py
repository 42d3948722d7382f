"""Argument conversion and type rules shared by the memory, builtin and vm op families."""

from __future__ import annotations

from ....ir.expr import PrimExpr
from ....ir.type import TupleType
from ...expr import DataTypeImm, PrimValue, ShapeExpr, StringImm
from ...ty import ObjectType, ShapeType, TensorType


def as_shape(value):
    """A ``ShapeExpr`` from a list of dims (a Relax shape expression is kept)."""
    if isinstance(value, (list, tuple)):
        return ShapeExpr(list(value))
    return value


def as_dtype(value):
    return value if isinstance(value, DataTypeImm) else DataTypeImm(str(value))


def as_int(value):
    if isinstance(value, PrimValue):
        return value
    if isinstance(value, (int, PrimExpr)):
        return PrimValue(value)
    return value


def as_str(value):
    return value if isinstance(value, StringImm) else StringImm(str(value))


def shape_dims(expr):
    """The dims of a shape argument when known, else None."""
    if isinstance(expr, ShapeExpr):
        return list(expr.values)
    ty = expr.ty
    if isinstance(ty, ShapeType) and ty.values is not None:
        return list(ty.values)
    return None


def tensor_of(shape_arg, dtype_arg):
    """The tensor type of an allocation of shape ``shape_arg`` and dtype ``dtype_arg``."""
    dtype = dtype_arg.value if isinstance(dtype_arg, DataTypeImm) else "void"
    dims = shape_dims(shape_arg)
    if dims is not None:
        return TensorType(dims, str(dtype))
    ndim = getattr(shape_arg.ty, "ndim", -1)
    return TensorType(None, str(dtype), ndim=ndim)


def infer_tensor_in_storage(call, _bb=None):
    """``alloc_tensor(storage, offset, shape, dtype, ...)``: a tensor of that shape and dtype."""
    return tensor_of(call.args[2], call.args[3])


def infer_object(_call, _bb=None):
    return ObjectType()


def infer_unit(_call, _bb=None):
    return TupleType([])
