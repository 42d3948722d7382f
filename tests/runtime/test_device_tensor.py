"""Devices and tensors: construction, NumPy/DLPack interop both ways, dtype errors."""

import ml_dtypes
import numpy as np
import pytest
import tvm_ffi

import tvm
import tvm.testing
from tvm.runtime import Device, Tensor


def test_devices():
    assert str(tvm.cpu()) == "cpu:0"
    assert str(tvm.cuda(1)) == "cuda:1"
    assert tvm.device("cpu", 0) == tvm.cpu(0)
    assert tvm.device("cuda") == tvm.cuda(0)
    assert tvm.device("cuda:2") == tvm.cuda(2)
    dev = tvm.cpu()
    assert isinstance(dev, Device) and isinstance(dev, tvm_ffi.Device)
    assert (dev.type, dev.index, dev.dlpack_device_type()) == ("cpu", 0, 1)
    assert tvm.cuda().dlpack_device_type() == 2
    assert dev.exist
    assert not tvm.metal().exist
    assert hash(tvm.cpu()) == hash(tvm.device("cpu", 0))
    # tvm_ffi builds our Device class everywhere.
    assert type(tvm_ffi.device("cpu")) is Device


def test_unknown_device_name():
    with pytest.raises(ValueError, match="llvm"):
        tvm.device("llvm")


def test_tensor_from_numpy():
    data = np.arange(6, dtype="float32").reshape(2, 3)
    t = tvm.runtime.tensor(data, tvm.cpu())
    assert isinstance(t, Tensor) and isinstance(t, tvm_ffi.Tensor)
    assert t.shape == (2, 3)
    assert t.dtype == "float32"
    assert t.device == tvm.cpu(0)
    np.testing.assert_array_equal(t.numpy(), data)
    # tensor() copies its input and numpy() returns a copy, as in TVM.
    data[0, 0] = 100
    assert t.numpy()[0, 0] == 0
    out = t.numpy()
    out[0, 1] = 100
    assert t.numpy()[0, 1] == 1
    assert repr(t).startswith("<tvm.runtime.Tensor shape=(2, 3), cpu:0>")
    assert "3. 4. 5." in str(t)


def test_tensor_from_lists_scalars_and_tensors():
    assert tvm.runtime.tensor([1, 2, 3]).dtype == "int64"
    scalar = tvm.runtime.tensor(3.0)
    assert scalar.shape == () and scalar.dtype == "float64" and scalar.numpy() == 3.0
    assert tvm.runtime.tensor([True, False]).dtype == "bool"
    source = tvm.runtime.tensor(np.ones((2,), "int8"))
    again = tvm.runtime.tensor(source)
    assert again.dtype == "int8" and not again.same_as(source)
    np.testing.assert_array_equal(np.asarray(again), [1, 1])
    # Non-contiguous and read-only inputs are copied into a compact tensor.
    view = np.arange(12, dtype="float32").reshape(3, 4)[:, ::2]
    np.testing.assert_array_equal(tvm.runtime.tensor(view).numpy(), view)
    frozen = np.ones(3, "float32")
    frozen.flags.writeable = False
    assert tvm.runtime.tensor(frozen).shape == (3,)


@pytest.mark.parametrize(
    "dtype",
    ["float32", "float16", "int32", "uint8", "bool", "bfloat16", "float8_e4m3fn", "float8_e5m2"],
)
def test_empty(dtype):
    t = tvm.runtime.empty((2, 3), dtype, tvm.cpu())
    assert t.shape == (2, 3)
    assert t.dtype == dtype
    assert t.numpy().shape == (2, 3)
    assert tvm.runtime.empty(4).shape == (4,)
    assert tvm.runtime.empty((0, 2), "int32").numpy().shape == (0, 2)


def test_empty_bad_shape_and_dtype():
    with pytest.raises(ValueError, match="negative dimension"):
        tvm.runtime.empty((2, -1))
    with pytest.raises(TypeError, match="unsupported dtype 'complex64'"):
        tvm.runtime.empty((2,), "complex64")
    for name in ["i4", "int4", "float32x4", "handle", "float4_e2m1fn"]:
        with pytest.raises(TypeError, match=f"unsupported dtype '{name}'"):
            tvm.runtime.empty((2,), name)
    # NumPy dtype objects and tvm.DataType work too.
    assert tvm.runtime.empty((2,), np.dtype("int16")).dtype == "int16"
    assert tvm.runtime.empty((2,), tvm.DataType("float16")).dtype == "float16"


def test_copyfrom_copyto():
    t = tvm.runtime.empty((2, 2), "float32")
    assert t.copyfrom(np.full((2, 2), 3.0, "float32")) is t
    np.testing.assert_array_equal(t.numpy(), np.full((2, 2), 3.0))
    other = tvm.runtime.empty((2, 2), "float32")
    t.copyto(other)
    np.testing.assert_array_equal(other.numpy(), t.numpy())
    moved = t.copyto(tvm.cpu())
    assert isinstance(moved, Tensor) and not moved.same_as(t)
    with pytest.raises(ValueError, match="shape mismatch"):
        t.copyfrom(np.zeros(3, "float32"))
    with pytest.raises(TypeError, match="Tensor or a Device"):
        t.copyto("cpu")


def test_dlpack_zero_copy_with_numpy_both_ways():
    data = np.arange(4, dtype="float32")
    t = tvm_ffi.from_dlpack(data)
    assert isinstance(t, Tensor)  # tvm_ffi builds our subclass
    data[0] = 42
    assert t.numpy()[0] == 42
    back = np.from_dlpack(t)
    assert np.shares_memory(back, data)
    same = tvm.runtime.from_dlpack(data)
    assert same.data_ptr() == t.data_ptr()


def test_ffi_function_returns_our_tensor():
    t = tvm.runtime.tensor(np.ones(3, "float32"))
    echoed = tvm_ffi.get_global_func("testing.echo")(t)
    assert isinstance(echoed, Tensor)
    assert echoed.numpy().sum() == 3


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_ml_dtypes_round_trip(name):
    np_dtype = getattr(ml_dtypes, name)
    data = np.array([[0.5, 1.0], [-2.0, 4.0]], dtype=np_dtype)
    t = tvm.runtime.tensor(data)
    assert t.dtype == name
    out = t.numpy()
    assert out.dtype == np_dtype
    np.testing.assert_array_equal(out.astype("float32"), data.astype("float32"))
    t.copyfrom(np.zeros((2, 2), np_dtype))
    assert not t.numpy().astype("float32").any()


@pytest.mark.parametrize("dtype", ["complex64", "object", "U3"])
def test_unsupported_dtype_error(dtype):
    data = np.zeros(2, dtype=dtype)
    with pytest.raises(TypeError, match="unsupported dtype") as info:
        tvm.runtime.tensor(data)
    assert "bfloat16" in str(info.value) and "view" in str(info.value)


def test_non_cpu_device_and_mem_scope_errors():
    with pytest.raises(ValueError, match="no device API for metal"):
        tvm.runtime.tensor(np.zeros(2), tvm.metal())
    with pytest.raises(ValueError, match="mem_scope"):
        tvm.runtime.empty((2,), "float32", mem_scope="global.texture")
    with pytest.raises(TypeError, match="expected a Device"):
        tvm.runtime.empty((2,), "float32", device=3)


def test_lazy_runtime_attributes():
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        tvm.runtime.nonexistent  # noqa: B018


@tvm.testing.requires_package("torch")
def test_dlpack_with_torch():
    import torch

    tt = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = tvm_ffi.from_dlpack(tt)
    assert isinstance(t, Tensor) and t.shape == (2, 3)
    tt[0, 0] = 9
    assert t.numpy()[0, 0] == 9
    back = torch.from_dlpack(t)
    assert back.data_ptr() == tt.data_ptr()


def test_ml_dtype_exports_release_their_arrays():
    import gc

    from tvm.runtime import _dlpack

    before = len(_dlpack._ALIVE)
    t = tvm.runtime.tensor(np.ones(3, ml_dtypes.bfloat16))
    assert len(_dlpack._ALIVE) == before + 1  # kept alive while the tensor lives
    del t
    gc.collect()
    assert len(_dlpack._ALIVE) == before
    # A capsule nobody consumed releases its array when it is destroyed.
    producer = _dlpack.export_array(np.zeros(2, np.uint16), 4, 16)
    assert len(_dlpack._ALIVE) == before + 1
    del producer
    gc.collect()
    assert len(_dlpack._ALIVE) == before


def test_setitem_full_slice():
    t = tvm.runtime.empty((3,), "float32")
    t[:] = np.arange(3, dtype="float32")
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2])
    t[:] = tvm.runtime.tensor(np.full(3, 7, "float32"))
    np.testing.assert_array_equal(t.numpy(), [7, 7, 7])
    with pytest.raises(ValueError, match=r"only tensor\[:\] = value"):
        t[0] = np.ones(3, "float32")
    with pytest.raises(TypeError, match="NumPy array or Tensor, got float"):
        t[:] = 5.0
