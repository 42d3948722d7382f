"""The C host target: ``tvm.compile(..., target="c")`` -> C source, compiled by gcc, run."""

import shutil

import numpy as np
import pytest
import tvm_ffi

import tvm
from tvm.script import ir as I
from tvm.script import tirx as T

pytestmark = pytest.mark.skipif(
    shutil.which("cc") is None and shutil.which("gcc") is None, reason="needs a C compiler")


def _tensor(array):
    return tvm.runtime.tensor(array)


@T.prim_func(s_tir=True)
def axpy(a: T.handle, b: T.handle, alpha: T.float32):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        B[i] = alpha * A[i] + B[i]


def test_symbolic_axpy_matches_numpy():
    lib = tvm.compile(axpy, target="c")
    assert lib.kind == "c"
    source = lib.inspect_source()
    assert "int32_t __tvm_ffi_axpy(void* self_handle, void* args" in source
    assert "float* restrict" not in source  # not noalias: no restrict
    rng = np.random.default_rng(0)
    a = rng.standard_normal(37).astype("float32")
    b = rng.standard_normal(37).astype("float32")
    tb = _tensor(b.copy())
    lib(_tensor(a), tb, 2.5)
    np.testing.assert_allclose(tb.numpy(), 2.5 * a + b, rtol=1e-6)
    # An int for a float parameter is accepted (converted), as by the llvm target.
    tb = _tensor(b.copy())
    lib(_tensor(a), tb, 2)
    np.testing.assert_allclose(tb.numpy(), 2 * a + b, rtol=1e-6)


def test_argument_errors_name_the_signature():
    lib = tvm.compile(axpy, target="c")
    a = _tensor(np.zeros(4, "float32"))
    sig = "axpy(A: Tensor([n], float32), B: Tensor([n], float32), alpha: float32)"
    with pytest.raises(TypeError, match=r"Expected 3 arguments when calling:\n  `" +
                       sig.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]")):
        lib(a, a)
    with pytest.raises(TypeError, match=r"(?s)Mismatched type on argument #1 .*expected Tensor, got "
                                        r"int"):
        lib(a, 3, 1.0)
    with pytest.raises(ValueError, match=r"(?s)Mismatched B.shape\[0\] on argument #1.*expected to "
                                         r"match A.shape\[0\] \(n = 4\), got 5"):
        lib(a, _tensor(np.zeros(5, "float32")), 1.0)
    with pytest.raises(TypeError, match=r"(?s)Mismatched A.dtype on argument #0.*expected float32, "
                                        r"got int32"):
        lib(_tensor(np.zeros(4, "int32")), a, 1.0)
    with pytest.raises(ValueError, match=r"(?s)Mismatched A.ndim on argument #0.*expected 1, got 2"):
        lib(_tensor(np.zeros((2, 2), "float32")), a, 1.0)
    with pytest.raises(TypeError, match=r"(?s)Mismatched type on argument #2.*expected float32 "
                                        r"\(float or int\), got Tensor"):
        lib(a, a, a)


@T.prim_func(s_tir=True)
def matmul_static(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16, 4), "float32"),
                  C: T.Buffer((8, 4), "float32")):
    T.func_attr({"tirx.noalias": True})
    for i, j, k in T.grid(8, 4, 16):
        with T.sblock("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]


def test_matmul_with_sblocks_and_export_library(tmp_path):
    lib = tvm.compile(matmul_static, target="c")
    assert "float* restrict" in lib.inspect_source()  # tirx.noalias
    rng = np.random.default_rng(1)
    a = rng.standard_normal((8, 16)).astype("float32")
    b = rng.standard_normal((16, 4)).astype("float32")
    path = str(tmp_path / "matmul.so")
    lib.export_library(path)
    loaded = tvm.runtime.load_module(path)
    c = _tensor(np.zeros((8, 4), "float32"))
    loaded["matmul_static"](_tensor(a), _tensor(b), c)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"(?s)Invalid C.shape\[1\] on argument #2.*expected 4, "
                                         r"got 5"):
        loaded["matmul_static"](_tensor(a), _tensor(b), _tensor(np.zeros((8, 5), "float32")))
    with pytest.raises(ValueError, match=r"(?s)Mismatched A.strides on argument #0.*compact"):
        lib["matmul_static"](tvm_ffi.from_dlpack(np.asfortranarray(a)), _tensor(b), c)


@T.prim_func(s_tir=True)
def math_ops(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"),
             C: T.Buffer((64,), "float64"), D: T.Buffer((64,), "float32")):
    for i in range(64):
        B[i] = T.exp(A[i]) + T.sqrt(T.fabs(A[i])) + T.tanh(A[i]) + T.sigmoid(A[i])
        C[i] = T.floor(T.Cast("float64", A[i]) * T.float64(3))
        D[i] = T.round(A[i] * T.float32(4)) + T.max(A[i], T.float32(0)) - T.min(
            A[i], T.float32(0.5))


def test_math_functions_match_numpy():
    lib = tvm.compile(math_ops, target="c")
    source = lib.inspect_source()
    assert "expf(" in source and "floor(" in source and "nearbyintf(" in source
    a = np.linspace(-3, 3, 64).astype("float32")
    b, c, d = (_tensor(np.zeros(64, dt)) for dt in ("float32", "float64", "float32"))
    lib(_tensor(a), b, c, d)
    want = np.exp(a) + np.sqrt(np.abs(a)) + np.tanh(a) + 1 / (1 + np.exp(-a))
    np.testing.assert_allclose(b.numpy(), want, rtol=1e-5)
    np.testing.assert_array_equal(c.numpy(), np.floor(a.astype("float64") * 3))
    np.testing.assert_allclose(
        d.numpy(), np.round(a * 4) + np.maximum(a, 0) - np.minimum(a, 0.5), rtol=1e-6)


@T.prim_func
def workspace_copy(A: T.Buffer((512,), "float32")):
    W = T.alloc_buffer((512,), "float32")
    S = T.alloc_buffer((4,), "float32")
    for i in range(512):
        W[511 - i] = A[i]
    for i in range(4):
        S[i] = T.float32(1)
    for i in range(512):
        A[i] = W[i] + S[i % 4]


def test_large_allocation_uses_the_workspace_and_small_the_stack():
    lib = tvm.compile(workspace_copy, target="c")
    source = lib.inspect_source()
    assert "((float*)TVMBackendAllocWorkspace(1, 0, (uint64_t)2048ULL, 2, 32))" in source
    assert "float S[4]" in source
    assert "TVMBackendFreeWorkspace(1, 0, W)" in source
    a = np.arange(512, dtype="float32")
    ta = _tensor(a.copy())
    lib(ta)
    np.testing.assert_array_equal(ta.numpy(), a[::-1] + 1)


@T.prim_func(s_tir=True)
def sign(x: T.int32) -> T.int32:
    if x > 0:
        return 1
    return -1


@T.prim_func(s_tir=True)
def half(x: T.float64) -> T.float64:
    return x / T.float64(2)


def test_scalar_return_values():
    assert tvm.compile(sign, target="c")(5) == 1
    assert tvm.compile(sign, target="c")(-5) == -1
    assert tvm.compile(half, target="c")(3.0) == 1.5


@T.prim_func(s_tir=True)
def checked(x: T.int32):
    assert x < 10, ("IndexError", ["x is ", "too large"])


def test_assert_raises_its_kind():
    lib = tvm.compile(checked, target="c")
    lib(3)
    with pytest.raises(IndexError, match="x is too large"):
        lib(11)


@T.prim_func(s_tir=True)
def reinterpret_bits(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = T.reinterpret("float32", A[i] + 1)


def test_reinterpret_and_integer_division():
    lib = tvm.compile(reinterpret_bits, target="c")
    a = np.arange(1 << 20, (1 << 20) + 16, dtype="int32")
    b = _tensor(np.zeros(16, "float32"))
    lib(_tensor(a), b)
    np.testing.assert_array_equal(b.numpy(), (a + 1).view("float32"))


@T.prim_func(s_tir=True)
def floor_div_mod(A: T.Buffer((9,), "int32"), B: T.Buffer((9,), "int32"),
                  C: T.Buffer((9,), "int32")):
    for i in range(9):
        B[i] = T.floordiv(A[i], 4)
        C[i] = T.floormod(A[i], 4)


def test_floordiv_of_negative_numbers():
    lib = tvm.compile(floor_div_mod, target="c")
    a = np.arange(-4, 5, dtype="int32")
    b, c = _tensor(np.zeros(9, "int32")), _tensor(np.zeros(9, "int32"))
    lib(_tensor(a), b, c)
    np.testing.assert_array_equal(b.numpy(), a // 4)
    np.testing.assert_array_equal(c.numpy(), a % 4)


def test_vector_access_ptr_prints_the_scalar_offset():
    buf = tvm.tirx.decl_buffer((8,), "float32x2", name="A")
    ptr = buf.access_ptr(access_mask=3, offset=2, extent=4)
    body = tvm.tirx.Evaluate(tvm.tirx.call_extern("void", "consume", ptr))
    func = tvm.tirx.PrimFunc([buf], body).with_attr("global_symbol", "main")
    source = tvm.compile(tvm.IRModule.from_expr(func), target="c").inspect_source()
    assert "consume(((float2*)(((float*)" in source and " + 4))" in source
    assert "typedef float float2 __attribute__((vector_size(8), aligned(4)));" in source


def test_unsupported_intrinsic_is_a_value_error():
    @T.prim_func(s_tir=True)
    def uses_clz(A: T.Buffer((4,), "int32")):
        for i in range(4):
            A[i] = T.clz(A[i])

    with pytest.raises(ValueError, match="has no C code generation rule"):
        tvm.compile(uses_clz, target="c")


def test_write_to_file_and_formats(tmp_path):
    lib = tvm.compile(sign, target="c")
    assert lib.get_write_formats() == ["c", "o"]
    lib.write_to_file(str(tmp_path / "sign.c"))
    assert (tmp_path / "sign.c").read_text().startswith("// tvm target: ")
    lib.write_to_file(str(tmp_path / "sign.o"))
    assert (tmp_path / "sign.o").stat().st_size > 0
    with pytest.raises(ValueError, match="supports 'c'"):
        lib.inspect_source("ll")


def test_private_subroutine_is_a_plain_c_function():
    @I.ir_module(s_tir=True)
    class Module:
        @T.prim_func(s_tir=True)
        def main(A: T.Buffer(8, "float32")):
            Module.fill(A.data, T.float32(3))

        @T.prim_func(private=True, s_tir=True)
        def fill(A_data: T.handle("float32"), value: T.float32):
            A = T.decl_buffer(8, "float32", data=A_data)
            for i in range(8):
                A[i] = value * T.Cast("float32", i)

    lib = tvm.compile(Module, target="c")
    source = lib.inspect_source()
    assert source.count("static int32_t fill(float* A_data, float value)") == 2
    assert "__tvm_ffi_fill" not in source  # private: no packed entry point
    a = _tensor(np.zeros(8, "float32"))
    lib["main"](a)
    np.testing.assert_array_equal(a.numpy(), 3 * np.arange(8, dtype="float32"))


def test_vectorized_and_parallel_loops_at_unaligned_offsets():
    @T.prim_func(s_tir=True)
    def shifted(A: T.Buffer((68,), "float32"), B: T.Buffer((64,), "float32")):
        for i in T.parallel(16):
            for j in T.vectorized(4):
                B[i * 4 + j] = T.max(A[i * 4 + j + 1] * T.float32(2), T.float32(0)) + T.Cast(
                    "float32", j)

    lib = tvm.compile(shifted, target="c")
    assert "__builtin_convertvector(" in lib.inspect_source()
    a = np.random.default_rng(2).standard_normal(68).astype("float32")
    b = _tensor(np.zeros(64, "float32"))
    lib(_tensor(a), b)
    want = np.maximum(a[1:65] * 2, 0) + np.tile(np.arange(4), 16)
    np.testing.assert_allclose(b.numpy(), want, rtol=1e-6)
