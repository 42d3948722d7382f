"""Data types: ``tvm.DataType`` and fast dtype-string queries used by the IR.

``tvm.DataType`` is ``tvm_ffi.dtype`` itself, as in Apache TVM 0.27: a ``str`` subclass that
parses ``"float32"``, ``"int64"``, ``"float32x4"``, ``"bfloat16"``, ``"float8_e4m3fn"``,
``"handle"``, ``"void"`` and exposes ``type_code``, ``bits``, ``lanes``, ``with_lanes`` and the
``is_float`` / ``is_integer`` / ``is_bool`` / ``is_handle`` properties.

Inside the IR a dtype is a plain string (``PrimExpr.dtype == "int64"``). The helpers below
(:func:`dtype_info`, :func:`dtype_kind`, ...) answer questions about such strings; they are
cached because expression construction asks them constantly.

Examples
--------
>>> from tvm.runtime.data_type import DataType, dtype_kind, with_lanes
>>> d = DataType("float32x4")
>>> (d.type_code, d.bits, d.lanes)
(2, 32, 4)
>>> dtype_kind("uint8"), dtype_kind("bfloat16"), dtype_kind("bool")
('uint', 'float', 'bool')
>>> with_lanes("int32", 8)
'int32x8'
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import tvm_ffi

__all__ = [
    "FLOAT8_DTYPES",
    "DTypeInfo",
    "DataType",
    "DataTypeCode",
    "dtype_bits",
    "dtype_info",
    "dtype_kind",
    "dtype_lanes",
    "element_dtype",
    "is_bool_dtype",
    "is_float_dtype",
    "is_int_dtype",
    "normalize_dtype",
    "with_lanes",
]

#: The float8 dtype names of ``ml_dtypes`` that DLPack and our code generator know.
FLOAT8_DTYPES = (
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
)

#: ``tvm.DataType``: the ``tvm_ffi`` dtype (a ``str`` subclass), exactly as TVM 0.27 exposes it.
DataType = tvm_ffi.dtype


class DataTypeCode:
    """DLPack/TVM type codes (the values ``DataType(...).type_code`` returns)."""

    INT = 0
    UINT = 1
    FLOAT = 2
    HANDLE = 3
    BFLOAT = 4
    BOOL = 6


class DTypeInfo(NamedTuple):
    """Parsed facts about a dtype string."""

    #: One of ``"int"``, ``"uint"``, ``"float"``, ``"bool"``, ``"handle"``, ``"void"``.
    kind: str
    type_code: int
    bits: int
    lanes: int
    #: The scalar dtype (lanes removed), e.g. ``"float32"`` for ``"float32x4"``.
    element: str


_INT_CODES = {0: "int", 1: "uint"}


@cache
def dtype_info(dtype) -> DTypeInfo:
    """Parse a dtype string; ``ValueError`` naming the string if it is not a dtype."""
    if not isinstance(dtype, str):
        raise TypeError(f"dtype must be a str, got {type(dtype).__name__}: {dtype!r}")
    if dtype == "void":
        return DTypeInfo("void", DataTypeCode.HANDLE, 0, 0, "void")
    try:
        parsed = tvm_ffi.dtype(dtype)
    except Exception as err:  # tvm_ffi reports several kinds of parse failure
        raise ValueError(f"unknown dtype `{dtype}`") from err
    code = int(parsed.type_code)
    lanes = int(parsed.lanes)
    if code in _INT_CODES:
        kind = _INT_CODES[code]
    elif code == DataTypeCode.BOOL:
        kind = "bool"
    elif code == DataTypeCode.HANDLE:
        kind = "handle"
    elif parsed.is_float:
        kind = "float"
    else:
        kind = "other"
    element = str(parsed.with_lanes(1)) if lanes != 1 else str(parsed)
    return DTypeInfo(kind, code, int(parsed.bits), lanes, element)


def normalize_dtype(dtype) -> str:
    """Return ``dtype`` as a validated plain ``str`` (accepts ``DataType`` and NumPy dtypes)."""
    if isinstance(dtype, str):
        # A plain str even for the DataType subclass (str.__str__ copies a subclass to str).
        text = dtype if type(dtype) is str else str.__str__(dtype)
    else:
        text = str(tvm_ffi.dtype(dtype))
    dtype_info(text)
    return text


def dtype_kind(dtype: str) -> str:
    """``"int"``, ``"uint"``, ``"float"``, ``"bool"``, ``"handle"`` or ``"void"``."""
    return dtype_info(dtype).kind


def dtype_bits(dtype: str) -> int:
    """Bits of one lane."""
    return dtype_info(dtype).bits


def dtype_lanes(dtype: str) -> int:
    """Number of vector lanes (1 for scalars)."""
    return dtype_info(dtype).lanes


def element_dtype(dtype: str) -> str:
    """The scalar dtype of a (possibly vector) dtype."""
    return dtype_info(dtype).element


@cache
def with_lanes(dtype: str, lanes: int) -> str:
    """``dtype`` with ``lanes`` vector lanes (``"int32"``, 4 -> ``"int32x4"``).

    A negative ``lanes`` -k is a scalable vector of k * vscale lanes (``"int32xvscalex4"``),
    the value ``DataType(...).lanes`` reports for such dtypes.
    """
    element = dtype_info(dtype).element
    if lanes < 0:
        return f"{element}xvscalex{-lanes}"
    return element if lanes == 1 else f"{element}x{lanes}"


def is_int_dtype(dtype: str) -> bool:
    """True for signed or unsigned integer dtypes (not bool)."""
    return dtype_info(dtype).kind in ("int", "uint")


def is_float_dtype(dtype: str) -> bool:
    """True for every floating-point dtype (float16/32/64, bfloat16, float8/6/4 variants)."""
    return dtype_info(dtype).kind == "float"


def is_bool_dtype(dtype: str) -> bool:
    """True for the ``bool`` dtype (``dtype_info(dtype).kind == "bool"``)."""
    return dtype_info(dtype).kind == "bool"
