"""tvm.backend.cuda.driver: result unpacking, error messages, no-driver paths, contexts."""

import importlib
import importlib.util
import sys

import numpy as np
import pytest

import tvm
from tvm.backend.cuda import driver
from tvm.backend.cuda.runtime_register import register_runtime


@pytest.fixture
def no_bindings(monkeypatch):
    """cuda-bindings not installed: ``from cuda.bindings import driver`` raises ImportError."""
    for name in ("cuda", "cuda.bindings", "cuda.bindings.driver"):
        monkeypatch.setitem(sys.modules, name, None)
    driver.reset()
    register_runtime()
    yield
    driver.reset()


def test_missing_bindings_gives_clear_error(no_bindings):
    with pytest.raises(driver.CUDADriverNotFoundError, match="cuda-bindings") as info:
        driver.get_driver()
    assert "pip install" in str(info.value)
    assert "CUDA source and cubins can still be built" in str(info.value)
    # The failure is remembered and repeated for every later use, as a RuntimeError.
    with pytest.raises(RuntimeError, match="cuda-bindings"):
        driver.call("cuMemAlloc", 16)


def test_missing_bindings_device_paths_raise_not_crash(no_bindings):
    assert tvm.cuda(0).exist in (True, False)  # falls back to the ctypes probe
    with pytest.raises(RuntimeError, match="cuda-bindings"):
        tvm.runtime.empty((4,), "float32", tvm.cuda(0))
    with pytest.raises(RuntimeError, match="cuda-bindings"):
        tvm.runtime.tensor(np.ones(3, "float32"), tvm.cuda(0))
    with pytest.raises(RuntimeError, match="cuda-bindings"):
        _ = tvm.cuda(0).max_threads_per_block
    with pytest.raises(RuntimeError, match="cuda-bindings"):
        tvm.cuda(0).create_raw_stream()


def test_no_libcuda_gives_clear_error(monkeypatch, fake_driver_module):
    fake = fake_driver_module.install(
        monkeypatch, fake_driver_module.FakeCUDA(init_failure="dlopen")
    )
    register_runtime()
    with pytest.raises(driver.CUDADriverNotFoundError) as info:
        driver.get_driver()
    message = str(info.value)
    assert message.startswith(
        "no CUDA driver (libcuda.so.1) found; CUDA source and cubins can still be built"
    )
    assert "Failed to dlopen libcuda.so.1" in message
    with pytest.raises(RuntimeError, match=r"no CUDA driver \(libcuda.so.1\) found"):
        tvm.runtime.empty((2, 2), "float16", tvm.cuda(0))
    assert fake.call_names().count("cuInit") == 1  # remembered, not retried
    assert tvm.cuda(0).exist is False
    driver.reset()


def test_cuinit_error_code(monkeypatch, fake_driver_module):
    fake_driver_module.install(
        monkeypatch,
        fake_driver_module.FakeCUDA(init_failure=fake_driver_module.CUresult.CUDA_ERROR_NO_DEVICE),
    )
    with pytest.raises(RuntimeError, match=r"cuInit\(0\) returned CUDA_ERROR_NO_DEVICE"):
        driver.get_driver()
    driver.reset()


def test_call_unpacks_results(fake_cuda):
    assert driver.call("cuDeviceGetCount") == 1
    assert driver.call("cuInit", 0) is None  # a bare (CUresult,)
    driver.ensure_context(0)
    free, total = driver.call("cuMemGetInfo")
    assert free == total == fake_cuda.module.cuMemGetInfo()[2]


def test_call_error_names_call_and_cuda_error(fake_cuda):
    driver.ensure_context(0)
    fake_cuda.fail["cuMemAlloc"] = fake_cuda.module.CUresult.CUDA_ERROR_OUT_OF_MEMORY
    with pytest.raises(
        RuntimeError,
        match=r"cuMemAlloc\(1024\) failed: CUDA_ERROR_OUT_OF_MEMORY \(out of memory\)",
    ):
        driver.call("cuMemAlloc", 1024)
    with pytest.raises(RuntimeError, match="cuda-bindings has no cuNotAFunction"):
        driver.call("cuNotAFunction")


def test_check_shapes():
    assert driver.check((0,), "x") is None
    assert driver.check((0, 5), "x") == 5
    assert driver.check((0, 1, 2), "x") == (1, 2)


def test_primary_context_retained_once_and_made_current(fake_cuda):
    first = driver.ensure_context(0)
    second = driver.ensure_context(0)
    assert first == second == fake_cuda.current_context
    assert fake_cuda.call_names().count("cuDevicePrimaryCtxRetain") == 1
    assert fake_cuda.call_names().count("cuCtxSetCurrent") == 2
    with pytest.raises(ValueError, match=r"cuda\(3\) does not exist: the driver reports 1"):
        driver.ensure_context(3)


def test_fake_names_exist_in_real_bindings(fake_driver_module):
    if (
        importlib.util.find_spec("cuda") is None
        or importlib.util.find_spec("cuda.bindings") is None
    ):
        pytest.skip("cuda-bindings is not installed")
    real = importlib.import_module("cuda.bindings.driver")
    missing = [name for name in fake_driver_module.DRIVER_NAMES if not hasattr(real, name)]
    assert missing == []
    for enum_name, member in fake_driver_module.ENUM_MEMBERS:
        fake_value = getattr(getattr(fake_driver_module, enum_name), member)
        assert int(getattr(getattr(real, enum_name), member)) == int(fake_value), member
    config, attribute = real.CUlaunchConfig(), real.CUlaunchAttribute()
    for name in vars(fake_driver_module.CUlaunchConfig()):
        assert hasattr(config, name), name
    for name in ("x", "y", "z"):
        assert hasattr(attribute.value.clusterDim, name)
    for name in ("cooperative", "programmaticStreamSerializationAllowed"):
        assert hasattr(attribute.value, name)
    assert len(real.CUtensorMap().opaque) * 8 == 128
