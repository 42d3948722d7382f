"""Devices: ``tvm.cpu()``, ``tvm.cuda()``, ``tvm.device("cuda", 1)``.

:class:`Device` is ``tvm_ffi``'s device (a DLPack ``(device_type, index)`` pair) with TVM's
extra queries. It is installed as ``tvm_ffi``'s device class, so devices read back from tensors
and FFI calls are :class:`Device` too.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

import tvm_ffi
from tvm_ffi import core as _ffi_core

__all__ = [
    "Device",
    "cpu",
    "cuda",
    "device",
    "ext_dev",
    "hexagon",
    "metal",
    "opencl",
    "rocm",
    "vpi",
    "vulkan",
]


class Device(_ffi_core.Device):
    """A device: its type name (``.type``), its ``.index`` and ``.dlpack_device_type()``.

    Only CPU and CUDA can be queried for existence; other device types report
    ``exist == False`` (pytvm has no runtime for them yet).

    Examples
    --------
    >>> import tvm
    >>> dev = tvm.cpu(0)
    >>> str(dev), dev.type, dev.index, dev.exist
    ('cpu:0', 'cpu', 0, True)
    """

    __slots__ = ()

    @property
    def exist(self) -> bool:
        """Whether the device is present on this machine."""
        if self.type == "cpu":
            return self.index == 0
        if self.type == "cuda":
            return self.index < cuda_device_count()
        return False

    def sync(self) -> None:
        """Wait for the device to finish its queued work (a no-op on CPU)."""
        if self.type != "cpu":
            raise ValueError(f"sync() on {self} is not supported yet: pytvm only runs on CPU")


# Make tvm_ffi build our subclass wherever it creates a device (tensor.device, FFI returns).
_ffi_core._set_class_device(Device)


@functools.cache
def cuda_device_count() -> int:
    """Number of CUDA devices, read through the driver library; 0 when there is none."""
    # ctypes on libcuda avoids a dependency on cuda-python just to answer "is there a GPU".
    name = ctypes.util.find_library("cuda") or "libcuda.so.1"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return 0
    count = ctypes.c_int(0)
    try:
        if lib.cuInit(0) != 0 or lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return 0
    except AttributeError:
        return 0
    return count.value


def device(dev_type, dev_id=None) -> Device:
    """A device from a type name (``"cpu"``, ``"cuda"``, ``"cuda:1"``) or DLPack type code.

    ``dev_id`` defaults to 0 (or the index in ``"cuda:1"``). Raises ``ValueError`` for unknown
    device names.
    """
    return tvm_ffi.device(dev_type, dev_id)


def cpu(dev_id: int = 0) -> Device:
    """The CPU device."""
    return device("cpu", dev_id)


def cuda(dev_id: int = 0) -> Device:
    """A CUDA GPU."""
    return device("cuda", dev_id)


def opencl(dev_id: int = 0) -> Device:
    """An OpenCL device."""
    return device("opencl", dev_id)


def vulkan(dev_id: int = 0) -> Device:
    """A Vulkan device."""
    return device("vulkan", dev_id)


def metal(dev_id: int = 0) -> Device:
    """A Metal device."""
    return device("metal", dev_id)


def vpi(dev_id: int = 0) -> Device:
    """A VPI simulated device."""
    return device("vpi", dev_id)


def rocm(dev_id: int = 0) -> Device:
    """A ROCm GPU."""
    return device("rocm", dev_id)


def ext_dev(dev_id: int = 0) -> Device:
    """An extension device (accelerators added by plug-ins)."""
    return device("ext_dev", dev_id)


def hexagon(dev_id: int = 0) -> Device:
    """A Hexagon DSP."""
    return device("hexagon", dev_id)
