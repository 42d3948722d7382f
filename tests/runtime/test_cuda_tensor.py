"""Device tensors on tvm.cuda() through the CUDA device API and the fake driver
(tests/backend/cuda/fake_driver.py): allocation, copies both ways, ownership, and zero-copy
DLPack exchange checked with capsules built and consumed here."""

import ctypes
import gc
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import tvm
from tvm.runtime import _dlpack

_FAKE_PATH = Path(__file__).parents[1] / "backend" / "cuda" / "fake_driver.py"
_FAKE_MODULE = "pytvm_tests_fake_cuda_driver"


def _fake_driver_module():
    module = sys.modules.get(_FAKE_MODULE)
    if module is None:
        spec = importlib.util.spec_from_file_location(_FAKE_MODULE, _FAKE_PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[_FAKE_MODULE] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def fake(monkeypatch):
    from tvm.backend.cuda import driver
    from tvm.backend.cuda.runtime_register import register_runtime

    module = _fake_driver_module()
    fake_cuda = module.install(monkeypatch, module.FakeCUDA())
    register_runtime()
    yield fake_cuda
    gc.collect()
    driver.reset()


@pytest.mark.parametrize(
    "dtype", ["float32", "float16", "float64", "int8", "int64", "uint16", "bool", "bfloat16"]
)
def test_round_trip(fake, dtype):
    data = (np.arange(24) % 7).reshape(2, 3, 4)
    if dtype == "bfloat16":
        import ml_dtypes

        array = data.astype(ml_dtypes.bfloat16)
    else:
        array = data.astype(dtype)
    t = tvm.runtime.tensor(array, tvm.cuda(0))
    assert t.device.dlpack_device_type() == 2 and str(t.device) == "cuda:0"
    assert t.shape == (2, 3, 4) and str(t.dtype) == dtype
    assert t.data_ptr() in fake.memory  # the tensor's memory is a device allocation
    back = t.numpy()
    assert back.dtype == array.dtype
    np.testing.assert_array_equal(back.astype("float64"), array.astype("float64"))


def test_empty_and_copyfrom(fake):
    t = tvm.runtime.empty((4, 5), "float32", tvm.cuda(0))
    assert len(fake.memory[t.data_ptr()]) == 80
    t.copyfrom(np.ones((4, 5), "float64"))  # converted to the tensor's dtype on the host
    np.testing.assert_array_equal(t.numpy(), np.ones((4, 5), "float32"))
    t.copyfrom([[float(i)] * 5 for i in range(4)])
    assert t.numpy()[3, 0] == 3.0
    t[:] = np.zeros((4, 5), "float32")
    assert not t.numpy().any()
    with pytest.raises(ValueError, match=r"shape mismatch, tensor has shape \(4, 5\)"):
        t.copyfrom(np.ones(3))
    assert np.asarray(t).shape == (4, 5)  # __array__ copies to the host
    assert "cuda:0" in repr(t)
    with pytest.raises(ValueError, match="cannot view a tensor on cuda:0 as NumPy memory"):
        t._host_view()


def test_copyto_between_devices(fake):
    host = np.random.default_rng(0).standard_normal((3, 8)).astype("float32")
    cpu_tensor = tvm.runtime.tensor(host)
    on_gpu = cpu_tensor.copyto(tvm.cuda(0))
    assert on_gpu.device == tvm.cuda(0)
    again = on_gpu.copyto(tvm.cuda(0))  # device to device
    assert again.data_ptr() != on_gpu.data_ptr()
    back = again.copyto(tvm.cpu(0))
    assert back.device == tvm.cpu(0)
    np.testing.assert_array_equal(back.numpy(), host)
    target = tvm.runtime.empty((3, 8), "float32")
    on_gpu.copyto(target)  # into an existing CPU tensor
    np.testing.assert_array_equal(target.numpy(), host)
    from_tensor = tvm.runtime.tensor(cpu_tensor, tvm.cuda(0))
    np.testing.assert_array_equal(from_tensor.numpy(), host)
    names = fake.call_names()
    assert {"cuMemcpyHtoD", "cuMemcpyDtoD", "cuMemcpyDtoH"} <= set(names)
    with pytest.raises(ValueError, match="shape/dtype mismatch"):
        tvm.runtime.empty((8, 3), "float32", tvm.cuda(0)).copyfrom(on_gpu)


def test_memory_freed_when_tensor_dies(fake):
    t = tvm.runtime.empty((1024,), "float32", tvm.cuda(0))
    address = t.data_ptr()
    alias = tvm.runtime.from_dlpack(t)  # shares memory: still one allocation
    del t
    gc.collect()
    assert address in fake.memory
    del alias
    gc.collect()
    assert address not in fake.memory
    assert ("cuMemFree", (address,)) in fake.calls


def test_zero_size_and_scalar(fake):
    empty = tvm.runtime.empty((0, 3), "float32", tvm.cuda(0))
    assert empty.numpy().shape == (0, 3)
    scalar = tvm.runtime.tensor(np.float32(2.5), tvm.cuda(0))
    assert scalar.shape == () and scalar.numpy() == np.float32(2.5)


# Private prototypes: setting argtypes on ctypes.pythonapi's shared function objects would
# change them for tvm.runtime._dlpack too.
_capsule_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)
_capsule_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi)
)
_capsule_new = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p
)(("PyCapsule_New", ctypes.pythonapi))


def _read_dltensor(capsule):
    """What a DLPack consumer (torch.from_dlpack) reads from a legacy 'dltensor' capsule."""
    address = _capsule_get_pointer(capsule, b"dltensor")
    managed = _dlpack._DLManagedTensor.from_address(address)
    tensor = managed.dl_tensor
    shape = tuple(tensor.shape[i] for i in range(tensor.ndim))
    return address, managed, tensor, shape


def test_export_to_consumer_without_copy(fake):
    t = tvm.runtime.tensor(np.arange(6, dtype="float32").reshape(2, 3), tvm.cuda(0))
    assert t.__dlpack_device__() == (2, 0)
    capsule = t.__dlpack__()
    address, managed, tensor, shape = _read_dltensor(capsule)
    assert (tensor.device.device_type, tensor.device.device_id) == (2, 0)
    assert tensor.data + tensor.byte_offset == t.data_ptr()  # the same device memory
    assert shape == (2, 3) and (tensor.dtype.code, tensor.dtype.bits) == (2, 32)
    # The consumer owns the capsule now: mark it used, then release it as torch would.
    _capsule_set_name(capsule, b"used_dltensor")
    pointer = t.data_ptr()
    del t, capsule
    gc.collect()
    assert pointer in fake.memory  # the consumer still holds the tensor
    managed.deleter(address)  # DLManagedTensor.deleter, called by the consumer when done
    gc.collect()
    assert pointer not in fake.memory


def test_import_from_producer_without_copy(fake):
    # A "torch CUDA tensor": device memory the producer owns, offered as a DLPack capsule.
    from tvm.backend.cuda import driver

    driver.ensure_context(0)
    pointer = int(fake.module.cuMemAlloc(16)[1])
    fake.write(pointer, np.array([1, 2, 3, 4], dtype="float32").tobytes())
    released = []

    class Owner:
        def __del__(self):
            released.append(pointer)

    producer = _dlpack.export_memory(pointer, (4,), 2, 32, (2, 0), owner=Owner())
    t = tvm.runtime.from_dlpack(producer)
    assert t.device == tvm.cuda(0) and t.data_ptr() == pointer
    np.testing.assert_array_equal(t.numpy(), [1, 2, 3, 4])
    t.copyfrom(np.array([5, 6, 7, 8], dtype="float32"))
    assert np.frombuffer(fake.read(pointer, 16), "float32").tolist() == [5, 6, 7, 8]
    del t, producer
    gc.collect()
    assert released == [pointer]  # pytvm released the producer's tensor, never freed it
    assert pointer in fake.memory


def test_non_compact_device_tensor_rejected(fake):
    from tvm.backend.cuda import driver

    driver.ensure_context(0)
    pointer = int(fake.module.cuMemAlloc(64)[1])

    class Strided:
        """A transposed 4 x 4 view: strides (1, 4)."""

        def __init__(self):
            shape = (ctypes.c_int64 * 2)(4, 4)
            strides = (ctypes.c_int64 * 2)(1, 4)
            managed = _dlpack._DLManagedTensor()
            managed.dl_tensor.data = pointer
            managed.dl_tensor.device = _dlpack._DLDevice(2, 0)
            managed.dl_tensor.ndim = 2
            managed.dl_tensor.dtype = _dlpack._DLDataType(2, 32, 1)
            managed.dl_tensor.shape = shape
            managed.dl_tensor.strides = strides
            self.keep = (shape, strides, managed)
            self.capsule = _capsule_new(ctypes.addressof(managed), b"dltensor", None)

        def __dlpack__(self, stream=None, **kwargs):
            return self.capsule

        def __dlpack_device__(self):
            return (2, 0)

    producer = Strided()
    t = tvm.runtime.from_dlpack(producer)
    with pytest.raises(ValueError, match=r"not compact \(strides \(1, 4\)\)"):
        t.numpy()
    del t  # before the producer that owns the DLManagedTensor it points into


def test_cpu_tensors_do_not_touch_the_driver(fake):
    t = tvm.runtime.tensor(np.ones(3, "float32"))
    t.copyfrom(np.zeros(3))
    t.numpy()
    tvm.runtime.empty((2,), "int32")
    assert fake.calls == []
