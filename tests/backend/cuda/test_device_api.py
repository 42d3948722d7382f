"""CUDADeviceAPI through the fake driver: tvm.cuda(0) attributes, memory, copies, streams."""

import ctypes

import pytest

import tvm
from tvm.backend.cuda.device_api import CUDADeviceAPI
from tvm.runtime import device_api


def test_registered_for_cuda(fake_cuda):
    assert isinstance(device_api.get_device_api(2), CUDADeviceAPI)
    assert device_api.get_device_api(13) is device_api.get_device_api(2)  # managed memory


def test_device_attributes(fake_cuda):
    dev = tvm.cuda(0)
    assert dev.exist is True
    assert tvm.cuda(1).exist is False
    assert dev.max_threads_per_block == 1024
    assert dev.warp_size == 32
    assert dev.max_shared_memory_per_block == 49152
    assert dev.compute_version == "9.0"
    assert dev.device_name == "NVIDIA H200 (fake 0)"
    assert dev.multi_processor_count == 132
    assert dev.max_clock_rate == 1980000
    assert dev.max_registers_per_block == 65536
    assert dev.l2_cache_size_bytes == 52428800
    assert dev.max_thread_dimensions == [1024, 1024, 64]
    assert dev.total_global_memory == 150_000_000_000
    assert dev.available_global_memory == 150_000_000_000
    assert dev.driver_version == dev.api_version == 13000
    asked = [args[0].name for name, args in fake_cuda.calls if name == "cuDeviceGetAttribute"]
    assert "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR" in asked
    assert "CU_DEVICE_ATTRIBUTE_WARP_SIZE" in asked
    with pytest.raises(ValueError, match=r"cuda\(1\) does not exist"):
        _ = tvm.cuda(1).warp_size


def test_alloc_copy_free_round_trip(fake_cuda):
    api = device_api.get_device_api(2)
    dev, cpu = tvm.cuda(0), tvm.cpu(0)
    a = api.alloc(dev, 32)
    b = api.alloc(dev, 32)
    assert a % 256 == 0 and a in fake_cuda.memory
    host_in = ctypes.create_string_buffer(bytes(range(32)), 32)
    host_out = ctypes.create_string_buffer(32)
    api.copy(ctypes.addressof(host_in), cpu, a, dev, 32)
    api.copy(a, dev, b, dev, 32)
    api.copy(b, dev, ctypes.addressof(host_out), cpu, 32)
    assert host_out.raw == bytes(range(32))
    names = fake_cuda.call_names()
    assert {"cuMemcpyHtoD", "cuMemcpyDtoD", "cuMemcpyDtoH"} <= set(names)
    api.free(dev, a)
    api.free(dev, b)
    assert fake_cuda.memory == {}
    with pytest.raises(ValueError, match="alignment 512 is not supported"):
        api.alloc(dev, 16, 512)
    with pytest.raises(ValueError, match="both ends are host"):
        api.copy(0, cpu, 0, cpu, 4)


def test_copy_with_stream_is_async(fake_cuda):
    api = device_api.get_device_api(2)
    dev, cpu = tvm.cuda(0), tvm.cpu(0)
    stream = dev.create_raw_stream()
    ptr = api.alloc(dev, 8)
    host = ctypes.create_string_buffer(b"abcdefgh", 8)
    api.copy(ctypes.addressof(host), cpu, ptr, dev, 8, stream=stream)
    dev.sync(stream)
    assert fake_cuda.read(ptr, 8) == b"abcdefgh"
    assert ("cuMemcpyHtoDAsync", (ptr, ctypes.addressof(host), 8, stream)) in fake_cuda.calls
    assert ("cuStreamSynchronize", (stream,)) in fake_cuda.calls


def test_bad_pointer_copy_reports_cuda_error(fake_cuda):
    api = device_api.get_device_api(2)
    dev, cpu = tvm.cuda(0), tvm.cpu(0)
    ptr = api.alloc(dev, 8)
    host = ctypes.create_string_buffer(16)
    with pytest.raises(RuntimeError, match=r"cuMemcpyHtoD\(.*\) failed: CUDA_ERROR_INVALID_VALUE"):
        api.copy(ctypes.addressof(host), cpu, ptr, dev, 16)  # 16 bytes into an 8-byte buffer


def test_streams(fake_cuda):
    dev = tvm.cuda(0)
    stream = dev.create_raw_stream()
    assert stream != 0 and stream in fake_cuda.streams
    dev.set_raw_stream(stream)
    try:
        assert device_api.get_device_api(2).get_current_stream(dev) == stream
    finally:
        dev.set_raw_stream(0)
    dev.sync()
    assert fake_cuda.call_names()[-1] == "cuCtxSynchronize"
    dev.free_raw_stream(stream)
    assert stream not in fake_cuda.streams
    with pytest.raises(RuntimeError, match="cuStreamDestroy.*CUDA_ERROR_INVALID_HANDLE"):
        dev.free_raw_stream(stream)
