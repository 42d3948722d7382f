"""Type inference of ``quantize``/``dequantize``: the data's shape in ``attrs.out_dtype``.

Dtype checks are TypeErrors, axis and parameter-length checks ValueErrors (TVM's kinds and
messages).
"""

from __future__ import annotations

from ..infer_utils import known_shape, prove_equal, same_type_as, tensor_args

_QUANT_OUT = ("int8", "uint8", "int16", "uint16", "float8_e4m3fn", "float8_e5m2")
_DEQUANT_IN = (
    "int8", "uint8", "int16", "uint16", "int32", "float8_e4m3fn", "float8_e5m2", "float16",
    "float32",
)
_SCALE = ("float32", "float16")
_ZERO_POINT = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "float16")


def _scalar_or_singleton(ty) -> bool:
    if ty.ndim == 0:
        return True
    dims = known_shape(ty)
    return bool(dims) and all(prove_equal(d, 1) is True for d in dims)


def _infer(call, short, out_dtypes, in_dtypes, in_message):
    out_dtype = str(call.attrs.out_dtype)
    if out_dtype not in out_dtypes:
        prefix = "'" if short == "quantize" else ""
        raise TypeError(
            f"Unsupported output datatype attribute for operation: {prefix}{out_dtype}"
        )
    data, scale, zp = tensor_args(call, 3)
    if "void" in (data.dtype, scale.dtype, zp.dtype):
        return same_type_as(data, "void")
    if data.dtype not in in_dtypes:
        raise TypeError(f"Unsupported input datatype for operation: {in_message(data, out_dtype)}")
    if scale.dtype not in _SCALE:
        raise TypeError(
            f"scale param datatype should be one of [float16, float32], but got {scale.dtype}"
        )
    if zp.dtype not in _ZERO_POINT:
        raise TypeError(
            "zero_point param datatype should be one of ['int8', 'uint8', 'int16', 'uint16', "
            f"'int32', 'uint32', 'float16'], but got {zp.dtype}"
        )
    axis = int(call.attrs.axis)
    ndim = data.ndim
    if ndim > 0:
        norm = axis + ndim if axis < 0 else axis
        if not 0 <= norm < ndim:
            raise ValueError(f"relax.{short}: axis param is out of range ({axis})")
    if ndim == 0:
        if not (_scalar_or_singleton(scale) and _scalar_or_singleton(zp)):
            raise ValueError(
                f"relax.{short}: scale and zero_point must be scalar or singleton tensors for "
                "rank-0 input"
            )
    elif ndim > 0:
        dims = known_shape(data)
        for param, name in ((scale, "scale"), (zp, "zero_point")):
            if _scalar_or_singleton(param):
                continue
            pdims = known_shape(param)
            if dims is None or not pdims:
                continue
            if prove_equal(pdims[0], dims[norm]) is not True:
                raise ValueError(
                    f"Size mismatch: relax.{short}: the input shape at dim {axis} is "
                    f"'{dims[norm]}', but size of {name} param is '{pdims[0]}'"
                )
    return same_type_as(data, out_dtype)


def infer_quantize(call, _bb=None):
    """Float16/float32 data quantized to an 8/16-bit integer or float8 ``out_dtype``."""
    return _infer(call, "quantize", _QUANT_OUT, ("float16", "float32"), lambda d, _o: d.dtype)


def infer_dequantize(call, _bb=None):
    """Integer, float8 or float data dequantized to float16/float32."""
    return _infer(call, "dequantize", ("float16", "float32"), _DEQUANT_IN, lambda _d, o: o)
