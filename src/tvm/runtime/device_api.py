"""The device API table: per DLPack device type, how to allocate, copy, sync and time.

The runtime knows no device backend. A backend fills this table with its own
:class:`DeviceAPI` (the CUDA backend does so in ``tvm.backend.cuda.runtime_register``), and
tensors, devices and ``Module.time_evaluator`` look it up by device type:

>>> from tvm.runtime import device_api
>>> device_api.get_device_api(1)         # doctest: +ELLIPSIS
<tvm.runtime.device_api.CPUDeviceAPI object at ...>

Pointers are plain ``int`` addresses. A host pointer is passed with a ``kDLCPU`` device, so
:meth:`DeviceAPI.copy` sees both ends' devices and picks the direction.

Streams are the ``tvm_ffi`` environment streams (``TVMFFIEnvGetStream``): the stream a
backend launches on is the one set by :meth:`DeviceAPI.set_current_stream`,
``Device.set_raw_stream``, ``tvm_ffi.use_raw_stream`` or ``tvm_ffi.use_torch_stream``.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time

from tvm_ffi import core as _ffi_core

__all__ = [
    "DEVICE_ATTRIBUTES",
    "CPUDeviceAPI",
    "DeviceAPI",
    "DeviceTimer",
    "get_device_api",
    "has_device_api",
    "register_device_api",
]

#: Attribute names every :class:`DeviceAPI` answers in :meth:`DeviceAPI.get_attr` (None when
#: a device type has no such notion). ``Device.<name>`` reads them.
DEVICE_ATTRIBUTES = (
    "exist",
    "max_threads_per_block",
    "warp_size",
    "max_shared_memory_per_block",
    "compute_version",
    "device_name",
    "max_clock_rate",
    "multi_processor_count",
    "max_thread_dimensions",
    "max_registers_per_block",
    "api_version",
    "driver_version",
    "l2_cache_size_bytes",
    "total_global_memory",
    "available_global_memory",
)

# DLPack device type codes and the names used in messages.
_DEVICE_TYPE_NAMES = {
    1: "cpu",
    2: "cuda",
    3: "cuda_host",
    4: "opencl",
    7: "vulkan",
    8: "metal",
    9: "vpi",
    10: "rocm",
    12: "ext_dev",
    13: "cuda_managed",
    14: "oneapi",
    15: "webgpu",
    16: "hexagon",
}

# The pip extra that provides each device type's backend, for the "not registered" message.
_BACKEND_HINTS = {
    2: "load the CUDA backend (pip install 'pytvm-compiler[cuda]'; it registers itself on `import tvm`)",
}

_TABLE: dict = {}
_TABLE_LOCK = threading.Lock()


class DeviceTimer:
    """Measures device time between :meth:`start` and :meth:`stop`.

    The default implementation synchronizes the device at both ends and reads the host
    clock (``time.perf_counter``); a backend with device events overrides it (CUDA: events
    recorded on the current stream).
    """

    def __init__(self, api: DeviceAPI, dev):
        self._api = api
        self._dev = dev
        self._start = 0.0
        self._stop = 0.0

    def start(self) -> None:
        """Mark the start (after the work already queued on the current stream)."""
        self._api.synchronize(self._dev)
        self._start = time.perf_counter()

    def stop(self) -> None:
        """Mark the end (after the work queued since :meth:`start`)."""
        self._api.synchronize(self._dev)
        self._stop = time.perf_counter()

    def elapsed_seconds(self) -> float:
        """Seconds between the two marks (waits for the device when needed)."""
        return self._stop - self._start


class DeviceAPI:
    """How the runtime allocates, copies, synchronizes and queries one kind of device.

    Subclasses override the methods their device supports; the base class raises
    ``ValueError`` naming the device type and the missing operation.
    """

    #: Name used in messages (``"cuda"``).
    name = "device"

    def _unsupported(self, what: str):
        return ValueError(f"{what} is not supported by the {self.name} device API")

    # -- memory ------------------------------------------------------------------------------
    def alloc(self, dev, nbytes: int, alignment: int = 64) -> int:
        """Allocate ``nbytes`` on ``dev`` aligned to ``alignment``; returns the address."""
        raise self._unsupported("alloc")

    def free(self, dev, ptr: int) -> None:
        """Free memory returned by :meth:`alloc`."""
        raise self._unsupported("free")

    def copy(self, src_ptr: int, src_dev, dst_ptr: int, dst_dev, nbytes: int, stream=None):
        """Copy ``nbytes`` from ``src_ptr`` on ``src_dev`` to ``dst_ptr`` on ``dst_dev``.

        One side may be the host (a ``kDLCPU`` device). With ``stream`` None the copy is
        complete when this returns.
        """
        raise self._unsupported("copy")

    # -- streams -----------------------------------------------------------------------------
    def synchronize(self, dev, stream=None) -> None:
        """Wait until ``stream`` (default: all work on ``dev``) has finished."""
        raise self._unsupported("synchronize")

    def create_stream(self, dev) -> int:
        """Create a stream on ``dev``; returns its raw handle."""
        raise self._unsupported("create_stream")

    def free_stream(self, dev, stream: int) -> None:
        """Destroy a stream made by :meth:`create_stream`."""
        raise self._unsupported("free_stream")

    def set_current_stream(self, dev, stream: int) -> int:
        """Make ``stream`` the current stream of ``dev`` (the ``tvm_ffi`` environment
        stream); returns the previous one."""
        return _ffi_core._env_set_current_stream(
            dev.dlpack_device_type(), dev.index, int(stream or 0)
        )

    def get_current_stream(self, dev) -> int:
        """The current stream of ``dev`` (0 is the default stream)."""
        return int(_ffi_core._env_get_current_stream(dev.dlpack_device_type(), dev.index) or 0)

    # -- queries and timing ------------------------------------------------------------------
    def get_attr(self, dev, name: str):
        """The device attribute ``name`` (see :data:`DEVICE_ATTRIBUTES`), or None."""
        if name not in DEVICE_ATTRIBUTES:
            raise ValueError(
                f"unknown device attribute {name!r}; known: {', '.join(DEVICE_ATTRIBUTES)}"
            )

    def create_timer(self, dev) -> DeviceTimer:
        """A timer for ``Module.time_evaluator`` on ``dev``."""
        return DeviceTimer(self, dev)


class CPUDeviceAPI(DeviceAPI):
    """Host memory: ``alloc`` through ctypes, ``copy`` through ``memmove``."""

    name = "cpu"

    def __init__(self):
        self._buffers: dict = {}

    def alloc(self, dev, nbytes: int, alignment: int = 64) -> int:
        """Allocate ``nbytes`` of host memory aligned to ``alignment``.

        Parameters
        ----------
        dev : Device
            The CPU device (not inspected).
        nbytes : int
            The size in bytes (a zero-byte request still gets a valid address).
        alignment : int
            The alignment of the returned address in bytes.

        Returns
        -------
        int
            The address; the buffer stays alive until :meth:`free`.
        """
        alignment = max(int(alignment), 1)
        buffer = ctypes.create_string_buffer(max(int(nbytes), 1) + alignment)
        base = ctypes.addressof(buffer)
        ptr = (base + alignment - 1) // alignment * alignment
        self._buffers[ptr] = buffer
        return ptr

    def free(self, dev, ptr: int) -> None:
        """Release memory returned by :meth:`alloc`.

        Parameters
        ----------
        dev : Device
            The CPU device (not inspected).
        ptr : int
            The address :meth:`alloc` returned.

        Raises
        ------
        ValueError
            When ``ptr`` was not allocated by this API.
        """
        if self._buffers.pop(ptr, None) is None:
            raise ValueError(f"free: {ptr:#x} was not allocated by the cpu device API")

    def copy(self, src_ptr, src_dev, dst_ptr, dst_dev, nbytes, stream=None):
        """Copy ``nbytes`` from ``src_ptr`` to ``dst_ptr`` with ``memmove`` (host to host).

        Parameters
        ----------
        src_ptr, dst_ptr : int
            The source and destination addresses.
        src_dev, dst_dev : Device
            Both must be CPU devices.
        nbytes : int
            The number of bytes.
        stream : int, optional
            Ignored: the copy is done when this returns.

        Raises
        ------
        ValueError
            When either device is not a CPU device (that device type's API copies instead).
        """
        for which, dev in (("source", src_dev), ("destination", dst_dev)):
            if dev.dlpack_device_type() != 1:
                raise ValueError(
                    f"cpu device API cannot copy with a {which} on {dev}; the device "
                    "type's own API copies to and from the host"
                )
        if nbytes:
            ctypes.memmove(dst_ptr, src_ptr, nbytes)

    def synchronize(self, dev, stream=None) -> None:
        """Nothing to wait for: host copies and calls finish before they return."""

    def create_stream(self, dev) -> int:
        """The CPU's only stream, 0 (work runs in order on the calling thread)."""
        return 0  # the CPU runs everything in order: one (null) stream

    def free_stream(self, dev, stream: int) -> None:
        """Nothing to free: the CPU's stream 0 is not allocated."""

    def get_attr(self, dev, name: str):
        """The CPU attribute ``name``: ``exist`` (device 0 only) and ``total_global_memory``
        (physical memory in bytes); None for the other attributes.

        Raises
        ------
        ValueError
            When ``name`` is not a known device attribute.
        """
        super().get_attr(dev, name)
        if name == "exist":
            return dev.index == 0
        if name == "total_global_memory":
            try:
                return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
            except (ValueError, OSError, AttributeError):
                return None
        return None


def device_type_name(device_type: int) -> str:
    """The DLPack device type's name (``2 -> "cuda"``), or ``"device type N"``."""
    return _DEVICE_TYPE_NAMES.get(int(device_type), f"device type {int(device_type)}")


def register_device_api(device_type: int, api: DeviceAPI, override: bool = False) -> None:
    """Register ``api`` for a DLPack device type (``2`` for CUDA).

    Raises ``ValueError`` when another API is registered for that type, unless ``override``.
    """
    if not isinstance(api, DeviceAPI):
        raise TypeError(f"register_device_api expects a DeviceAPI, got {type(api).__name__}")
    device_type = int(device_type)
    with _TABLE_LOCK:
        current = _TABLE.get(device_type)
        if current is not None and current is not api and not override:
            raise ValueError(
                f"a device API for {device_type_name(device_type)} is already registered "
                f"({type(current).__name__}); pass override=True to replace it"
            )
        _TABLE[device_type] = api


def unregister_device_api(device_type: int) -> DeviceAPI | None:
    """Remove the API of a device type (returns it); for tests and backend unloading."""
    with _TABLE_LOCK:
        return _TABLE.pop(int(device_type), None)


def has_device_api(device_type: int) -> bool:
    """Whether a device API is registered for the DLPack device type."""
    return int(device_type) in _TABLE


def get_device_api(device_type) -> DeviceAPI:
    """The registered :class:`DeviceAPI` for a DLPack device type (or a Device).

    Raises ``ValueError`` naming the backend to load when none is registered.
    """
    if isinstance(device_type, _ffi_core.Device):
        device_type = device_type.dlpack_device_type()
    api = _TABLE.get(int(device_type))
    if api is not None:
        return api
    name = device_type_name(device_type)
    hint = _BACKEND_HINTS.get(int(device_type), f"pytvm has no {name} backend yet")
    raise ValueError(f"no device API for {name}: {hint}")


register_device_api(1, CPUDeviceAPI())
