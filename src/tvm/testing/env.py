"""Probes of the test environment: is there a usable CUDA device, and of which compute capability.

Import as ``from tvm.testing import env``. Each probe runs its query once per process and
never raises: without cuda-bindings, libcuda.so.1 or a GPU it answers False.

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

from .utils import Feature

__all__ = ["has_cuda", "has_cuda_compute", "requires_cuda_driver"]


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


def has_cuda() -> bool:
    """Whether a CUDA device can run kernels here (cuda-bindings, the driver and a GPU)."""
    return bool(_cuda_compute_versions())


def has_cuda_compute(major: int, minor: int = 0, exact: bool = False) -> bool:
    """Whether device 0's compute capability is at least (or, with ``exact``, equal to)
    ``(major, minor)``; False when there is no usable CUDA device."""
    versions = _cuda_compute_versions()
    if not versions:
        return False
    if exact:
        return versions[0] == (major, minor)
    return versions[0] >= (major, minor)


#: Tests that launch kernels or allocate device memory: needs a GPU with its driver and
#: cuda-bindings (unlike ``requires_cuda``, not pytvm's CUDA code generation).
requires_cuda_driver = Feature(
    "cuda_driver",
    "CUDA driver",
    has_cuda,
    "needs a CUDA GPU with its driver (libcuda.so.1) and cuda-bindings",
    extra_marks=("gpu",),
)
