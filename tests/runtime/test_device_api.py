"""tvm.runtime.device_api: the table backends register device APIs into, and the CPU API."""

import ctypes

import pytest

import tvm
from tvm.runtime import device_api


def test_cpu_api_registered_and_copies():
    api = device_api.get_device_api(1)
    assert isinstance(api, device_api.CPUDeviceAPI)
    assert device_api.get_device_api(tvm.cpu(0)) is api
    src = api.alloc(tvm.cpu(0), 16, 64)
    dst = api.alloc(tvm.cpu(0), 16, 128)
    assert src % 64 == 0 and dst % 128 == 0
    ctypes.memmove(src, b"0123456789abcdef", 16)
    api.copy(src, tvm.cpu(0), dst, tvm.cpu(0), 16)
    assert ctypes.string_at(dst, 16) == b"0123456789abcdef"
    api.free(tvm.cpu(0), src)
    api.free(tvm.cpu(0), dst)
    with pytest.raises(ValueError, match="was not allocated by the cpu device API"):
        api.free(tvm.cpu(0), dst)
    with pytest.raises(ValueError, match="cannot copy with a destination on cuda:0"):
        api.copy(src, tvm.cpu(0), dst, tvm.cuda(0), 16)


def test_missing_api_error_names_backend():
    with pytest.raises(ValueError, match="no device API for metal: pytvm has no metal backend"):
        device_api.get_device_api(8)
    assert not device_api.has_device_api(8)
    saved = device_api.unregister_device_api(2)
    try:
        with pytest.raises(ValueError, match=r"no device API for cuda: load the CUDA backend"):
            device_api.get_device_api(2)
        with pytest.raises(ValueError, match=r"pip install 'pytvm-compiler\[cuda\]'"):
            tvm.runtime.empty((2,), "float32", tvm.cuda(0))
        assert tvm.cuda(0).exist is False
        with pytest.raises(ValueError, match="no device API for cuda"):
            _ = tvm.cuda(0).warp_size
    finally:
        if saved is not None:
            device_api.register_device_api(2, saved)


def test_register_checks():
    class Fake(device_api.DeviceAPI):
        name = "fake"

    with pytest.raises(TypeError, match="expects a DeviceAPI"):
        device_api.register_device_api(99, object())
    api = Fake()
    device_api.register_device_api(99, api)
    try:
        assert device_api.get_device_api(99) is api
        device_api.register_device_api(99, api)  # the same object again is fine
        with pytest.raises(ValueError, match="already registered"):
            device_api.register_device_api(99, Fake())
        with pytest.raises(ValueError, match="alloc is not supported by the fake device API"):
            api.alloc(None, 4)
        with pytest.raises(ValueError, match="unknown device attribute 'colour'"):
            api.get_attr(None, "colour")
    finally:
        device_api.unregister_device_api(99)


def test_cpu_device_attributes_and_streams():
    dev = tvm.cpu(0)
    assert dev.exist and not tvm.cpu(1).exist
    assert dev.max_threads_per_block is None
    assert dev.compute_version is None
    assert dev.total_global_memory > 0
    stream = dev.create_raw_stream()
    assert stream == 0
    dev.set_raw_stream(stream)
    dev.sync()
    dev.free_raw_stream(stream)
    assert not tvm.metal().exist
    with pytest.raises(ValueError, match="no device API for metal"):
        tvm.metal().sync()
