"""Type inference of ``astype``/``wrap_param``: the input's shape with ``attrs.dtype``."""

from __future__ import annotations

from ..infer_utils import same_type_as, tensor_args


def infer_astype(call, _bb=None):
    """The input's shape with ``attrs.dtype``."""
    (data,) = tensor_args(call, 1)
    return same_type_as(data, str(call.attrs.dtype))
