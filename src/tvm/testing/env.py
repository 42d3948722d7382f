"""Probes of the test environment (``tvm.testing.env``, as in Apache TVM): devices, toolchains
and CPU features.

Import as ``from tvm.testing import env``. Each probe runs its query once per process and
never raises: without cuda-bindings, libcuda.so.1 or a GPU the CUDA probes answer False.
Probes of runtimes pytvm has no backend for (ROCm, Vulkan, Metal, OpenCL, NVPTX, Hexagon) and
of vendor libraries it does not bind (cuDNN, cuBLAS, NCCL, hipBLAS, NVSHMEM, CUDA graphs)
answer False: the tests that need them cannot run against pytvm.

Examples
--------
>>> import pytest
>>> from tvm.testing import env
>>> @pytest.mark.skipif(not env.has_cuda_compute(9), reason="needs sm_90")
... def test_hopper_kernel():
...     pass
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess

from .utils import Feature

__all__ = [
    "has_adreno_opencl",
    "has_cpu_feature",
    "has_cublas",
    "has_cuda",
    "has_cuda_compute",
    "has_cudagraph",
    "has_cudnn",
    "has_gpu",
    "has_hexagon",
    "has_hexagon_toolchain",
    "has_hipblas",
    "has_llvm",
    "has_llvm_min_version",
    "has_matrixcore",
    "has_metal",
    "has_multi_gpu",
    "has_nccl",
    "has_nvcc_version",
    "has_nvptx",
    "has_nvshmem",
    "has_opencl",
    "has_rocm",
    "has_vulkan",
    "has_x86_avx512",
    "has_x86_vnni",
    "requires_cuda_driver",
]


@functools.cache
def _cuda_compute_versions() -> tuple:
    """``(major, minor)`` per CUDA device the driver can use; empty without one."""
    # Lazy: the CUDA backend and cuda-bindings are only needed when a test asks.
    try:
        import tvm
        from tvm.backend.cuda import driver
        from tvm.backend.cuda.runtime_register import register_runtime

        register_runtime()
        count = driver.device_count()
        versions = []
        for index in range(count):
            major, minor = tvm.cuda(index).compute_version.split(".")
            versions.append((int(major), int(minor)))
        return tuple(versions)
    except Exception:  # noqa: BLE001 - a probe must skip tests, never fail collection
        return ()


@functools.cache
def _device_exists(kind: str, index: int = 0) -> bool:
    """Whether device ``index`` of runtime ``kind`` is present and usable by this pytvm.

    CUDA devices are counted by the driver (:func:`_cuda_compute_versions`); the CPU always
    exists; runtimes pytvm has no backend for (``rocm``, ``opencl``, ``metal``, ``vulkan``...)
    have no usable device. Cached per process; never raises.
    """
    if kind in ("cpu", "llvm", "c"):
        return index == 0
    if kind == "cuda":
        return 0 <= index < len(_cuda_compute_versions())
    return False


@functools.cache
def _target_enabled(kind: str) -> bool:
    """Whether target kind ``kind`` is selected by ``TVM_TEST_TARGETS`` (``;``-separated
    target strings or JSON configs), or by ``DEFAULT_TEST_TARGETS`` when it is unset.

    Cached per process (``_target_enabled.cache_clear()`` after changing the variable), as in
    Apache TVM: CI can exclude a backend and have its tests skip even on a machine with the
    device.
    """
    from .utils import _target_kind, _test_targets  # same package; utils imports this lazily

    for target in _test_targets():
        try:
            found = _target_kind(target)
        except Exception:  # noqa: BLE001 - an unknown kind is matched by its text
            found = (target.get("kind") if isinstance(target, dict)
                     else str(target).split()[0] if str(target).split() else "")
        if found == kind:
            return True
    return False


def _device_usable(kind: str) -> bool:
    return _device_exists(kind) and _target_enabled(kind)


def has_cuda() -> bool:
    """Whether a CUDA device can run kernels here (cuda-bindings, the driver and a GPU) and
    ``cuda`` is among the test targets (``TVM_TEST_TARGETS``)."""
    return _device_usable("cuda")


def has_cuda_compute(major: int, minor: int = 0, exact: bool = False) -> bool:
    """Whether device 0's compute capability is at least (or, with ``exact``, equal to)
    ``(major, minor)``; False when there is no usable CUDA device."""
    versions = _cuda_compute_versions()
    if not versions:
        return False
    if exact:
        return versions[0] == (major, minor)
    return versions[0] >= (major, minor)


def has_gpu() -> bool:
    """Whether any GPU device is present, whatever ``TVM_TEST_TARGETS`` selects (as in TVM:
    the raw device checks of cuda, rocm, opencl, metal and vulkan; CUDA is pytvm's only GPU
    backend, so the others answer False)."""
    return any(_device_exists(kind) for kind in ("cuda", "rocm", "opencl", "metal", "vulkan"))


def has_multi_gpu(count: int = 2) -> bool:
    """Whether at least ``count`` CUDA devices are usable."""
    return len(_cuda_compute_versions()) >= count


def _no_backend() -> bool:
    return False


# Runtimes without a pytvm backend, and vendor libraries pytvm does not bind: never usable.
has_rocm = has_vulkan = has_metal = has_opencl = has_nvptx = _no_backend
has_hexagon = has_hexagon_toolchain = has_adreno_opencl = has_matrixcore = _no_backend
has_cudnn = has_cublas = has_nccl = has_hipblas = has_nvshmem = has_cudagraph = _no_backend


def has_llvm() -> bool:
    """Whether the LLVM backend can compile (llvmlite imports)."""
    try:
        import llvmlite.binding  # noqa: F401 - the probe is the import itself
    except ImportError:
        return False
    return True


@functools.cache
def _llvm_version_major() -> int:
    try:
        import llvmlite.binding as llvm
    except ImportError:
        return 0
    return int(llvm.llvm_version_info[0])


def has_llvm_min_version(major: int) -> bool:
    """Whether llvmlite's LLVM is at least version ``major``."""
    return _llvm_version_major() >= major


@functools.cache
def _nvcc_version() -> tuple:
    """``(major, minor, release)`` of the nvcc on PATH, or ``()``."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return ()
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True,
                             timeout=30, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    match = re.search(r"release (\d+)\.(\d+), V(\d+)\.(\d+)\.(\d+)", out)
    if not match:
        return ()
    return int(match.group(1)), int(match.group(2)), int(match.group(5))


def has_nvcc_version(major: int, minor: int = 0, release: int = 0) -> bool:
    """Whether nvcc is present and at least version ``major.minor`` (build ``release``)."""
    version = _nvcc_version()
    return bool(version) and version >= (major, minor, release)


@functools.cache
def _host_cpu_features() -> frozenset:
    try:
        import llvmlite.binding as llvm
    except ImportError:
        return frozenset()
    flags = llvm.get_host_cpu_features().flatten().split(",")
    return frozenset(flag[1:] for flag in flags if flag.startswith("+"))


def has_cpu_feature(features) -> bool:
    """Whether the host CPU has every LLVM feature named (``"avx512f"`` or a list)."""
    wanted = [features] if isinstance(features, str) else list(features)
    have = _host_cpu_features()
    return all(feature in have for feature in wanted)


def has_x86_vnni() -> bool:
    """Whether the host CPU has AVX-512 VNNI or AVX-VNNI."""
    return has_cpu_feature("avx512vnni") or has_cpu_feature("avxvnni")


def has_x86_avx512() -> bool:
    """Whether the host CPU has the AVX-512 foundation, CD, BW, DQ and VL features."""
    return has_cpu_feature(["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"])


#: Tests that launch kernels or allocate device memory: needs a GPU with its driver and
#: cuda-bindings (unlike ``requires_cuda``, not pytvm's CUDA code generation).
requires_cuda_driver = Feature(
    "cuda_driver",
    "CUDA driver",
    has_cuda,
    "needs a CUDA GPU with its driver (libcuda.so.1) and cuda-bindings",
    extra_marks=("gpu",),
)
