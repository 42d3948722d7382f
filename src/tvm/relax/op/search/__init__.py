"""Search and sort ops: ``relax.argmax``, ``argmin``, ``sort``, ``argsort``, ``topk``."""

from __future__ import annotations

from ...expr import Call
from ..op_attrs import ArgmaxArgminAttrs, ArgsortAttrs, SortAttrs, TopKAttrs
from ..registry import register_relax_op
from .infer import infer_argmax_argmin, infer_argsort, infer_sort, infer_topk

__all__ = ["argmax", "argmin", "argsort", "sort", "topk"]

_ARGMAX = register_relax_op(
    "argmax",
    1,
    "search",
    infer_argmax_argmin,
    attrs_type_key="relax.attrs.ArgmaxArgminAttrs",
    description="Index of the maximum along an axis.",
)
_ARGMIN = register_relax_op(
    "argmin",
    1,
    "search",
    infer_argmax_argmin,
    attrs_type_key="relax.attrs.ArgmaxArgminAttrs",
    description="Index of the minimum along an axis.",
)
_SORT = register_relax_op(
    "sort",
    1,
    "search",
    infer_sort,
    attrs_type_key="relax.attrs.SortAttrs",
    description="Sort along an axis.",
)
_ARGSORT = register_relax_op(
    "argsort",
    1,
    "search",
    infer_argsort,
    attrs_type_key="relax.attrs.ArgsortAttrs",
    description="Indices that sort along an axis.",
)
_TOPK = register_relax_op(
    "topk",
    1,
    "search",
    infer_topk,
    attrs_type_key="relax.attrs.TopKAttrs",
    description="The k largest (or smallest) elements along an axis.",
)


def _axis(axis):
    return None if axis is None else int(axis)


def argmax(x, axis=None, keepdims=False) -> Call:
    """``R.argmax(x, axis=None, keepdims=False)``: int64 indices (flattened when no axis)."""
    return Call(_ARGMAX, [x], ArgmaxArgminAttrs(_axis(axis), bool(keepdims)))


def argmin(x, axis=None, keepdims=False) -> Call:
    """``R.argmin(x, axis=None, keepdims=False)``: int64 indices (flattened when no axis)."""
    return Call(_ARGMIN, [x], ArgmaxArgminAttrs(_axis(axis), bool(keepdims)))


def sort(x, axis=-1, descending=False) -> Call:
    """``R.sort(x, axis=-1, descending=False)``: a stable sort along ``axis``."""
    return Call(_SORT, [x], SortAttrs(int(axis), bool(descending)))


def argsort(data, axis=-1, descending=False, dtype="int32") -> Call:
    """``R.argsort(data, axis=-1, descending=False, dtype="int32")``: stable sort indices."""
    return Call(_ARGSORT, [data], ArgsortAttrs(int(axis), bool(descending), str(dtype)))


def topk(data, k=1, axis=-1, ret_type="both", largest=True, dtype="int32") -> Call:
    """``R.topk(data, k=1, axis=-1, ret_type="both", largest=True, dtype="int32")``.

    Parameters
    ----------
    data : Expr
    k : int
        How many elements to keep (``k < 1`` keeps them all).
    axis : int
    ret_type : str
        ``"both"`` (a tuple ``(values, indices)``), ``"values"`` or ``"indices"``.
    largest : bool
        The largest elements first, else the smallest; ties keep the input order.
    dtype : str
        The dtype of the indices.
    """
    if ret_type not in ("both", "values", "indices"):
        raise ValueError(f"topk expects ret_type to be both, values or indices, got {ret_type!r}")
    return Call(_TOPK, [data], TopKAttrs(int(k), int(axis), ret_type, bool(largest), str(dtype)))


from . import reference  # noqa: F401 - registers FReference after the ops exist
