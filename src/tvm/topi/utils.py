"""Helpers shared by the topi computes: constant shapes, axis normalization, index dtypes."""

from __future__ import annotations

import numbers

from ..ir.expr import PrimExpr
from ..tirx.expr import IntImm
from ..tirx.generic import cast, const

__all__ = [
    "as_index",
    "compute",
    "const_like",
    "expand_tuple",
    "get_const_int",
    "get_const_tuple",
    "is_const_int",
    "normalize_axes",
    "normalize_axis",
    "reduce_axis",
    "shape_dtype",
    "simplify",
]


def is_const_int(value) -> bool:
    """Whether ``value`` is a Python int or an ``IntImm``."""
    return isinstance(value, IntImm) or (
        isinstance(value, numbers.Integral) and not isinstance(value, bool)
    )


def get_const_int(value) -> int:
    """``value`` as a Python int; ``ValueError`` for a symbolic value."""
    if isinstance(value, IntImm):
        return int(value.value)
    if isinstance(value, numbers.Integral):
        return int(value)
    raise ValueError(f"expected a constant integer, got the symbolic value {value}")


def get_const_tuple(values) -> tuple:
    """Each entry as a Python int when constant; symbolic entries stay PrimExprs."""
    return tuple(get_const_int(v) if is_const_int(v) else v for v in values)


def normalize_axis(axis, ndim: int, op_name: str) -> int:
    """``axis`` in ``[-ndim, ndim)`` mapped to ``[0, ndim)``; ``ValueError`` otherwise."""
    axis = get_const_int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{op_name}: axis {axis} is out of range for a {ndim}-D tensor")
    return axis % ndim


def normalize_axes(axis, ndim: int, op_name: str) -> list:
    """Sorted, normalized axes; ``None`` means every axis. Duplicates are a ``ValueError``."""
    if axis is None:
        return list(range(ndim))
    if is_const_int(axis):
        axis = [axis]
    axes = [normalize_axis(a, ndim, op_name) for a in axis]
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op_name}: repeated axis in {list(axis)}")
    return sorted(axes)


def shape_dtype(shape) -> str:
    """The index dtype of a shape: int64 if any extent is int64, else int32."""
    for dim in shape:
        if isinstance(dim, PrimExpr) and dim.dtype == "int64":
            return "int64"
    return "int32"


def const_like(value, dtype: str):
    """A constant of ``dtype`` (a PrimExpr passes through, cast when its dtype differs)."""
    if isinstance(value, PrimExpr):
        return value if value.dtype == dtype else cast(value, dtype)
    return const(value, dtype)


def as_index(value, dtype: str):
    """An index expression of ``dtype`` from an int or PrimExpr."""
    if isinstance(value, PrimExpr):
        return value if value.dtype == dtype else const_like(value, dtype)
    return IntImm(dtype, int(value))


def reduce_axis(extent, name: str):
    """A ``te.reduce_axis`` over ``[0, extent)`` whose variable has ``extent``'s dtype."""
    # Lazy: keep utils importable from te-free helpers; te is a lower layer anyway.
    from ..ir.expr import Range
    from ..te import reduce_axis as _reduce_axis

    dtype = extent.dtype if isinstance(extent, PrimExpr) else "int32"
    return _reduce_axis(Range.from_min_extent(IntImm(dtype, 0), as_index(extent, dtype)), name=name)


def simplify(expr):
    """``expr`` simplified (``2 + 3`` -> ``5``), so static shapes stay static."""
    if is_const_int(expr):
        return expr
    # Lazy: arith is a lower layer, but only shape arithmetic needs it.
    from ..arith import Analyzer

    return Analyzer().simplify(expr)


def expand_tuple(value, n: int, name: str) -> list:
    """An int or 1/``n`` ints as a list of ``n`` Python ints (strides, dilations...)."""
    if is_const_int(value):
        return [get_const_int(value)] * n
    values = [get_const_int(v) for v in value]
    if len(values) == 1:
        return values * n
    if len(values) != n:
        raise ValueError(f"{name} needs 1 or {n} values, got {values}")
    return values


def compute(shape, fcompute, name, tag="", attrs=None):
    """``te.compute`` with axes named ``ax0, ax1, ...`` (TVM's names for topi's computes)."""
    # Lazy: te sits beside topi's helpers; utils stays importable on its own.
    from ..te import compute as _compute

    names = [f"ax{d}" for d in range(len(shape))]
    return _compute(shape, fcompute, name=name, tag=tag, attrs=attrs, varargs_names=names)
