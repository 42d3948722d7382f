"""Tensor creation ops: ``relax.ones``, ``relax.zeros``."""

from __future__ import annotations

from ....ir.op import register_op_attr
from ...expr import Call, ShapeExpr
from ..op_attrs import InitAttrs
from ..registry import register_relax_op
from .infer import infer_init

__all__ = ["ones", "zeros"]

_ONES = register_relax_op(
    "ones",
    1,
    "create",
    infer_init,
    attrs_type_key="relax.attrs.InitAttrs",
    description="A tensor filled with ones.",
)
_ZEROS = register_relax_op(
    "zeros",
    1,
    "create",
    infer_init,
    attrs_type_key="relax.attrs.InitAttrs",
    description="A tensor filled with zeros.",
)


def _shape(shape):
    return ShapeExpr(shape) if isinstance(shape, (list, tuple)) else shape


def ones(shape, dtype="float32") -> Call:
    """``R.ones(shape, dtype)``."""
    return Call(_ONES, [_shape(shape)], InitAttrs(str(dtype)))


def zeros(shape, dtype="float32") -> Call:
    """``R.zeros(shape, dtype)``."""
    return Call(_ZEROS, [_shape(shape)], InitAttrs(str(dtype)))


# --- the op library's creation ops -------------------------------------------------------------

from ...expr import const
from ..infer_utils import prim_value_arg
from .infer import (
    infer_arange,
    infer_eye,
    infer_full,
    infer_full_like,
    infer_init_like,
    infer_trilu,
)

_INIT_KEY = "relax.attrs.InitAttrs"
_FULL = register_relax_op(
    "full",
    2,
    "create",
    infer_full,
    attrs_type_key=_INIT_KEY,
    description="A tensor filled with a scalar value.",
)
# Its output shape is an argument's value (TVM's FDataDependent: legalized even when unknown).
register_op_attr("relax.full", "FDataDependent", True)
_FULL_LIKE = register_relax_op(
    "full_like",
    2,
    "create",
    infer_full_like,
    attrs_type_key=_INIT_KEY,
    description="A tensor shaped like x, filled with a value.",
)
_ONES_LIKE = register_relax_op(
    "ones_like",
    1,
    "create",
    infer_init_like,
    attrs_type_key=_INIT_KEY,
    description="Ones shaped like x.",
)
_ZEROS_LIKE = register_relax_op(
    "zeros_like",
    1,
    "create",
    infer_init_like,
    attrs_type_key=_INIT_KEY,
    description="Zeros shaped like x.",
)
_ARANGE = register_relax_op(
    "arange",
    3,
    "create",
    infer_arange,
    attrs_type_key=_INIT_KEY,
    description="Evenly spaced values in [start, end).",
)
_TRIL = register_relax_op(
    "tril", 2, "create", infer_trilu, description="The lower triangle of a matrix (batch)."
)
_TRIU = register_relax_op(
    "triu", 2, "create", infer_trilu, description="The upper triangle of a matrix (batch)."
)
_EYE = register_relax_op(
    "eye",
    3,
    "create",
    infer_eye,
    attrs_type_key=_INIT_KEY,
    description="A 2-D tensor with ones on a diagonal.",
)


def _dtype(dtype):
    return None if dtype is None else str(getattr(dtype, "dtype", dtype))


def _prim(value, name="create op", role="the argument"):
    return prim_value_arg(value, name, role)


def _scalar_tensor(value):
    # ``fill_value`` may be given as a Python number; TVM wants a 0-d tensor.
    return const(value) if isinstance(value, (bool, int, float)) else value


def full(shape, fill_value, dtype=None) -> Call:
    """``R.full(shape, fill_value, dtype=None)``: ``fill_value`` is a 0-d tensor."""
    return Call(_FULL, [_shape(shape), _scalar_tensor(fill_value)], InitAttrs(_dtype(dtype)))


def full_like(x, fill_value, dtype=None) -> Call:
    """``R.full_like(x, fill_value, dtype=None)``."""
    return Call(_FULL_LIKE, [x, _scalar_tensor(fill_value)], InitAttrs(_dtype(dtype)))


def ones_like(x, dtype=None) -> Call:
    """``R.ones_like(x, dtype=None)``."""
    return Call(_ONES_LIKE, [x], InitAttrs(_dtype(dtype)))


def zeros_like(x, dtype=None) -> Call:
    """``R.zeros_like(x, dtype=None)``."""
    return Call(_ZEROS_LIKE, [x], InitAttrs(_dtype(dtype)))


def arange(start, end=None, step=1, dtype=None) -> Call:
    """``R.arange(start, end=None, step=1, dtype=None)``; one argument means ``[0, start)``.

    ``dtype=None`` gives int64 for integer bounds and float32 when a bound is a float.
    """
    if end is None:
        start, end = 0, start
    if dtype is None:
        floaty = any(isinstance(v, float) for v in (start, end, step))
        dtype = "float32" if floaty else "int64"
    args = [
        _prim(v, "arange", role) for v, role in ((start, "start"), (end, "end"), (step, "step"))
    ]
    return Call(_ARANGE, args, InitAttrs(_dtype(dtype)))


def tril(x, k=0) -> Call:
    """``R.tril(x, k=0)``: zero the elements above the ``k``-th diagonal."""
    return Call(_TRIL, [x, _prim(k, "tril", "k")])


def triu(x, k=0) -> Call:
    """``R.triu(x, k=0)``: zero the elements below the ``k``-th diagonal."""
    return Call(_TRIU, [x, _prim(k, "triu", "k")])


def eye(n, m=None, k=0, dtype="float32") -> Call:
    """``R.eye(n, m=None, k=0, dtype="float32")``: ones on the ``k``-th diagonal."""
    m = n if m is None else m
    args = [_prim(v, "eye", role) for v, role in ((n, "n"), (m, "m"), (k, "k"))]
    return Call(_EYE, args, InitAttrs(_dtype(dtype)))


__all__ += ["arange", "eye", "full", "full_like", "ones_like", "tril", "triu", "zeros_like"]

from . import reference  # noqa: F401 - registers FReference after the ops exist
