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

from . import device_api

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

    Attributes such as ``exist``, ``max_threads_per_block`` or ``compute_version`` come from
    the device type's :class:`~tvm.runtime.device_api.DeviceAPI`, which a backend registers
    (the CUDA backend registers one for ``cuda``). ``exist`` is False for a device type with
    no registered API; other attributes then raise ``ValueError`` naming the backend to load.

    Examples
    --------
    >>> import tvm
    >>> dev = tvm.cpu(0)
    >>> str(dev), dev.type, dev.index, dev.exist
    ('cpu:0', 'cpu', 0, True)
    """

    __slots__ = ()

    def _api(self):
        return device_api.get_device_api(self.dlpack_device_type())

    def _attr(self, name: str):
        return self._api().get_attr(self, name)

    @property
    def exist(self) -> bool:
        """Whether the device is present on this machine."""
        if not device_api.has_device_api(self.dlpack_device_type()):
            return False
        return bool(self._attr("exist"))

    @property
    def max_threads_per_block(self):
        """Most threads in one block (None on CPU)."""
        return self._attr("max_threads_per_block")

    @property
    def warp_size(self):
        """Threads per warp (None on CPU)."""
        return self._attr("warp_size")

    @property
    def max_shared_memory_per_block(self):
        """Bytes of shared memory one block may use without opting in (None on CPU)."""
        return self._attr("max_shared_memory_per_block")

    @property
    def compute_version(self):
        """The compute capability as ``"major.minor"`` (``"9.0"``; None on CPU)."""
        return self._attr("compute_version")

    @property
    def device_name(self):
        """The device's product name (None on CPU)."""
        return self._attr("device_name")

    @property
    def max_clock_rate(self):
        """The peak clock in kHz (None on CPU)."""
        return self._attr("max_clock_rate")

    @property
    def multi_processor_count(self):
        """Number of streaming multiprocessors (None on CPU)."""
        return self._attr("multi_processor_count")

    @property
    def max_thread_dimensions(self):
        """Largest block extent per dimension, ``[x, y, z]`` (None on CPU)."""
        return self._attr("max_thread_dimensions")

    @property
    def max_registers_per_block(self):
        """32-bit registers available to one block (None on CPU)."""
        return self._attr("max_registers_per_block")

    @property
    def api_version(self):
        """Version of the device API the backend talks to (None on CPU)."""
        return self._attr("api_version")

    @property
    def driver_version(self):
        """Version of the installed device driver (None on CPU)."""
        return self._attr("driver_version")

    @property
    def l2_cache_size_bytes(self):
        """Size of the L2 cache in bytes (None on CPU)."""
        return self._attr("l2_cache_size_bytes")

    @property
    def total_global_memory(self):
        """Total device memory in bytes (host memory for CPU)."""
        return self._attr("total_global_memory")

    @property
    def available_global_memory(self):
        """Free device memory in bytes (None on CPU)."""
        return self._attr("available_global_memory")

    # -- streams -----------------------------------------------------------------------------
    def create_raw_stream(self) -> int:
        """Create a stream on this device; returns its raw handle (0 on CPU)."""
        return self._api().create_stream(self)

    def free_raw_stream(self, stream: int) -> None:
        """Destroy a stream made by :meth:`create_raw_stream`."""
        self._api().free_stream(self, stream)

    def set_raw_stream(self, stream: int) -> None:
        """Make ``stream`` this device's current stream: kernels launch on it from now on."""
        self._api().set_current_stream(self, stream)

    def sync(self, stream=None) -> None:
        """Wait until ``stream`` (default: all queued work on this device) has finished."""
        self._api().synchronize(self, stream)


# Make tvm_ffi build our subclass wherever it creates a device (tensor.device, FFI returns).
_ffi_core._set_class_device(Device)


@functools.cache
def cuda_device_count() -> int:
    """Number of CUDA devices, read through the driver library; 0 when there is none."""
    # ctypes on libcuda avoids importing cuda-bindings just to answer "is there a GPU".
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
