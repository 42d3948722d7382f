"""tvm.DataType and the dtype-string helpers of tvm.runtime.data_type."""

import numpy as np
import pytest

import tvm
from tvm.runtime.data_type import (
    DataType,
    dtype_bits,
    dtype_info,
    dtype_kind,
    dtype_lanes,
    element_dtype,
    is_bool_dtype,
    is_float_dtype,
    is_int_dtype,
    normalize_dtype,
    with_lanes,
)


def test_datatype_is_tvm_ffi_dtype():
    import tvm_ffi

    assert tvm.DataType is DataType is tvm_ffi.dtype
    d = tvm.DataType("float32x4")
    assert (d.type_code, d.bits, d.lanes) == (2, 32, 4)
    assert d == "float32x4" and str(d) == "float32x4"
    assert str(tvm.DataType("float32").with_lanes(4)) == "float32x4"


@pytest.mark.parametrize(
    "text, code, bits, lanes",
    [
        ("int64", 0, 64, 1),
        ("uint8", 1, 8, 1),
        ("float16", 2, 16, 1),
        ("handle", 3, 64, 1),
        ("bfloat16", 4, 16, 1),
        ("bool", 6, 8, 1),
        ("float8_e4m3fn", 10, 8, 1),
    ],
)
def test_parse(text, code, bits, lanes):
    d = DataType(text)
    assert (d.type_code, d.bits, d.lanes) == (code, bits, lanes)
    info = dtype_info(text)
    assert (info.type_code, info.bits, info.lanes) == (code, bits, lanes)


@pytest.mark.parametrize(
    "text, kind",
    [("int32", "int"), ("uint16", "uint"), ("float64", "float"), ("bfloat16", "float"),
     ("float8_e5m2", "float"), ("bool", "bool"), ("handle", "handle"), ("void", "void")],
)
def test_kinds(text, kind):
    assert dtype_kind(text) == kind


def test_helpers():
    assert dtype_bits("float16") == 16
    assert dtype_lanes("int32x8") == 8
    assert element_dtype("int32x8") == "int32"
    assert with_lanes("int32", 8) == "int32x8"
    assert with_lanes("int32x8", 1) == "int32"
    assert is_int_dtype("uint8") and not is_int_dtype("bool")
    assert is_float_dtype("bfloat16") and not is_float_dtype("int8")
    assert is_bool_dtype("bool")
    assert dtype_info("void").lanes == 0


def test_normalize():
    assert normalize_dtype("float32") == "float32"
    assert type(normalize_dtype(DataType("int8"))) is str
    assert normalize_dtype(np.dtype("float16")) == "float16"


def test_bad_dtypes():
    with pytest.raises(ValueError, match="unknown dtype `floaty`"):
        dtype_info("floaty")
    with pytest.raises(TypeError, match="dtype must be a str"):
        dtype_info(3)
