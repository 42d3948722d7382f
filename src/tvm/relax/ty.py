"""Relax types (Apache TVM 0.27 names; the StructInfo spellings are aliases).

=================  ==========================  =========================================
0.27 name          StructInfo alias            TVMScript
=================  ==========================  =========================================
``ObjectType``     ``ObjectStructInfo``        ``R.Object``
``PrimType``       ``PrimStructInfo``          ``R.Prim("int64")``, ``R.Prim(value=n)``
``ShapeType``      ``ShapeStructInfo``         ``R.Shape([n, 4])``, ``R.Shape(ndim=2)``
``TensorType``     ``TensorStructInfo``        ``R.Tensor((n, 4), "float32")``
``TupleType``      ``TupleStructInfo``         ``R.Tuple(...)``
``FuncType``       ``FuncStructInfo``          ``R.Callable(...)``
=================  ==========================  =========================================

``PrimType`` and ``TupleType`` are the shared ``tvm.ir`` classes. Shapes hold int64
``PrimExpr`` values; a Python int given to a constructor becomes ``T.int64(value)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..ffi.node import Node
from ..ir.type import PrimType, TupleType, Type

if TYPE_CHECKING:
    from ..ir.base import Span
    from ..ir.expr import PrimExpr, RelaxExpr

__all__ = [
    "AnyType",
    "FuncStructInfo",
    "FuncType",
    "ObjectStructInfo",
    "ObjectType",
    "PackedFuncType",
    "PrimStructInfo",
    "PrimType",
    "ShapeStructInfo",
    "ShapeType",
    "StructInfo",
    "TensorStructInfo",
    "TensorType",
    "TupleStructInfo",
    "TupleType",
    "Type",
    "prim_func_type",
]

_TIR = None


def _tir():
    # ``tvm.tirx`` is a lower layer; resolved once, on first use, to keep import order loose.
    global _TIR
    if _TIR is None:
        from ..tirx import expr as tir_expr

        _TIR = tir_expr
    return _TIR


def as_prim_expr(value, dtype="int64"):
    """A shape value as a PrimExpr: ints become ``IntImm(dtype, value)``."""
    if isinstance(value, bool):
        raise TypeError(f"a shape value must be an integer or PrimExpr, got {value!r}")
    if isinstance(value, int):
        return _tir().IntImm(dtype, value)
    if hasattr(value, "dtype") and isinstance(value, Node):
        return value
    try:
        import numpy as np

        if isinstance(value, np.integer):
            return _tir().IntImm(dtype, int(value))
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"a shape value must be an integer or PrimExpr, got {value!r}")


class ObjectType(Type, type_key="relax.ObjectType"):
    """Any Relax value (the top of the type lattice); printed ``R.Object``."""

    def __init__(self, span=None):
        self.__init_fields__(span=span)


AnyType = ObjectType


class ShapeType(Type, type_key="relax.ShapeType"):
    """The type of a shape value; ``values`` when known, else only ``ndim`` (-1: unknown)."""

    values: object = None
    ndim: int = -1

    def __init__(self, values=None, ndim=-1, span=None):
        if values is not None:
            values = tuple(as_prim_expr(v) for v in values)
            for value in values:
                if not str(value.dtype).startswith(("int", "uint")):
                    # Lazy, like _tir(): tirx is a lower layer resolved on first use.
                    from ..tirx.generic import OperandTypeError

                    raise OperandTypeError(
                        f"the value in ShapeType can only have dtype of int64, but {value} has "
                        f"dtype {value.dtype}"
                    )
            if ndim not in (-1, len(values)):
                raise ValueError(
                    f"ShapeType: ndim={ndim} does not match the {len(values)} values given"
                )
            ndim = len(values)
        elif ndim < -1:
            raise ValueError(f"ShapeType: ndim must be >= -1, got {ndim}")
        self.__init_fields__(values, int(ndim), span=span)


class TensorType(Type, type_key="relax.TensorType"):
    """The type of a tensor: optional shape, dtype, optional virtual device, ndim.

    Parameters
    ----------
    shape : list of PrimExpr/int, ShapeExpr, a shape-typed Var, or None
        ``None`` means the shape is unknown (then ``ndim`` may still be known).
    dtype : str
        ``"void"`` (or ``None`` or ``""``, as in Apache TVM 0.27) means the dtype is unknown.
    vdevice : VDevice or str, optional
    ndim : int
        -1 means unknown rank; it is derived from ``shape`` when the shape is given.
    """

    shape: object = None
    dtype: str = "float32"
    vdevice: object = None
    ndim: int = -1

    def __init__(
        self,
        shape: Sequence[PrimExpr | int] | RelaxExpr | None = None,
        dtype: str | PrimType | None = "float32",
        vdevice: Any = None,
        ndim: int = -1,
        span: Span | None = None,
    ) -> None:
        if dtype is None or dtype == "":
            dtype = "void"
        elif isinstance(dtype, PrimType):
            dtype = dtype.dtype
        elif not isinstance(dtype, str):
            dtype = str(dtype)
        if shape is not None:
            if isinstance(shape, (list, tuple)):
                # Lazy: ShapeExpr lives in relax.expr, which imports this module.
                from .expr import ShapeExpr

                shape = ShapeExpr(shape)
            shape_ndim = _shape_ndim(shape)
            if ndim not in (-1, shape_ndim) and shape_ndim != -1:
                raise ValueError(
                    f"TensorType: ndim={ndim} does not match the shape's {shape_ndim} dims"
                )
            if shape_ndim != -1:
                ndim = shape_ndim
        elif ndim < -1:
            raise ValueError(f"TensorType: ndim must be >= -1, got {ndim}")
        self.__init_fields__(shape, dtype, vdevice, int(ndim), span=span)

    @property
    def is_unknown_ndim(self) -> bool:
        """Whether the number of dimensions is unknown (``ndim == -1``)."""
        return self.ndim == -1

    @property
    def is_unknown_dtype(self) -> bool:
        """Whether the element type is unknown (``"void"``)."""
        return self.dtype == "void"

    @property
    def shape_values(self):
        """The shape's PrimExpr values when the shape is a literal ``ShapeExpr``, else None."""
        return getattr(self.shape, "values", None)


def _shape_ndim(shape) -> int:
    values = getattr(shape, "values", None)
    if values is not None:
        return len(values)
    ty = getattr(shape, "ty", None)
    if isinstance(ty, ShapeType):
        return ty.ndim
    if ty is not None or not hasattr(shape, "name_hint"):
        raise TypeError(
            f"TensorType shape must be a list of dims, a ShapeExpr or a shape-typed Var, "
            f"got {shape!r}"
        )
    return -1


class FuncType(Type, type_key="relax.FuncType"):
    """The type of a Relax function: parameter types, return type, purity.

    ``params=None`` makes an *opaque* function type (unknown parameters; see
    :meth:`opaque_func`), used for packed functions and extern functions.
    """

    params: object
    ret: Type
    purity: bool = True
    derive_func: object = None

    def __init__(self, params, ret, purity=True, span=None, derive_func=None):
        if params is not None:
            params = tuple(params)
            for i, item in enumerate(params):
                if not isinstance(item, Type):
                    raise TypeError(f"FuncType param {i} must be a Type, got {item!r}")
        if not isinstance(ret, Type):
            raise TypeError(f"FuncType ret must be a Type, got {ret!r}")
        self.__init_fields__(params, ret, bool(purity), derive_func, span=span)

    @staticmethod
    def opaque_func(*, ret=None, derive_func=None, purity=False, span=None) -> FuncType:
        """A function type with unknown parameters; ``ret`` defaults to ``ObjectType()``."""
        return FuncType(None, ret if ret is not None else ObjectType(), purity, span, derive_func)

    @property
    def is_opaque(self) -> bool:
        """Whether the parameter types are unknown (an opaque function type)."""
        return self.params is None


class PackedFuncType(Type, type_key="relax.PackedFuncType"):
    """The type of a packed function handle."""

    def __init__(self, span=None):
        self.__init_fields__(span=span)


# StructInfo spellings (pre-0.27 TVM) are the same classes.
StructInfo = Type
ObjectStructInfo = ObjectType
PrimStructInfo = PrimType
ShapeStructInfo = ShapeType
TensorStructInfo = TensorType
TupleStructInfo = TupleType
FuncStructInfo = FuncType


def prim_func_type(prim_func) -> FuncType:
    """The Relax type of a TIR PrimFunc, as its GlobalVar has it in a module.

    Buffer parameters are tensors of the buffer's shape and dtype, scalar parameters are
    ``R.Prim`` of their dtype; the result is ``R.Tuple()`` and the function is impure (it
    writes its output buffers), as in Apache TVM 0.27.
    """
    params = []
    for param in prim_func.params:
        buffer = prim_func.buffer_map.get(param)
        if buffer is not None:
            params.append(TensorType(list(buffer.shape), buffer.dtype))
        else:
            params.append(PrimType(param.dtype))
    return FuncType(params, TupleType([]), purity=False)


def _register_prim_func_type():
    # Upper layers register into the table held by tvm.ir.module (see its docstring).
    from ..ir.module import register_global_var_type

    register_global_var_type("tirx.PrimFunc", prim_func_type, _prim_func_signature)


def _prim_func_signature(prim_func) -> tuple:
    # What prim_func_type reads: the parameters and the buffer map (both immutable).
    return (prim_func.param_vars, prim_func.buffer_map)


_register_prim_func_type()
