"""Elementwise activations: ``relu``, ``leaky_relu``, ``prelu``, ``gelu``, ``gelu_tanh``,
``silu``, ``softplus``, and ``dropout`` (inference: identity)."""

from __future__ import annotations

import math

from ... import te, tirx
from ...tirx import generic as _g
from ..math import elemwise
from ..utils import const_like, get_const_int, is_const_int, normalize_axis

__all__ = ["dropout", "gelu", "gelu_tanh", "leaky_relu", "prelu", "relu", "silu", "softplus"]


def relu(x):
    """``max(x, 0)``."""
    return elemwise(x, lambda v: _g.max(v, const_like(0, v.dtype)))


def leaky_relu(x, alpha):
    """``x`` where positive, else ``alpha * x``."""

    def fn(v):
        return tirx.Select(_g.greater(v, const_like(0, v.dtype)), v,
                           v * const_like(alpha, v.dtype))

    return elemwise(x, fn)


def prelu(x, slope, axis=1):
    """``x`` where positive, else ``slope[c] * x`` with ``c`` the index along ``axis``.

    ``slope`` is 1-D: one value per channel, or a single value that a ``slope_broadcasted``
    stage repeats for every channel (TVM's staging).
    """
    axis = normalize_axis(axis, x.ndim, "prelu")
    if len(slope.shape) != 1:
        raise ValueError(f"prelu: slope must be 1-D, got shape {tuple(slope.shape)}")
    if is_const_int(slope.shape[0]) and get_const_int(slope.shape[0]) == 1:
        single = slope
        zero = const_like(0, getattr(single.shape[0], "dtype", "int32"))
        slope = te.compute((x.shape[axis],), lambda c: single[zero], name="slope_broadcasted")

    def body(*i):
        v = x(*i)
        return tirx.Select(_g.greater(v, const_like(0, v.dtype)), v, v * slope(i[axis]))

    return te.compute(x.shape, body, name="compute", tag="broadcast")


def gelu(x):
    """``0.5 * x * (1 + erf(x / sqrt(2)))``."""

    def fn(v):
        half, one = const_like(0.5, v.dtype), const_like(1, v.dtype)
        return half * v * (one + tirx.erf(v * const_like(1 / math.sqrt(2), v.dtype)))

    return elemwise(x, fn)


def gelu_tanh(x):
    """``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))``."""

    def fn(v):
        c = const_like(math.sqrt(2 / math.pi), v.dtype)
        inner = c * (v + const_like(0.044715, v.dtype) * v * v * v)
        return const_like(0.5, v.dtype) * v * (const_like(1, v.dtype) + tirx.tanh(inner))

    return elemwise(x, fn)


def silu(x):
    """``x * sigmoid(x)``."""
    return elemwise(x, lambda v: v * tirx.sigmoid(v))


def softplus(x, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``, or ``x`` where ``beta * x > threshold``."""

    def fn(v):
        b = const_like(beta, v.dtype)
        scaled = v * b
        soft = tirx.log1p(tirx.exp(scaled)) / b
        return tirx.Select(_g.greater(scaled, const_like(threshold, v.dtype)), v, soft)

    return elemwise(x, fn)


def dropout(data, rate=0.5):
    """Inference-mode dropout: ``[copy of data, mask of ones]`` (no element is dropped).

    Limitation: training-mode (random) masks are not generated; this matches the Relax
    reference, which keeps every element.
    """
    if not 0 <= float(rate) < 1:
        raise ValueError(f"dropout: rate must be in [0, 1), got {rate}")
    out = elemwise(data, lambda v: v, "T_dropout")
    mask = elemwise(data, lambda v: const_like(1, v.dtype), "T_dropout_mask")
    return [out, mask]
