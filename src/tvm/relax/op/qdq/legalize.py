"""Legalization of ``quantize``/``dequantize``: one elementwise kernel each.

``quantize``: ``clip(round(x / scale) + zp)`` cast to ``out_dtype`` (no rounding for a float8
``out_dtype``); ``dequantize``: ``(x - zp) * scale`` with integer data subtracted in int32
and the product in float32, clipped to the float16 range for a float16 ``out_dtype``. Scalar
constant parameters are folded into the kernel; singleton tensors are read at index 0.
"""

from __future__ import annotations

from .... import te, tirx
from ...transform.legalize_ops.common import register_legalize


def _clip_cast(value, dtype):
    low, high = tirx.min_value(dtype), tirx.max_value(dtype)
    return tirx.max(tirx.min(value, high), low).astype(dtype)


def _param_reader(param, axis):
    """``read(indices)``: the parameter value for one output element."""
    if not isinstance(param, te.Tensor):
        return lambda _indices: param
    dims = list(param.shape)
    if all(isinstance(d, tirx.IntImm) and d.value == 1 for d in dims):
        return lambda _indices: param[(0,) * len(dims)]
    return lambda indices: param[indices[axis]]


def _normalized_axis(axis, ndim):
    return axis + ndim if axis < 0 else axis


@register_legalize("relax.quantize")
def _quantize(bb, call):
    out_dtype = str(call.attrs.out_dtype)

    def compute(data, scale, zp):
        axis = _normalized_axis(int(call.attrs.axis), len(data.shape))
        read_scale, read_zp = _param_reader(scale, axis), _param_reader(zp, axis)

        def element(*indices):
            scaled = data[indices] / read_scale(indices)
            if "int" in out_dtype:
                scaled = tirx.round(scaled)
            return _clip_cast(scaled + read_zp(indices), out_dtype)

        return te.compute(data.shape, element, name="quantized")

    return bb.call_te(compute, *call.args, primfunc_name_hint="quantize")


@register_legalize("relax.dequantize")
def _dequantize(bb, call):
    out_dtype = str(call.attrs.out_dtype)

    def compute(data, scale, zp):
        axis = _normalized_axis(int(call.attrs.axis), len(data.shape))
        read_scale, read_zp = _param_reader(scale, axis), _param_reader(zp, axis)
        work = "float32" if str(data.dtype).startswith(("float", "bfloat")) else "int32"

        def element(*indices):
            shifted = data[indices].astype(work) - read_zp(indices)
            value = shifted * read_scale(indices).astype("float32")
            return value if out_dtype == "float32" else _clip_cast(value, out_dtype)

        return te.compute(data.shape, element, name="dequantized")

    return bb.call_te(compute, *call.args, primfunc_name_hint="dequantize")
