"""NumPy reference semantics of tensor creation (``FReference``)."""

from __future__ import annotations

import numpy as np

from ..registry import reference_dtype, register_reference


def _dtype(attrs, default):
    dtype = getattr(attrs, "dtype", None)
    return default if dtype is None or str(dtype) in ("", "void") else str(dtype)


def _np_dtype(dtype):
    return reference_dtype(dtype)


@register_reference("ones")
def _ones(attrs, shape):
    return np.ones(shape, _np_dtype(_dtype(attrs, "float32")))


@register_reference("zeros")
def _zeros(attrs, shape):
    return np.zeros(shape, _np_dtype(_dtype(attrs, "float32")))


@register_reference("full")
def _full(attrs, shape, fill):
    return np.full(shape, fill, _np_dtype(_dtype(attrs, str(fill.dtype))))


@register_reference("full_like")
def _full_like(attrs, x, fill):
    return np.full(x.shape, fill, _np_dtype(_dtype(attrs, str(x.dtype))))


@register_reference("ones_like")
def _ones_like(attrs, x):
    return np.ones(x.shape, _np_dtype(_dtype(attrs, str(x.dtype))))


@register_reference("zeros_like")
def _zeros_like(attrs, x):
    return np.zeros(x.shape, _np_dtype(_dtype(attrs, str(x.dtype))))


@register_reference("arange")
def _arange(attrs, start, end, step):
    return np.arange(start, end, step).astype(_np_dtype(_dtype(attrs, "int64")))


@register_reference("tril")
def _tril(_attrs, x, k):
    return np.tril(x, int(k))


@register_reference("triu")
def _triu(_attrs, x, k):
    return np.triu(x, int(k))


@register_reference("eye")
def _eye(attrs, n, m, k):
    return np.eye(int(n), int(m), int(k), dtype=_np_dtype(_dtype(attrs, "float32")))
