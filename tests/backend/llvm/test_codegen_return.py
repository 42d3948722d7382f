"""``return v`` in a PrimFunc: the llvm backend hands scalar results back through the packed API."""

import numpy as np
import pytest

import tvm
from tvm.script import tirx as T


def _build(func):
    return tvm.compile(func, target="llvm")


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "uint32", "int64"])
def test_integer_results_wrap_as_the_dtype(dtype):
    x_var, y_var = tvm.tirx.Var("x", "int64"), tvm.tirx.Var("y", "int64")
    product = tvm.tirx.Cast(dtype, x_var) * tvm.tirx.Cast(dtype, y_var)
    func = tvm.tirx.PrimFunc([x_var, y_var], tvm.tirx.Return(product), tvm.ir.PrimType(dtype))
    lib = _build(func.with_attr("global_symbol", "mul"))
    rng = np.random.default_rng(0)
    info = np.iinfo(dtype)
    for _ in range(20):
        x, y = (int(v) for v in rng.integers(info.min, info.max, size=2, endpoint=True,
                                             dtype=np.int64 if info.max < 2**63 else np.uint64))
        expected = (np.array(x).astype(dtype) * np.array(y).astype(dtype)).item()
        assert lib(x, y) == expected


def test_float_bool_and_branches():
    @T.prim_func(s_tir=True)
    def half(x: T.float32) -> T.float32:
        return x * T.float32(0.5)

    @T.prim_func(s_tir=True)
    def positive(x: T.int32) -> T.bool:
        return x > 0

    @T.prim_func(s_tir=True)
    def sign(x: T.int32) -> T.int32:
        if x > 0:
            return 1
        elif x < 0:
            return -1
        return 0

    fhalf, fpos, fsign = _build(half), _build(positive), _build(sign)
    assert fhalf(3.0) == np.float32(1.5)
    assert fhalf(0.1) == float(np.float32(np.float32(0.1) * np.float32(0.5)))
    assert fpos(4) is True and fpos(-4) is False
    assert [fsign(v) for v in (7, -3, 0)] == [1, -1, 0]


def test_return_leaves_a_loop_early():
    @T.prim_func(s_tir=True)
    def first_negative(a: T.Buffer((16,), "int32")) -> T.int32:
        for i in range(16):
            if a[i] < 0:
                return i
        return -1

    lib = _build(first_negative)
    data = np.arange(16, dtype="int32")
    assert lib(tvm.runtime.tensor(data)) == -1
    data[[5, 9]] = -7
    assert lib(tvm.runtime.tensor(data)) == 5


def test_return_frees_heap_workspace():
    # 128 KiB is above the stack limit: the buffer is a heap workspace the return must free.
    @T.prim_func(s_tir=True)
    def total(a: T.Buffer((32768,), "float32")) -> T.float32:
        tmp = T.alloc_buffer((32768,), "float32")
        for i in range(32768):
            tmp[i] = a[i] * T.float32(2)
        acc = T.alloc_buffer((1,), "float32")
        acc[0] = T.float32(0)
        for i in range(32768):
            acc[0] = acc[0] + tmp[i]
        return acc[0]

    lib = _build(total)
    data = np.ones(32768, dtype="float32")
    for _ in range(3):
        assert lib(tvm.runtime.tensor(data)) == 65536.0


def test_vector_result_is_rejected():
    x = tvm.tirx.Var("x", "int32")
    body = tvm.tirx.Return(tvm.tirx.Broadcast(x, 4))
    func = tvm.tirx.PrimFunc([x], body, tvm.ir.PrimType("int32x4")).with_attr(
        "global_symbol", "vec"
    )
    with pytest.raises(ValueError, match="returns the vector type int32x4"):
        _build(func)


def test_bool_parameter_message_says_boolean():
    @T.prim_func(s_tir=True)
    def flag(x: T.bool) -> T.int32:
        if x:
            return 1
        return 0

    lib = _build(flag)
    assert lib(True) == 1 and lib(False) == 0
    with pytest.raises(TypeError, match="expected boolean"):
        lib(tvm.runtime.tensor(np.zeros(2, "float32")))
