"""Indexing ops: ``relax.take``, ``relax.strided_slice``, ``relax.dynamic_strided_slice``."""

from __future__ import annotations

from ....ir.op import register_op_attr
from ...expr import Call, Tuple
from ..infer_utils import prim_value_arg
from ..op_attrs import StridedSliceAttrs, TakeAttrs
from ..registry import register_relax_op
from .infer import infer_dynamic_strided_slice, infer_strided_slice, infer_take

__all__ = ["dynamic_strided_slice", "strided_slice", "take"]

_TAKE = register_relax_op(
    "take",
    2,
    "index",
    infer_take,
    attrs_type_key="relax.attrs.TakeAttrs",
    description="Take elements along an axis by integer indices.",
)
_STRIDED_SLICE = register_relax_op(
    "strided_slice",
    5,
    "index",
    infer_strided_slice,
    attrs_type_key="relax.attrs.StridedSliceAttrs",
    description="Slice with static begin/end/strides per axis.",
)
_DYN_SLICE = register_relax_op(
    "dynamic_strided_slice",
    4,
    "index",
    infer_dynamic_strided_slice,
    description="Slice with begin/end/strides given as tensors.",
)

# The output shape depends on the bound tensors' values (TVM's FDataDependent).
register_op_attr("relax.dynamic_strided_slice", "FDataDependent", True)


def take(x, indices, axis=None, mode="fast") -> Call:
    """``R.take(x, indices, axis=None, mode="fast")``: ``numpy.take``.

    ``mode`` handles out-of-range indices: ``"fast"`` (assumed in range), ``"clip"`` or
    ``"wrap"``. ``axis=None`` requires a 1-D ``x`` (as in TVM).
    """
    if mode not in ("fast", "clip", "wrap", ""):
        raise ValueError(f"take expects mode to be fast, clip or wrap, got {mode!r}")
    return Call(_TAKE, [x, indices], TakeAttrs(None if axis is None else int(axis), mode))


def _prim_tuple(values, role):
    if isinstance(values, Tuple):
        return values
    return Tuple([prim_value_arg(v, "strided_slice", role) for v in values])


def strided_slice(x, axes, begin, end, strides=None, assume_inbound=False) -> Call:
    """``R.strided_slice(x, axes, begin, end, strides=None, assume_inbound=False)``.

    ``axes``, ``begin``, ``end`` and ``strides`` are lists (one entry per sliced axis) of ints
    or PrimExprs, stored as tuples of ``PrimValue``; slicing follows Python's rules (negative
    indices count from the end, out-of-range bounds are clamped).
    """
    args = [x, _prim_tuple(axes, "axes"), _prim_tuple(begin, "begin"), _prim_tuple(end, "end")]
    if strides is not None:
        args.append(_prim_tuple(strides, "strides"))
    return Call(_STRIDED_SLICE, args, StridedSliceAttrs(bool(assume_inbound)))


def dynamic_strided_slice(x, begin, end, strides) -> Call:
    """``R.dynamic_strided_slice(x, begin, end, strides)``: bounds are 1-D int64 tensors."""
    return Call(_DYN_SLICE, [x, begin, end, strides])


from . import reference  # noqa: F401 - registers FReference after the ops exist
