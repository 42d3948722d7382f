"""``CUDADeviceAPI``: device memory, copies, streams, events and attributes for ``cuda``.

Registered into the runtime's device-API table for DLPack device type 2 by
:func:`tvm.backend.cuda.runtime_register.register_runtime`; tensors, ``tvm.cuda(0).<attr>``,
streams and ``time_evaluator`` reach it through that table. All driver calls go through
:mod:`tvm.backend.cuda.driver`.
"""

from __future__ import annotations

import contextlib

from tvm.runtime.device import cuda_device_count
from tvm.runtime.device_api import DeviceAPI, DeviceTimer

from . import driver

__all__ = ["CUDADeviceAPI", "CUDAEventTimer"]

_KDLCPU = 1
_KDLCUDA = 2
_KDLCUDA_HOST = 3
_KDLCUDA_MANAGED = 13
_HOST_TYPES = (_KDLCPU, _KDLCUDA_HOST)
_DEVICE_TYPES = (_KDLCUDA, _KDLCUDA_MANAGED)

# Device attributes read with cuDeviceGetAttribute: TVM name -> CU_DEVICE_ATTRIBUTE_* suffix.
_INT_ATTRIBUTES = {
    "max_threads_per_block": "MAX_THREADS_PER_BLOCK",
    "warp_size": "WARP_SIZE",
    "max_shared_memory_per_block": "MAX_SHARED_MEMORY_PER_BLOCK",
    "max_clock_rate": "CLOCK_RATE",
    "multi_processor_count": "MULTIPROCESSOR_COUNT",
    "max_registers_per_block": "MAX_REGISTERS_PER_BLOCK",
    "l2_cache_size_bytes": "L2_CACHE_SIZE",
}
# cudaMalloc / cuMemAlloc return 256-byte aligned memory.
_ALLOC_ALIGNMENT = 256


class CUDAEventTimer(DeviceTimer):
    """Times work on the current stream with two CUDA events."""

    def __init__(self, api: CUDADeviceAPI, dev):
        super().__init__(api, dev)
        driver.ensure_context(dev.index)
        module = driver.get_driver()
        flags = int(module.CUevent_flags.CU_EVENT_DEFAULT)
        self._begin = driver.call("cuEventCreate", flags)
        self._end = driver.call("cuEventCreate", flags)

    def start(self) -> None:
        """Record the start event on the device's current stream."""
        stream = self._api.get_current_stream(self._dev)
        driver.call("cuEventRecord", self._begin, stream)

    def stop(self) -> None:
        """Record the end event on the device's current stream."""
        stream = self._api.get_current_stream(self._dev)
        driver.call("cuEventRecord", self._end, stream)

    def elapsed_seconds(self) -> float:
        """Wait for the end event and return the time between the two events, in seconds."""
        driver.call("cuEventSynchronize", self._end)
        return float(driver.call("cuEventElapsedTime", self._begin, self._end)) / 1e3

    def __del__(self):
        for event in (getattr(self, "_begin", None), getattr(self, "_end", None)):
            if event is not None:
                # At interpreter exit the driver may already be gone: never raise here.
                with contextlib.suppress(Exception):
                    driver.call("cuEventDestroy", event)


def _side(dev) -> str:
    device_type = dev.dlpack_device_type()
    if device_type in _HOST_TYPES:
        return "host"
    if device_type in _DEVICE_TYPES:
        return "device"
    raise ValueError(f"the cuda device API cannot copy to or from {dev}")


class CUDADeviceAPI(DeviceAPI):
    """The ``cuda`` device API over the CUDA driver (``cuda.bindings.driver``)."""

    name = "cuda"

    # -- memory ------------------------------------------------------------------------------
    def alloc(self, dev, nbytes: int, alignment: int = 64) -> int:
        """Allocate ``nbytes`` (at least one byte) on GPU ``dev`` with ``cuMemAlloc``.

        Parameters
        ----------
        dev : Device
            The GPU.
        nbytes : int
            Size in bytes.
        alignment : int, optional
            Requested alignment; must divide the alignment ``cuMemAlloc`` guarantees.

        Returns
        -------
        int
            The device pointer.

        Raises
        ------
        ValueError
            When ``alignment`` is not supported.
        """
        if alignment > _ALLOC_ALIGNMENT or _ALLOC_ALIGNMENT % max(int(alignment), 1):
            raise ValueError(
                f"alloc on {dev}: alignment {alignment} is not supported (cuMemAlloc gives "
                f"{_ALLOC_ALIGNMENT}-byte alignment; use a divisor of it)"
            )
        driver.ensure_context(dev.index)
        return driver.handle_value(driver.call("cuMemAlloc", max(int(nbytes), 1)))

    def free(self, dev, ptr: int) -> None:
        """Free the device pointer ``ptr`` on ``dev``."""
        driver.ensure_context(dev.index)
        driver.call("cuMemFree", int(ptr))

    def copy(self, src_ptr, src_dev, dst_ptr, dst_dev, nbytes, stream=None):
        """Copy ``nbytes`` between host and GPU or between GPUs.

        Parameters
        ----------
        src_ptr, dst_ptr : int
            Source and destination addresses.
        src_dev, dst_dev : Device
            Their devices; at least one must be a GPU.
        nbytes : int
            Bytes to copy; nothing happens for 0.
        stream : int, optional
            A stream handle for an asynchronous copy; synchronous when None or 0.

        Raises
        ------
        ValueError
            When both ends are host memory.
        """
        nbytes = int(nbytes)
        if nbytes == 0:
            return
        src_side, dst_side = _side(src_dev), _side(dst_dev)
        if src_side == "host" and dst_side == "host":
            raise ValueError("the cuda device API copies to or from a GPU; both ends are host")
        gpu = dst_dev if dst_side == "device" else src_dev
        driver.ensure_context(gpu.index)
        stream = 0 if stream is None else int(stream)
        if src_side == "host":
            names = ("cuMemcpyHtoD", "cuMemcpyHtoDAsync")
        elif dst_side == "host":
            names = ("cuMemcpyDtoH", "cuMemcpyDtoHAsync")
        else:
            names = ("cuMemcpyDtoD", "cuMemcpyDtoDAsync")
        if stream:
            driver.call(names[1], int(dst_ptr), int(src_ptr), nbytes, stream)
        else:
            driver.call(names[0], int(dst_ptr), int(src_ptr), nbytes)

    # -- streams -----------------------------------------------------------------------------
    def synchronize(self, dev, stream=None) -> None:
        """Wait for ``stream`` on ``dev`` to finish, or for the whole context when no stream."""
        driver.ensure_context(dev.index)
        if stream:
            driver.call("cuStreamSynchronize", int(stream))
        else:
            driver.call("cuCtxSynchronize")

    def create_stream(self, dev) -> int:
        """Create a stream on ``dev`` and return its handle."""
        driver.ensure_context(dev.index)
        module = driver.get_driver()
        flags = int(module.CUstream_flags.CU_STREAM_DEFAULT)
        return driver.handle_value(driver.call("cuStreamCreate", flags))

    def free_stream(self, dev, stream: int) -> None:
        """Destroy ``stream`` on ``dev``."""
        driver.ensure_context(dev.index)
        driver.call("cuStreamDestroy", int(stream))

    # -- queries and timing ------------------------------------------------------------------
    def get_attr(self, dev, name: str):
        """Device attribute ``name`` of ``dev`` (``"exist"``, ``"compute_version"``,
        ``"device_name"``, ``"max_thread_dimensions"``, ``"total_global_memory"``, the integer
        attributes...).

        Returns
        -------
        object
            The value, or None for a name this API does not know.
        """
        super().get_attr(dev, name)
        if name == "exist":
            try:
                return 0 <= dev.index < driver.device_count()
            except RuntimeError:
                # No usable runtime (or the driver failed); the ctypes probe still sees GPUs cuda-bindings can't use.
                return dev.index < cuda_device_count()
        module = driver.get_driver()
        device = driver.cu_device(dev.index)
        attributes = module.CUdevice_attribute

        def attribute(suffix):
            return int(
                driver.call(
                    "cuDeviceGetAttribute",
                    getattr(attributes, f"CU_DEVICE_ATTRIBUTE_{suffix}"),
                    device,
                )
            )

        if name in _INT_ATTRIBUTES:
            return attribute(_INT_ATTRIBUTES[name])
        if name == "compute_version":
            major = attribute("COMPUTE_CAPABILITY_MAJOR")
            minor = attribute("COMPUTE_CAPABILITY_MINOR")
            return f"{major}.{minor}"
        if name == "device_name":
            raw = driver.call("cuDeviceGetName", 256, device)
            if isinstance(raw, (bytes, bytearray)):
                raw = bytes(raw).split(b"\0", 1)[0].decode(errors="replace")
            return str(raw)
        if name == "max_thread_dimensions":
            return [attribute(f"MAX_BLOCK_DIM_{axis}") for axis in "XYZ"]
        if name in ("api_version", "driver_version"):
            return int(driver.call("cuDriverGetVersion"))
        if name == "total_global_memory":
            return int(driver.call("cuDeviceTotalMem", device))
        if name == "available_global_memory":
            driver.ensure_context(dev.index)
            free, _total = driver.call("cuMemGetInfo")
            return int(free)
        return None

    def create_timer(self, dev) -> DeviceTimer:
        """A :class:`CUDAEventTimer` measuring on ``dev``'s current stream."""
        return CUDAEventTimer(self, dev)
