"""``relax.nn.relu6`` (``min(max(x, 0), 6)``) and ``relax.nn.batch_flatten`` (collapse every
axis but the first), with their type inference and NumPy references.

Their lowering is in ``legalize.py`` and their gradients in ``grad.py``, like the family's
other ops.
"""

from __future__ import annotations

import numpy as np

from ...expr import Call
from ..infer_utils import known_shape, make_tensor_type, op_name, simplify_dim, tensor_args
from ..registry import register_op_table, register_reference

__all__ = ["batch_flatten", "relu6"]


def infer_relu6(call, _bb=None):
    """Same type as the input (any dtype)."""
    (data,) = tensor_args(call, 1)
    return data


def infer_batch_flatten(call, _bb=None):
    """``(d0, d1 * d2 * ...)``; the input needs at least 2 dims (ndim 2 when shape unknown)."""
    (data,) = tensor_args(call, 1)
    if data.ndim != -1 and data.ndim < 2:
        raise ValueError(
            f"{op_name(call)} expects the input to have at least 2 dimensions, but it has "
            f"{data.ndim}"
        )
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, data.dtype, 2, data.vdevice)
    rest = values[1]
    for dim in values[2:]:
        rest = rest * dim
    return make_tensor_type([values[0], simplify_dim(rest)], data.dtype, 2, data.vdevice)


_OPS = register_op_table(
    "nn.",
    "nn",
    (
        ("relu6", 1, infer_relu6, "", "ReLU6: min(max(x, 0), 6)."),
        ("batch_flatten", 1, infer_batch_flatten, "", "Flatten every axis but the first."),
    ),
)


def relu6(data) -> Call:
    """``R.nn.relu6(data)``: ``min(max(data, 0), 6)``, elementwise."""
    return Call(_OPS["relu6"], [data])


def batch_flatten(data) -> Call:
    """``R.nn.batch_flatten(data)``: reshape ``(n, d1, d2, ...)`` to ``(n, d1 * d2 * ...)``."""
    return Call(_OPS["batch_flatten"], [data])


@register_reference("nn.relu6")
def _relu6_ref(_attrs, x):
    return np.clip(x, np.zeros((), x.dtype), np.asarray(6, x.dtype))


@register_reference("nn.batch_flatten")
def _batch_flatten_ref(_attrs, x):
    return np.reshape(x, (x.shape[0], -1))
