"""NumPy reference semantics of ``quantize``/``dequantize`` (``FReference``)."""

from __future__ import annotations

import numpy as np

from ..registry import reference_dtype, register_reference


def _per_axis(param, data, axis):
    """``param`` broadcast against ``data`` along ``axis`` (scalars and singletons as is)."""
    param = np.asarray(param)
    if param.size == 1 or data.ndim == 0:
        return param.reshape(())
    shape = [1] * data.ndim
    shape[axis % data.ndim] = param.shape[0]
    return param.reshape(shape)


def _limits(dtype):
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else np.finfo(dtype)
    return float(info.min), float(info.max)


@register_reference("quantize")
def _quantize(attrs, data, scale, zp):
    data = np.asarray(data)
    out = reference_dtype(attrs.out_dtype)
    scaled = data / _per_axis(scale, data, attrs.axis).astype(data.dtype)
    if "int" in str(attrs.out_dtype):
        scaled = np.round(scaled)  # half to even, as TIR's round
    value = scaled + _per_axis(zp, data, attrs.axis).astype(data.dtype)
    low, high = _limits(out)
    return np.clip(value, low, high).astype(out)


@register_reference("dequantize")
def _dequantize(attrs, data, scale, zp):
    data = np.asarray(data)
    work = np.float32 if data.dtype.kind == "f" else np.int32
    shifted = data.astype(work) - _per_axis(zp, data, attrs.axis).astype(work)
    value = shifted.astype(np.float32) * _per_axis(scale, data, attrs.axis).astype(np.float32)
    out = reference_dtype(attrs.out_dtype)
    if np.dtype(out) != np.float32:
        low, high = _limits(out)
        value = np.clip(value, low, high)
    return value.astype(out)
