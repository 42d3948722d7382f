"""Packed-API wrappers: hand-written kernels called with NumPy arrays and tvm_ffi.Tensor."""

import ctypes

import numpy as np
import pytest
import tvm_ffi
from llvmlite import ir

from tvm.backend.llvm import build_module
from tvm.backend.llvm.packed_api import (
    I64,
    ScalarParam,
    TensorParam,
    emit_packed_function,
    llvm_type,
    signature_text,
)
from tvm.backend.llvm.testing import elementwise_add_module, emit_counted_loop
from tvm.testing.dlpack import DLDataType as _DLDataType
from tvm.testing.dlpack import DLDevice as _DLDevice
from tvm.testing.dlpack import DLTensor as _DLTensor
from tvm.testing.dlpack import fake_dlpack_tensor

SIG = "`add(A: Tensor([n], float32), B: Tensor([n], float32), C: Tensor([n], float32))`"


@pytest.fixture(scope="module")
def add():
    return build_module(elementwise_add_module("add", "float32", ("n",)))["add"]


@pytest.fixture(scope="module")
def add_static():
    return build_module(elementwise_add_module("add1024", "float32", (1024,)))["add1024"]


@pytest.mark.parametrize("n", [1, 3, 17, 1023, 1 << 20])
def test_vector_add_numpy_args(add, n):
    rng = np.random.default_rng(n)
    a, b = rng.random(n, dtype="float32"), rng.random(n, dtype="float32")
    c = np.zeros(n, "float32")
    add(a, b, c)
    np.testing.assert_array_equal(c, a + b)


@pytest.mark.parametrize("n", [1, 17, 1023])
def test_vector_add_tvm_ffi_tensor_args(add, n):
    a = np.arange(n, dtype="float32")
    b = np.full(n, 2.5, dtype="float32")
    c = np.zeros(n, "float32")
    ta, tb, tc = (tvm_ffi.from_dlpack(x) for x in (a, b, c))
    add(ta, tb, tc)
    np.testing.assert_array_equal(np.from_dlpack(tc), a + b)
    np.testing.assert_array_equal(c, a + b)  # zero copy: the NumPy array sees the write


def test_zero_length(add):
    empty = np.zeros(0, "float32")
    add(empty, empty, empty)


@pytest.mark.parametrize("dtype", ["int32", "float64", "int8"])
def test_other_dtypes(dtype):
    f = build_module(elementwise_add_module(f"add_{dtype}", dtype, ("n",)))[f"add_{dtype}"]
    a = np.arange(100).astype(dtype)
    c = np.zeros_like(a)
    f(a, a, c)
    np.testing.assert_array_equal(c, a + a)


def test_static_shape(add_static):
    a = np.ones(1024, "float32")
    c = np.zeros(1024, "float32")
    add_static(a, a, c)
    assert (c == 2).all()
    with pytest.raises(ValueError) as err:
        add_static(a, a, np.zeros(1000, "float32"))
    assert str(err.value) == (
        "Invalid C.shape[0] on argument #2 when calling:\n"
        "  `add1024(A: Tensor([1024], float32), B: Tensor([1024], float32), "
        "C: Tensor([1024], float32))`,\n  expected 1024, got 1000"
    )


def _expect(add, kind, args, *words):
    with pytest.raises(kind) as err:
        add(*args)
    for word in words:
        assert word in str(err.value), str(err.value)
    return str(err.value)


def test_wrong_argument_count(add):
    a = np.zeros(4, "float32")
    msg = _expect(add, TypeError, (a,), "Expected 3 arguments", SIG, "got 1")
    assert msg == f"Expected 3 arguments when calling:\n  {SIG},\n  got 1"
    _expect(add, TypeError, (a, a, a, a), "got 4")
    _expect(add, TypeError, (), "got 0")


def test_wrong_ndim(add):
    a = np.zeros(4, "float32")
    _expect(
        add,
        ValueError,
        (a, np.zeros((4, 1), "float32"), a),
        "Mismatched B.ndim on argument #1",
        SIG,
        "expected 1, got 2",
    )
    _expect(add, ValueError, (np.zeros((), "float32"), a, a), "A.ndim", "expected 1, got 0")


@pytest.mark.parametrize(
    "dtype, shown",
    [
        ("float64", "float64"),
        ("int32", "int32"),
        ("uint8", "uint8"),
        ("bool", "bool"),
        ("float16", "float16"),
    ],
)
def test_wrong_dtype(add, dtype, shown):
    a = np.zeros(4, "float32")
    _expect(
        add,
        TypeError,
        (a, a, np.zeros(4, dtype)),
        "Mismatched C.dtype on argument #2",
        SIG,
        f"expected float32, got {shown}",
    )


def test_inconsistent_symbolic_shape(add):
    a = np.zeros(8, "float32")
    msg = _expect(add, ValueError, (a, np.zeros(7, "float32"), a), "Mismatched B.shape[0]")
    assert msg == (
        f"Mismatched B.shape[0] on argument #1 when calling:\n  {SIG},\n"
        "  expected to match A.shape[0] (n = 8), got 7"
    )


def test_non_contiguous(add):
    a = np.zeros(8, "float32")
    strided = np.zeros(16, "float32")[::2]
    _expect(
        add,
        ValueError,
        (strided, a, a),
        "Mismatched A.strides on argument #0",
        "expected to be compact array",
        "strides[0] = 2 where 1 is compact",
    )


def test_size_one_dimension_any_stride():
    module = ir.Module("col")
    emit_packed_function(module, "col", [TensorParam("X", "float32", (4, 1))], lambda b, a: None)
    col = build_module(module)["col"]
    base = np.zeros(4, "float32")
    # The size-1 dimension's stride (100 elements) does not matter for a compact layout.
    col(np.lib.stride_tricks.as_strided(base, (4, 1), (4, 400)))
    _expect(
        col,
        ValueError,
        (np.zeros((4, 3), "float32")[:, :1],),
        "X.strides",
        "strides[0] = 3 where 1 is compact",
    )


@pytest.mark.parametrize(
    "value, shown", [(3, "int"), (2.5, "float"), (None, "None"), ("s", "str"), (True, "bool")]
)
def test_non_tensor_argument(add, value, shown):
    a = np.zeros(4, "float32")
    _expect(
        add,
        TypeError,
        (a, value, a),
        "Mismatched type on argument #1",
        SIG,
        f"expected Tensor, got {shown}",
    )


_KEEP_ALIVE = []  # what the raw DLTensor arguments below point to


def _fake_tensor(array, length, device_type=1, byte_offset=0, dtype=(2, 32, 1)):
    """A tvm_ffi.Tensor viewing float32 ``array`` with a custom device type and byte offset."""
    return fake_dlpack_tensor(array, [length], device_type=device_type,
                              byte_offset=byte_offset, dtype=dtype)


def test_wrong_device(add):
    a = np.zeros(4, "float32")
    fake = _fake_tensor(np.zeros(4, "float32"), 4, device_type=2)
    _expect(
        add,
        ValueError,
        (a, fake, a),
        "Mismatched B.device on argument #1",
        SIG,
        "expected cpu, got cuda (device_type=2)",
    )


def test_byte_offset_is_applied(add):
    storage = np.arange(8, dtype="float32")
    view = _fake_tensor(storage, 4, byte_offset=16)  # elements 4..7
    c = np.zeros(4, "float32")
    add(view, view, c)
    np.testing.assert_array_equal(c, 2 * storage[4:])


def _scale_module():
    """scale(X, Y, alpha: float32, k: int32): Y = X * alpha + k."""
    module = ir.Module("scale")
    f32 = llvm_type("float32")

    def body(builder, args):
        x, y = args.tensors["X"], args.tensors["Y"]
        alpha = args.scalars["alpha"]
        k = builder.sitofp(args.scalars["k"], f32)

        def step(b, i):
            v = b.load(b.gep(x.data, [i], source_etype=f32), typ=f32)
            b.store(b.fadd(b.fmul(v, alpha), k), b.gep(y.data, [i], source_etype=f32))

        emit_counted_loop(builder, ir.Constant(I64, 0), args.shape_vars["n"], step)

    params = [
        TensorParam("X", "float32", ("n",)),
        TensorParam("Y", "float32", ("n",)),
        ScalarParam("alpha", "float32"),
        ScalarParam("k", "int32"),
    ]
    emit_packed_function(module, "scale", params, body)
    return build_module(module)["scale"]


def test_scalar_parameters():
    scale = _scale_module()
    x = np.arange(5, dtype="float32")
    y = np.zeros(5, "float32")
    scale(x, y, 2.0, 1)
    np.testing.assert_array_equal(y, x * 2 + 1)
    scale(x, y, 3, True)  # an int for a float parameter, a bool for an int parameter
    np.testing.assert_array_equal(y, x * 3 + 1)
    sig = "`scale(X: Tensor([n], float32), Y: Tensor([n], float32), alpha: float32, k: int32)`"
    _expect(
        scale,
        TypeError,
        (x, y, 1.0, 1.5),
        "Mismatched type on argument #3",
        sig,
        "expected int32 (int or bool), got float",
    )
    _expect(
        scale, TypeError, (x, y, x, 1), "argument #2", "expected float32 (float or int), got Tensor"
    )


def test_signature_text():
    params = [TensorParam("A", "float32", ("n", 4, None)), ScalarParam("s", "int64")]
    assert signature_text("f", params) == "f(A: Tensor([n, 4, ?], float32), s: int64)"


def test_bad_parameter_specs():
    module = ir.Module("bad")
    with pytest.raises(ValueError, match="duplicate parameter names"):
        emit_packed_function(
            module, "dup", [TensorParam("A", "float32", (1,))] * 2, lambda b, a: None
        )
    with pytest.raises(ValueError, match="unknown dtype 'floaty'"):
        emit_packed_function(module, "d", [TensorParam("A", "floaty", (1,))], lambda b, a: None)
    with pytest.raises(TypeError, match="shape entry 0 of parameter 'A'"):
        emit_packed_function(module, "s", [TensorParam("A", "float32", (1.5,))], lambda b, a: None)
    with pytest.raises(ValueError, match="scalar parameter 'x' of 'v' has unsupported dtype"):
        emit_packed_function(module, "v", [ScalarParam("x", "float32x4")], lambda b, a: None)
    with pytest.raises(TypeError, match="must be a TensorParam or ScalarParam"):
        emit_packed_function(module, "p", ["A"], lambda b, a: None)
    assert module.functions == []  # nothing half-built was left in the module


def test_any_dtype_and_any_extent():
    module = ir.Module("anything")
    emit_packed_function(
        module, "anything", [TensorParam("T", None, (None, 2), device_type=None)], lambda b, a: None
    )
    f = build_module(module)["anything"]
    f(np.zeros((3, 2), "int16"))
    f(np.zeros((0, 2), "float64"))
    _expect(f, ValueError, (np.zeros((3, 3), "int16"),), "Invalid T.shape[1]", "expected 2, got 3")


# Calling the raw packed function through ctypes exercises what tvm_ffi never sends from
# Python: DLTensor* arguments (type index 7), including a NULL one.
class _Any(ctypes.Structure):
    _fields_ = [
        ("type_index", ctypes.c_int32),
        ("zero_padding", ctypes.c_uint32),
        ("v_ptr", ctypes.c_void_p),
    ]


_PACKED = ctypes.CFUNCTYPE(
    ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(_Any), ctypes.c_int32, ctypes.POINTER(_Any)
)


def _raw_call(address, args):
    """Call a packed function; returns (return code, error kind, error message)."""
    packed = (_Any * len(args))(*args)
    result = _Any(0, 0, None)
    rc = _PACKED(address)(None, packed, len(args), ctypes.byref(result))
    if rc == 0:
        return rc, None, None
    handle = ctypes.c_void_p()
    tvm_ffi.LIB.TVMFFIErrorMoveFromRaised(ctypes.byref(handle))
    # The TVMFFIErrorCell follows the 24-byte object header: kind, then message, as
    # {const char* data; size_t size} byte arrays.
    cell = (ctypes.c_void_p * 4).from_address(handle.value + 24)
    kind = ctypes.string_at(cell[0], cell[1]).decode()
    message = ctypes.string_at(cell[2], cell[3]).decode()
    tvm_ffi.LIB.TVMFFIObjectDecRef(handle)
    return rc, kind, message


def _dltensor(array):
    shape = (ctypes.c_int64 * array.ndim)(*array.shape)
    tensor = _DLTensor(
        array.ctypes.data, _DLDevice(1, 0), array.ndim, _DLDataType(2, 32, 1), shape, None, 0
    )
    _KEEP_ALIVE.extend([array, shape, tensor])
    return _Any(7, 0, ctypes.addressof(tensor))


def test_dltensor_pointer_arguments():
    mod = build_module(elementwise_add_module("ptr_add"))
    address = mod.impl.function_address("ptr_add")
    a = np.arange(10, dtype="float32")
    c = np.zeros_like(a)
    assert _raw_call(address, [_dltensor(a), _dltensor(a), _dltensor(c)]) == (0, None, None)
    np.testing.assert_array_equal(c, 2 * a)
    rc, kind, message = _raw_call(address, [_dltensor(a), _Any(7, 0, None), _dltensor(c)])
    assert (rc, kind) == (-1, "TypeError")
    assert message.startswith("Mismatched type on argument #1 when calling:")
    assert message.endswith("expected Tensor, got NULL")
    rc, kind, message = _raw_call(address, [_dltensor(a), _dltensor(a[:4]), _dltensor(c)])
    assert (rc, kind) == (-1, "ValueError")
    assert message.endswith("expected to match A.shape[0] (n = 10), got 4")
    with pytest.raises(AttributeError, match="Module has no function 'nope'"):
        mod.impl.function_address("nope")


def test_null_data_pointer():
    mod = build_module(elementwise_add_module("null_add"))
    address = mod.impl.function_address("null_add")
    a = np.arange(4, dtype="float32")
    null = _dltensor(a)
    ctypes.cast(null.v_ptr, ctypes.POINTER(_DLTensor)).contents.data = None
    rc, kind, message = _raw_call(address, [_dltensor(a), null, _dltensor(a)])
    assert (rc, kind) == (-1, "ValueError")
    assert "Invalid B.data on argument #1" in message
    assert message.endswith("expected a non-NULL data pointer for a non-empty tensor, got NULL")
    empty = np.zeros(0, "float32")
    null_empty = _dltensor(empty)
    ctypes.cast(null_empty.v_ptr, ctypes.POINTER(_DLTensor)).contents.data = None
    assert _raw_call(address, [_dltensor(empty), null_empty, _dltensor(empty)])[0] == 0


def test_tvm_runtime_tensors(add):
    import ml_dtypes

    import tvm.runtime

    a = tvm.runtime.tensor(np.arange(6, dtype="float32"))
    c = tvm.runtime.empty((6,), "float32")
    add(a, a, c)
    np.testing.assert_array_equal(c.numpy(), 2 * np.arange(6, dtype="float32"))
    half = tvm.runtime.tensor(np.arange(6).astype(ml_dtypes.bfloat16))
    _expect(add, TypeError, (a, half, c), "Mismatched B.dtype", "expected float32, got bfloat16")
    module = ir.Module("bf16")
    emit_packed_function(module, "bf16", [TensorParam("X", "bfloat16", (6,))], lambda b, a: None)
    build_module(module)["bf16"](half)  # bfloat16 tensors are recognized by the dtype check


@pytest.mark.parametrize(
    "dtype, shown",
    [
        ((2, 32, 4), "float32x4"),
        ((10, 8, 1), "float8_e4m3fn"),
        ((99, 8, 1), "dtype(bits=8, code=99)"),
    ],
)
def test_dtype_names_in_messages(add, dtype, shown):
    fake = _fake_tensor(np.zeros(16, "float32"), 4, dtype=dtype)
    a = np.zeros(4, "float32")
    _expect(add, TypeError, (a, fake, a), f"expected float32, got {shown}")


def test_alignment_check():
    module = ir.Module("aligned")
    param = TensorParam("X", "float32", ("n",), alignment=16)
    emit_packed_function(module, "aligned", [param], lambda b, a: None)
    aligned = build_module(module)["aligned"]
    storage = np.zeros(64, "float32")
    offset = (-storage.ctypes.data % 16) // 4  # first 16-byte aligned element
    aligned(storage[offset : offset + 8])
    msg = _expect(
        aligned, ValueError, (storage[offset + 1 : offset + 9],), "Misaligned Tensor data"
    )
    assert msg.endswith("expected data alignment=16 byte, got address % 16 = 4")
    with pytest.raises(
        ValueError, match="alignment of parameter 'Y' must be a power of two, got 12"
    ):
        emit_packed_function(
            module, "bad", [TensorParam("Y", "float32", (1,), alignment=12)], lambda b, a: None
        )
