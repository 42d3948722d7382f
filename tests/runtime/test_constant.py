"""tvm.runtime.const: TVM's runtime-level spelling of a scalar constant expression."""

import numpy as np
import pytest

import tvm


def test_const_infers_dtype_like_tirx_const():
    cases = [(1, "int32"), (2**40, "int64"), (1.5, "float32"), (True, "bool"),
             (np.int8(3), "int8"), (np.float16(0.5), "float16")]
    for value, dtype in cases:
        c = tvm.runtime.const(value)
        assert c.dtype == dtype, (value, c.dtype)
        tvm.ir.assert_structural_equal(c, tvm.tirx.const(value))


def test_const_with_explicit_dtype():
    c = tvm.runtime.const(2**63, "uint64")
    assert isinstance(c, tvm.tirx.IntImm)
    assert (c.dtype, c.value) == ("uint64", 2**63)
    f = tvm.runtime.const(3, "float16")
    assert isinstance(f, tvm.tirx.FloatImm) and f.value == 3.0


def test_const_rejects_uninferable_value():
    with pytest.raises(TypeError, match="dtype"):
        tvm.runtime.const("int8")
