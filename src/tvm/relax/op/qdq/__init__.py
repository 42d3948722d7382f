"""Quantization ops: ``relax.quantize`` and ``relax.dequantize`` (per-axis affine).

``quantize(x, scale, zp)`` is ``clip(round(x / scale) + zp)`` in the integer (or float8)
``out_dtype``; ``dequantize(q, scale, zp)`` is ``(q - zp) * scale`` in float16/float32.
``scale`` and ``zero_point`` are scalars, singleton tensors, or 1-D tensors matching
``x.shape[axis]`` (one parameter per slice along ``axis``).
"""

from __future__ import annotations

from ...expr import Call
from ..op_attrs import QuantizeAttrs
from ..registry import register_relax_op
from .infer import infer_dequantize, infer_quantize

__all__ = ["dequantize", "quantize"]

_QUANTIZE = register_relax_op(
    "quantize",
    3,
    "qdq",
    infer_quantize,
    attrs_type_key="relax.attrs.QuantizeAttrs",
    description="Affine quantization: clip(round(x / scale) + zero_point) in out_dtype.",
)
_DEQUANTIZE = register_relax_op(
    "dequantize",
    3,
    "qdq",
    infer_dequantize,
    attrs_type_key="relax.attrs.QuantizeAttrs",
    description="Affine dequantization: (x - zero_point) * scale in out_dtype.",
)


def _attrs(axis, out_dtype):
    return QuantizeAttrs(int(axis), str(getattr(out_dtype, "dtype", out_dtype)))


def quantize(data, scale, zero_point, axis: int = -1, out_dtype: str = "int8") -> Call:
    """``R.quantize(data, scale, zero_point, axis=-1, out_dtype="int8")``.

    Parameters
    ----------
    data : relax.Expr
        A float16/float32 tensor.
    scale, zero_point : relax.Expr
        Scalars, singleton tensors, or 1-D tensors of length ``data.shape[axis]``
        (``scale`` float16/float32, ``zero_point`` an integer type or float16).
    axis : int
        The axis the 1-D parameters run along (negative counts from the end).
    out_dtype : str
        ``int8``, ``uint8``, ``int16``, ``uint16``, ``float8_e4m3fn`` or ``float8_e5m2``.
    """
    return Call(_QUANTIZE, [data, scale, zero_point], _attrs(axis, out_dtype))


def dequantize(data, scale, zero_point, axis: int = -1, out_dtype: str = "float32") -> Call:
    """``R.dequantize(data, scale, zero_point, axis=-1, out_dtype="float32")``.

    ``(data - zero_point) * scale`` computed in float32 (integer inputs subtract in int32),
    then clipped and cast when ``out_dtype`` is float16. Parameters as :func:`quantize`.
    """
    return Call(_DEQUANTIZE, [data, scale, zero_point], _attrs(axis, out_dtype))


from . import reference  # noqa: F401 - registers FReference after the ops exist
