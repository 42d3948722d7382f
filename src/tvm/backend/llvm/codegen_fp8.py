"""float8 storage for the LLVM code generator: values computed as float32, stored as one byte.

Formats: ``float8_e4m3fn`` (bias 7, 3 mantissa bits, no infinity, NaN = ``S.1111.111``) and
``float8_e5m2`` (bias 15, 2 mantissa bits, IEEE-like infinities and NaNs), with the rounding
of ``ml_dtypes``: round to nearest even; past the largest finite value e4m3fn gives NaN and
e5m2 infinity; NaN stays NaN.

* decoding (load): a 256-entry float32 table per format, a private constant of the module;
* encoding (store, cast): float32 bits re-biased and rounded in integer arithmetic for normal
  results, ``rint(x * 2^k)`` for subnormal ones. Scalars and vectors alike.
"""

from __future__ import annotations

from . import irtext as ir  # llvmlite.ir's interface, faster (see irtext.py)

I8, I32, I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
F32 = ir.FloatType()

# name -> (exponent bias, mantissa bits, largest finite code, overflow code, NaN code)
FP8_FORMATS = {
    "float8_e4m3fn": (7, 3, 0x7E, 0x7F, 0x7F),
    "float8_e5m2": (15, 2, 0x7B, 0x7C, 0x7E),
}


def _like(ty, elem):
    return ir.VectorType(elem, ty.count) if isinstance(ty, ir.VectorType) else elem


def _const(ty, elem, value):
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ir.VectorType(elem, ty.count), [value] * ty.count)
    return ir.Constant(elem, value)


def _table(module, element):
    """The decoding table of ``element`` (float32 value of each byte)."""
    import ml_dtypes  # lazy: only float8 code needs it
    import numpy as np

    name = f".pytvm.{element}.decode"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    values = np.arange(256, dtype=np.uint8).view(getattr(ml_dtypes, element)).astype(np.float32)
    arr_t = ir.ArrayType(F32, 256)
    var = ir.GlobalVariable(module, arr_t, name)
    var.global_constant = True
    var.linkage = "private"
    var.initializer = ir.Constant(arr_t, [float(v) for v in values])
    return var


def decode(builder, module, raw, element):
    """Bytes (``i8`` or a vector of them) -> float32 values."""
    table = _table(module, element)
    arr_t = ir.ArrayType(F32, 256)

    def one(byte):
        idx = builder.zext(byte, I64)
        ptr = builder.gep(table, [ir.Constant(I64, 0), idx], source_etype=arr_t)
        return builder.load(ptr, typ=F32)

    if not isinstance(raw.type, ir.VectorType):
        return one(raw)
    out = ir.Constant(ir.VectorType(F32, raw.type.count), ir.Undefined)
    for lane in range(raw.type.count):
        value = one(builder.extract_element(raw, ir.Constant(I32, lane)))
        out = builder.insert_element(out, value, ir.Constant(I32, lane))
    return out


def encode(builder, module, value, element, rint):
    """float32 values -> bytes, rounding as ``ml_dtypes`` does (see the module docstring).

    ``rint(x)`` emits round-to-nearest-even of a float32 value (an LLVM intrinsic call).
    """
    bias, mbits, max_code, overflow_code, nan_code = FP8_FORMATS[element]
    ty = value.type
    i32 = _like(ty, I32)
    b = builder
    bits = b.bitcast(value, i32)
    sign = b.and_(b.lshr(bits, _const(ty, I32, 24)), _const(ty, I32, 0x80))
    abs_bits = b.and_(bits, _const(ty, I32, 0x7FFFFFFF))
    abs_f = b.bitcast(abs_bits, _like(ty, F32))
    # Normal results: re-bias the exponent, round the mantissa to nearest even.
    shift = 23 - mbits
    lsb = b.and_(b.lshr(abs_bits, _const(ty, I32, shift)), _const(ty, I32, 1))
    rounded = b.add(abs_bits, b.add(_const(ty, I32, (1 << (shift - 1)) - 1), lsb))
    normal = b.sub(b.lshr(rounded, _const(ty, I32, shift)),
                   _const(ty, I32, (127 - bias) << mbits))
    over = b.icmp_signed(">", normal, _const(ty, I32, max_code))
    normal = b.select(over, _const(ty, I32, overflow_code), normal)
    # Subnormal results: multiples of 2^(1 - bias - mbits).
    scaled = b.fmul(abs_f, _const(ty, F32, float(2.0 ** (bias - 1 + mbits))))
    sub = b.fptosi(rint(scaled), i32)
    is_sub = b.fcmp_ordered("<", abs_f, _const(ty, F32, float(2.0 ** (1 - bias))))
    code = b.select(is_sub, sub, normal)
    is_nan = b.fcmp_unordered("uno", value, value)
    code = b.or_(b.select(is_nan, _const(ty, I32, nan_code), code), sign)
    return b.trunc(code, _like(ty, I8))
