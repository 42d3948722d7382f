"""tvm.testing.env: CUDA probes, checked with the fake driver and with no driver."""

import importlib.util
import sys
from pathlib import Path

import pytest

from tvm.testing import env

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
def fresh_probe():
    from tvm.backend.cuda import driver

    def clear():
        env._cuda_compute_versions.cache_clear()
        env._device_exists.cache_clear()
        env._target_enabled.cache_clear()
        driver.reset()

    clear()
    yield
    clear()


def test_probes_with_a_fake_h200(monkeypatch, fresh_probe):
    module = _fake_driver_module()
    module.install(monkeypatch, module.FakeCUDA(device_count=2))
    assert env.has_cuda()
    assert env.has_cuda_compute(9)
    assert env.has_cuda_compute(8, 6)
    assert not env.has_cuda_compute(10)
    assert env.has_cuda_compute(9, 0, exact=True)
    assert not env.has_cuda_compute(8, 0, exact=True)
    assert env.has_gpu()
    assert env.has_multi_gpu(2) and not env.has_multi_gpu(3)


def test_probes_without_driver(monkeypatch, fresh_probe):
    module = _fake_driver_module()
    module.install(monkeypatch, module.FakeCUDA(init_failure="dlopen"))
    assert not env.has_cuda()
    assert not env.has_cuda_compute(7)
    assert not env.has_gpu() and not env.has_multi_gpu(1)


def test_test_targets_gate_has_cuda_but_not_has_gpu(monkeypatch, fresh_probe):
    # As Apache TVM: TVM_TEST_TARGETS can exclude a backend whose device is present.
    module = _fake_driver_module()
    module.install(monkeypatch, module.FakeCUDA(device_count=1))
    monkeypatch.setenv("TVM_TEST_TARGETS", "llvm")
    assert env._device_exists("cuda") and not env._device_exists("cuda", 1)
    assert not env._target_enabled("cuda") and env._target_enabled("llvm")
    assert not env.has_cuda() and env.has_gpu()
    env._target_enabled.cache_clear()
    monkeypatch.setenv("TVM_TEST_TARGETS", "cuda;llvm")
    assert env.has_cuda()
    assert env._device_exists.cache_info().hits >= 1  # probes are memoized
    assert not env._device_exists("metal") and not env._target_enabled("metal")


def test_requires_cuda_driver_is_a_feature():
    import tvm.testing

    assert tvm.testing.requires_cuda_driver is env.requires_cuda_driver
    assert env.requires_cuda_driver.name == "cuda_driver"


def test_runtimes_and_libraries_without_a_backend_are_absent():
    for probe in (env.has_rocm, env.has_vulkan, env.has_metal, env.has_opencl, env.has_nvptx,
                  env.has_cudnn, env.has_cublas, env.has_nccl, env.has_nvshmem):
        assert probe() is False


def test_llvm_probes_read_llvmlite():
    import llvmlite.binding as llvm

    assert env.has_llvm()
    major = llvm.llvm_version_info[0]
    assert env.has_llvm_min_version(major) and not env.has_llvm_min_version(major + 1)


def test_cpu_feature_probes_match_the_host_features():
    import llvmlite.binding as llvm

    flags = llvm.get_host_cpu_features().flatten().split(",")
    present = [f[1:] for f in flags if f.startswith("+")]
    absent = [f[1:] for f in flags if f.startswith("-")]
    assert env.has_cpu_feature(present[:3])
    if absent:
        assert not env.has_cpu_feature([present[0], absent[0]])
    assert env.has_x86_avx512() == all(
        f in present for f in ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"))


def test_nvcc_version_probe(monkeypatch):
    import shutil
    import subprocess

    env._nvcc_version.cache_clear()
    monkeypatch.setattr(shutil, "which", lambda name: "/fake/nvcc")

    class Done:
        stdout = "Cuda compilation tools, release 12.4, V12.4.131\n"

    monkeypatch.setattr(subprocess, "run", lambda *a, **k: Done())
    try:
        assert env.has_nvcc_version(12, 4) and env.has_nvcc_version(12, 4, 131)
        assert not env.has_nvcc_version(12, 5) and not env.has_nvcc_version(13)
    finally:
        env._nvcc_version.cache_clear()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    try:
        assert not env.has_nvcc_version(1)
    finally:
        env._nvcc_version.cache_clear()
