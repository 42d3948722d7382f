"""``target="c"``: host PrimFuncs compiled as C packed functions (tvm.backend.c.host/module)."""

import re
import shutil

import numpy as np
import pytest

import tvm
from tvm.script import tirx as T

pytestmark = pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None,
                                reason="the c backend needs a C compiler")


def _add_one():
    @T.prim_func(s_tir=True)
    def func(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n + 1,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i] + A[i + 1] + T.float32(1)

    return func


def test_compiles_and_runs():
    lib = tvm.compile(_add_one(), target="c")
    a = tvm.runtime.tensor(np.arange(5, dtype="float32"))
    b = tvm.runtime.tensor(np.zeros(4, dtype="float32"))
    lib(a, b)
    np.testing.assert_allclose(b.numpy(), [2, 4, 6, 8])
    assert "__tvm_ffi_func" in lib.mod.inspect_source()
    assert lib.mod.kind == "c"


def test_argument_checks():
    lib = tvm.compile(_add_one(), target="c")
    sig = "func(A: Tensor([n + T.int64(1)], float32), B: Tensor([n], float32))"
    a = tvm.runtime.tensor(np.zeros(5, dtype="float32"))
    b = tvm.runtime.tensor(np.zeros(4, dtype="float32"))
    with pytest.raises(TypeError, match=re.escape(f"Expected 2 arguments when calling:\n  `{sig}`")):
        lib(a)
    with pytest.raises(TypeError, match=re.escape("Mismatched type on argument #1")):
        lib(a, 3)
    with pytest.raises(TypeError, match=re.escape("Mismatched B.dtype on argument #1")):
        lib(a, tvm.runtime.tensor(np.zeros(4, dtype="int32")))
    with pytest.raises(ValueError, match=re.escape("Mismatched A.ndim on argument #0")):
        lib(tvm.runtime.tensor(np.zeros((5, 1), dtype="float32")), b)
    with pytest.raises(ValueError, match=re.escape("expected B.shape[0] + 1 = 5, got 7")):
        lib(tvm.runtime.tensor(np.zeros(7, dtype="float32")), b)


def test_shared_variable_and_fixed_shape():
    @T.prim_func(s_tir=True)
    def func(a: T.handle, b: T.Buffer((2, 3), "int32")):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        for i in range(2):
            b[i, 0] = A[i]

    lib = tvm.compile(func, target="c")
    with pytest.raises(ValueError, match=re.escape("Invalid b.shape[1] on argument #1")):
        lib(tvm.runtime.tensor(np.zeros(4, dtype="int32")),
            tvm.runtime.tensor(np.zeros((2, 4), dtype="int32")))
    fortran = np.asfortranarray(np.zeros((2, 3), dtype="int32"))
    import tvm_ffi

    with pytest.raises(ValueError, match="expected to be compact array"):
        lib(tvm.runtime.tensor(np.zeros(4, dtype="int32")), tvm_ffi.from_dlpack(fortran))


def test_assert_kind_and_parts():
    @T.prim_func(s_tir=True)
    def func(x: T.int32):
        assert x > 0, ("ValueError", ["x must be ", "positive"])

    lib = tvm.compile(func, target="c")
    lib(1)
    with pytest.raises(ValueError, match="x must be positive"):
        lib(0)


@pytest.mark.parametrize(("dtype", "arg", "expected"), [
    ("int32", 7, 14), ("float32", 1.5, 3.0), ("bool", True, True),
])
def test_scalar_return(dtype, arg, expected):
    @T.prim_func(s_tir=True)
    def func(x: T.int32) -> T.int32:
        return x * 2

    if dtype == "float32":
        @T.prim_func(s_tir=True)
        def func(x: T.float32) -> T.float32:
            return x * T.float32(2)
    elif dtype == "bool":
        @T.prim_func(s_tir=True)
        def func(x: T.bool) -> T.bool:
            return x

    lib = tvm.compile(func, target="c")
    assert lib(arg) == expected
    with pytest.raises(TypeError, match="Mismatched type on argument #0"):
        lib(tvm.runtime.tensor(np.zeros(2, dtype="float32")))


def test_math_intrinsic():
    @T.prim_func(s_tir=True)
    def func(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            b[i] = T.exp(a[i])

    lib = tvm.compile(func, target="c")
    a = np.array([0, 1, 2, -1], dtype="float32")
    b = tvm.runtime.tensor(np.zeros(4, dtype="float32"))
    lib(tvm.runtime.tensor(a), b)
    np.testing.assert_allclose(b.numpy(), np.exp(a), rtol=1e-6)


def test_raw_handle_parameter_is_rejected():
    @T.prim_func(s_tir=True)
    def func(p: T.handle):
        T.evaluate(0)

    with pytest.raises(ValueError, match="raw pointer"):
        tvm.compile(func, target="c")
