"""Data type ops: ``relax.astype`` (cast) and ``relax.wrap_param`` (cast of a parameter)."""

from __future__ import annotations

from ...expr import Call
from ..op_attrs import AstypeAttrs, WrapParamAttrs
from ..registry import register_relax_op
from .infer import infer_astype

__all__ = ["astype", "wrap_param"]

_ASTYPE = register_relax_op(
    "astype",
    1,
    "datatype",
    infer_astype,
    attrs_type_key="relax.attrs.AstypeAttrs",
    description="Cast a tensor to another dtype.",
)
_WRAP_PARAM = register_relax_op(
    "wrap_param",
    1,
    "datatype",
    infer_astype,
    attrs_type_key="relax.attrs.WrapParamAttrs",
    description="Cast a model parameter to another dtype.",
)


def _dtype(dtype, name):
    dtype = getattr(dtype, "dtype", dtype)  # a PrimType carries its dtype
    if dtype is None:
        raise TypeError(f"{name} requires a target dtype, got None")
    return str(dtype)


def astype(x, dtype) -> Call:
    """``R.astype(x, dtype)``: elementwise cast."""
    return Call(_ASTYPE, [x], AstypeAttrs(_dtype(dtype, "astype")))


def wrap_param(data, dtype="float32") -> Call:
    """``R.wrap_param(data, dtype="float32")``: cast a (constant) parameter to ``dtype``."""
    return Call(_WRAP_PARAM, [data], WrapParamAttrs(_dtype(dtype, "wrap_param")))


from . import reference  # noqa: F401 - registers FReference after the ops exist
