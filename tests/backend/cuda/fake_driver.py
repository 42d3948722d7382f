"""A fake ``cuda.bindings.driver`` for testing the CUDA runtime without a GPU.

:class:`FakeCUDA` builds a module object with the names and call shapes of
``cuda.bindings.driver`` (cuda-bindings 13): every function returns a tuple whose first item
is a ``CUresult``. It simulates device memory with host buffers at made-up device addresses
(so a host pointer used as a device pointer, or an out-of-range copy, fails with
``CUDA_ERROR_INVALID_VALUE``), and records what the runtime asked for:

- ``calls``: ``(name, args)`` of every driver call;
- ``launches``: per ``cuLaunchKernelEx``, the kernel name, grid, block, dynamic shared
  memory, stream, launch attributes and the raw bytes of each kernel parameter, read
  through the ``void**`` array the runtime packed (parameter sizes come from the fake
  image, see :func:`make_image`);
- ``function_attributes``: ``cuFuncSetAttribute`` settings per kernel.

A kernel can be given a Python body (``fake.kernels[name] = fn(fake, launch)``) that reads
and writes device memory, so a test can check results end to end.

:func:`install` puts the module in ``sys.modules`` as ``cuda.bindings.driver`` (with
``cuda`` and ``cuda.bindings`` packages) through a pytest ``monkeypatch``.
"""

from __future__ import annotations

import ctypes
import enum
import json
import struct
import sys
import types

IMAGE_MAGIC = b"FAKECUBIN\n"
DEVICE_BASE = 0x7F00_0000_0000
ALLOC_ALIGNMENT = 256
#: Simulated milliseconds each kernel launch takes (events see this clock).
LAUNCH_MS = 0.5


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_OUT_OF_MEMORY = 2
    CUDA_ERROR_NOT_INITIALIZED = 3
    CUDA_ERROR_NO_DEVICE = 100
    CUDA_ERROR_INVALID_DEVICE = 101
    CUDA_ERROR_INVALID_IMAGE = 200
    CUDA_ERROR_INVALID_CONTEXT = 201
    CUDA_ERROR_INVALID_HANDLE = 400
    CUDA_ERROR_NOT_FOUND = 500
    CUDA_ERROR_NOT_READY = 600
    CUDA_ERROR_ILLEGAL_ADDRESS = 700
    CUDA_ERROR_LAUNCH_FAILED = 719


_ERROR_TEXT = {
    CUresult.CUDA_SUCCESS: b"no error",
    CUresult.CUDA_ERROR_INVALID_VALUE: b"invalid argument",
    CUresult.CUDA_ERROR_OUT_OF_MEMORY: b"out of memory",
    CUresult.CUDA_ERROR_NOT_INITIALIZED: b"initialization error",
    CUresult.CUDA_ERROR_NO_DEVICE: b"no CUDA-capable device is detected",
    CUresult.CUDA_ERROR_INVALID_DEVICE: b"invalid device ordinal",
    CUresult.CUDA_ERROR_INVALID_IMAGE: b"device kernel image is invalid",
    CUresult.CUDA_ERROR_INVALID_CONTEXT: b"invalid device context",
    CUresult.CUDA_ERROR_INVALID_HANDLE: b"invalid resource handle",
    CUresult.CUDA_ERROR_NOT_FOUND: b"named symbol not found",
    CUresult.CUDA_ERROR_NOT_READY: b"device not ready",
    CUresult.CUDA_ERROR_ILLEGAL_ADDRESS: b"an illegal memory access was encountered",
    CUresult.CUDA_ERROR_LAUNCH_FAILED: b"unspecified launch failure",
}


class CUdevice_attribute(enum.IntEnum):
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97


#: What the fake H200 reports.
H200_ATTRIBUTES = {
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1024,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: 1024,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: 1024,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: 64,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: 49152,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_WARP_SIZE: 32,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: 65536,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CLOCK_RATE: 1980000,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: 132,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: 52428800,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: 9,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: 0,
    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 232448,
}
H200_MEMORY = 150_000_000_000


class CUfunction_attribute(enum.IntEnum):
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14


class CUlaunchAttributeID(enum.IntEnum):
    CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2
    CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6
    CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION = 11


class CUevent_flags(enum.IntEnum):
    CU_EVENT_DEFAULT = 0


class CUstream_flags(enum.IntEnum):
    CU_STREAM_DEFAULT = 0
    CU_STREAM_NON_BLOCKING = 1


class CUtensorMapDataType(enum.IntEnum):
    CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0
    CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1
    CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2
    CU_TENSOR_MAP_DATA_TYPE_INT32 = 3
    CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4
    CU_TENSOR_MAP_DATA_TYPE_INT64 = 5
    CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6
    CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7
    CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8
    CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9
    CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ = 10
    CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 = 11
    CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ = 12


class CUtensorMapInterleave(enum.IntEnum):
    CU_TENSOR_MAP_INTERLEAVE_NONE = 0
    CU_TENSOR_MAP_INTERLEAVE_16B = 1
    CU_TENSOR_MAP_INTERLEAVE_32B = 2


class CUtensorMapSwizzle(enum.IntEnum):
    CU_TENSOR_MAP_SWIZZLE_NONE = 0
    CU_TENSOR_MAP_SWIZZLE_32B = 1
    CU_TENSOR_MAP_SWIZZLE_64B = 2
    CU_TENSOR_MAP_SWIZZLE_128B = 3


class CUtensorMapL2promotion(enum.IntEnum):
    CU_TENSOR_MAP_L2_PROMOTION_NONE = 0
    CU_TENSOR_MAP_L2_PROMOTION_L2_64B = 1
    CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2
    CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3


class CUtensorMapFloatOOBfill(enum.IntEnum):
    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0
    CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA = 1


class _Handle:
    """A driver handle holding an address, like ``CUdeviceptr(5)``; ``int()`` reads it."""

    def __init__(self, value=0):
        self._value = int(value)

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __eq__(self, other):
        return type(other) is type(self) and int(other) == self._value

    def __hash__(self):
        return hash((type(self).__name__, self._value))

    def __repr__(self):
        return f"<{type(self).__name__} {self._value:#x}>"


class CUdeviceptr(_Handle):
    pass


class CUdevice(_Handle):
    pass


class CUcontext(_Handle):
    pass


class CUstream(_Handle):
    pass


class CUevent(_Handle):
    pass


class CUmodule(_Handle):
    pass


class CUfunction(_Handle):
    pass


class cuuint64_t(_Handle):  # the cuda.bindings name
    pass


class cuuint32_t(_Handle):  # the cuda.bindings name
    pass


class _Dim3:
    def __init__(self):
        self.x = self.y = self.z = 0


class _LaunchAttributeValue:
    def __init__(self):
        self.clusterDim = _Dim3()
        self.cooperative = 0
        self.programmaticStreamSerializationAllowed = 0


class CUlaunchAttribute:
    def __init__(self):
        self.id = 0
        self.value = _LaunchAttributeValue()


class CUlaunchConfig:
    def __init__(self):
        self.gridDimX = self.gridDimY = self.gridDimZ = 0
        self.blockDimX = self.blockDimY = self.blockDimZ = 0
        self.sharedMemBytes = 0
        self.hStream = 0
        self.attrs = []
        self.numAttrs = 0


class CUtensorMap:
    def __init__(self, data: bytes = bytes(128)):
        self.opaque = [cuuint64_t(v) for v in struct.unpack("<16Q", data)]


def make_image(kernels: dict) -> bytes:
    """A fake module image: kernel name -> list of parameter sizes in bytes."""
    return IMAGE_MAGIC + json.dumps(kernels).encode()


def encode_fake_tensor_map(
    data_type, rank, address, dims, strides, box, element_strides, interleave, swizzle, l2, oob
) -> bytes:
    """The fake's 128-byte descriptor: every argument, so tests can read back what was
    passed (little-endian u64s: type, rank, address, 5 dims, 4 strides, then u16s)."""
    words = [int(data_type), int(rank), int(address)]
    words += [int(v) for v in dims] + [0] * (5 - len(dims))
    words += [int(v) for v in strides] + [0] * (4 - len(strides))
    head = struct.pack("<12Q", *words)
    small = [int(v) for v in box] + [0] * (5 - len(box))
    small += [int(v) for v in element_strides] + [0] * (5 - len(element_strides))
    small += [int(interleave), int(swizzle), int(l2), int(oob)]
    tail = struct.pack("<14H", *small)
    return (head + tail).ljust(128, b"\0")


def decode_fake_tensor_map(data: bytes) -> dict:
    """Read back what :func:`encode_fake_tensor_map` packed."""
    words = struct.unpack_from("<12Q", data)
    small = struct.unpack_from("<14H", data, 96)
    rank = words[1]
    return {
        "data_type": words[0],
        "rank": rank,
        "address": words[2],
        "dims": list(words[3 : 3 + rank]),
        "strides": list(words[8 : 8 + rank - 1]),
        "box": list(small[0:rank]),
        "element_strides": list(small[5 : 5 + rank]),
        "interleave": small[10],
        "swizzle": small[11],
        "l2_promotion": small[12],
        "oob_fill": small[13],
    }


class FakeCUDA:
    """State and functions of the fake driver (see the module docstring).

    Parameters
    ----------
    device_count : int
        Devices the fake reports.
    init_failure : None, "dlopen" or CUresult
        Make ``cuInit`` raise like cuda-bindings without libcuda.so.1, or return an error.
    """

    def __init__(self, device_count: int = 1, init_failure=None):
        self.device_count = device_count
        self.init_failure = init_failure
        self.initialized = False
        self.calls: list = []
        self.launches: list = []
        self.function_attributes: dict = {}
        self.kernels: dict = {}  # name -> python body fn(fake, launch)
        self.fail: dict = {}  # driver function name -> CUresult to return once
        self.memory: dict = {}  # device address -> bytearray
        self._next_address = DEVICE_BASE
        self.current_context = None
        self.modules: dict = {}  # CUmodule value -> {kernel: param sizes}
        self.functions: dict = {}  # CUfunction value -> (kernel name, param sizes)
        self.streams: set = {0}
        self.events: dict = {}  # CUevent value -> recorded clock (ms) or None
        self.clock_ms = 0.0
        self._handles = 0x1000
        self.module = self._build_module()

    # -- helpers ---------------------------------------------------------------------------
    def _handle(self, cls):
        self._handles += 0x10
        return cls(self._handles)

    def _record(self, name, args):
        self.calls.append((name, args))
        failure = self.fail.pop(name, None)
        if failure is not None:
            return CUresult(failure)
        if name not in ("cuInit", "cuGetErrorName", "cuGetErrorString") and not self.initialized:
            return CUresult.CUDA_ERROR_NOT_INITIALIZED
        return None

    def call_names(self) -> list:
        return [name for name, _ in self.calls]

    def _locate(self, address: int, nbytes: int):
        """(buffer, offset) of a device range; None when it is not inside one allocation."""
        for base, buffer in self.memory.items():
            if base <= address and address + nbytes <= base + len(buffer):
                return buffer, address - base
        return None

    def read(self, address: int, nbytes: int) -> bytes:
        """Bytes of device memory (for kernel bodies and tests)."""
        found = self._locate(int(address), nbytes)
        if found is None:
            raise ValueError(f"fake CUDA: {address:#x}+{nbytes} is not device memory")
        buffer, offset = found
        return bytes(buffer[offset : offset + nbytes])

    def write(self, address: int, data: bytes) -> None:
        """Write device memory (for kernel bodies and tests)."""
        found = self._locate(int(address), len(data))
        if found is None:
            raise ValueError(f"fake CUDA: {address:#x}+{len(data)} is not device memory")
        buffer, offset = found
        buffer[offset : offset + len(data)] = data

    def _needs_context(self):
        return self.current_context is None

    # -- the module ------------------------------------------------------------------------
    def _build_module(self):
        module = types.ModuleType("cuda.bindings.driver")
        for value in (
            CUresult,
            CUdevice_attribute,
            CUfunction_attribute,
            CUlaunchAttributeID,
            CUevent_flags,
            CUstream_flags,
            CUtensorMapDataType,
            CUtensorMapInterleave,
            CUtensorMapSwizzle,
            CUtensorMapL2promotion,
            CUtensorMapFloatOOBfill,
            CUdeviceptr,
            CUdevice,
            CUcontext,
            CUstream,
            CUevent,
            CUmodule,
            CUfunction,
            cuuint64_t,
            cuuint32_t,
            CUlaunchAttribute,
            CUlaunchConfig,
            CUtensorMap,
        ):
            setattr(module, value.__name__, value)
        for name in dir(self):
            if name.startswith("cu") and callable(getattr(self, name)):
                setattr(module, name, getattr(self, name))
        return module

    # -- init, devices, contexts -----------------------------------------------------------
    def cuInit(self, flags):
        self.calls.append(("cuInit", (flags,)))
        if self.init_failure == "dlopen":
            raise RuntimeError("Failed to dlopen libcuda.so.1")
        if self.init_failure is not None:
            return (CUresult(self.init_failure),)
        self.initialized = True
        return (CUresult.CUDA_SUCCESS,)

    def cuGetErrorName(self, error):
        return (CUresult.CUDA_SUCCESS, CUresult(error).name.encode())

    def cuGetErrorString(self, error):
        return (CUresult.CUDA_SUCCESS, _ERROR_TEXT.get(CUresult(error), b"unknown error"))

    def cuDriverGetVersion(self):
        failure = self._record("cuDriverGetVersion", ())
        return (failure or CUresult.CUDA_SUCCESS, 13000)

    def cuDeviceGetCount(self):
        failure = self._record("cuDeviceGetCount", ())
        return (failure or CUresult.CUDA_SUCCESS, self.device_count)

    def cuDeviceGet(self, ordinal):
        failure = self._record("cuDeviceGet", (ordinal,))
        if failure is None and not 0 <= ordinal < self.device_count:
            failure = CUresult.CUDA_ERROR_INVALID_DEVICE
        return (failure or CUresult.CUDA_SUCCESS, CUdevice(ordinal))

    def cuDeviceGetAttribute(self, attrib, dev):
        failure = self._record("cuDeviceGetAttribute", (attrib, dev))
        value = H200_ATTRIBUTES.get(CUdevice_attribute(int(attrib)))
        if failure is None and value is None:
            failure = CUresult.CUDA_ERROR_INVALID_VALUE
        return (failure or CUresult.CUDA_SUCCESS, value or 0)

    def cuDeviceGetName(self, length, dev):
        failure = self._record("cuDeviceGetName", (length, dev))
        name = f"NVIDIA H200 (fake {int(dev)})".encode()
        return (failure or CUresult.CUDA_SUCCESS, name.ljust(length, b"\0"))

    def cuDeviceTotalMem(self, dev):
        failure = self._record("cuDeviceTotalMem", (dev,))
        return (failure or CUresult.CUDA_SUCCESS, H200_MEMORY)

    def cuMemGetInfo(self):
        failure = self._record("cuMemGetInfo", ())
        if failure is None and self._needs_context():
            failure = CUresult.CUDA_ERROR_INVALID_CONTEXT
        used = sum(len(b) for b in self.memory.values())
        return (failure or CUresult.CUDA_SUCCESS, H200_MEMORY - used, H200_MEMORY)

    def cuDevicePrimaryCtxRetain(self, dev):
        failure = self._record("cuDevicePrimaryCtxRetain", (dev,))
        return (failure or CUresult.CUDA_SUCCESS, CUcontext(0xC0000 + int(dev)))

    def cuCtxSetCurrent(self, ctx):
        failure = self._record("cuCtxSetCurrent", (ctx,))
        if failure is None:
            self.current_context = ctx
        return (failure or CUresult.CUDA_SUCCESS,)

    def cuCtxSynchronize(self):
        failure = self._record("cuCtxSynchronize", ())
        if failure is None and self._needs_context():
            failure = CUresult.CUDA_ERROR_INVALID_CONTEXT
        return (failure or CUresult.CUDA_SUCCESS,)

    # -- memory ----------------------------------------------------------------------------
    def cuMemAlloc(self, nbytes):
        failure = self._record("cuMemAlloc", (nbytes,))
        if failure is None and self._needs_context():
            failure = CUresult.CUDA_ERROR_INVALID_CONTEXT
        if failure is not None:
            return (failure, CUdeviceptr(0))
        address = self._next_address
        self._next_address += (
            (int(nbytes) + ALLOC_ALIGNMENT - 1) // ALLOC_ALIGNMENT * ALLOC_ALIGNMENT
        )
        self._next_address += ALLOC_ALIGNMENT  # a gap, so overruns hit no allocation
        self.memory[address] = bytearray(int(nbytes))
        return (CUresult.CUDA_SUCCESS, CUdeviceptr(address))

    def cuMemFree(self, dptr):
        failure = self._record("cuMemFree", (dptr,))
        if failure is None and self.memory.pop(int(dptr), None) is None:
            failure = CUresult.CUDA_ERROR_INVALID_VALUE
        return (failure or CUresult.CUDA_SUCCESS,)

    def _copy(self, name, dst, src, nbytes, dst_device, src_device, stream=None):
        args = (dst, src, nbytes) if stream is None else (dst, src, nbytes, stream)
        failure = self._record(name, args)
        if failure is None and self._needs_context():
            failure = CUresult.CUDA_ERROR_INVALID_CONTEXT
        if failure is None and stream is not None and int(stream) not in self.streams:
            failure = CUresult.CUDA_ERROR_INVALID_HANDLE
        if failure is not None:
            return (failure,)
        dst, src, nbytes = int(dst), int(src), int(nbytes)
        if src_device:
            found = self._locate(src, nbytes)
            if found is None:
                return (CUresult.CUDA_ERROR_INVALID_VALUE,)
            data = self.read(src, nbytes)
        else:
            if self._locate(src, 1) is not None:
                return (CUresult.CUDA_ERROR_INVALID_VALUE,)  # a device pointer as host
            data = ctypes.string_at(src, nbytes)
        if dst_device:
            if self._locate(dst, nbytes) is None:
                return (CUresult.CUDA_ERROR_INVALID_VALUE,)
            self.write(dst, data)
        else:
            if self._locate(dst, 1) is not None:
                return (CUresult.CUDA_ERROR_INVALID_VALUE,)
            ctypes.memmove(dst, data, nbytes)
        return (CUresult.CUDA_SUCCESS,)

    def cuMemcpyHtoD(self, dstDevice, srcHost, ByteCount):
        return self._copy("cuMemcpyHtoD", dstDevice, srcHost, ByteCount, True, False)

    def cuMemcpyDtoH(self, dstHost, srcDevice, ByteCount):
        return self._copy("cuMemcpyDtoH", dstHost, srcDevice, ByteCount, False, True)

    def cuMemcpyDtoD(self, dstDevice, srcDevice, ByteCount):
        return self._copy("cuMemcpyDtoD", dstDevice, srcDevice, ByteCount, True, True)

    def cuMemcpyHtoDAsync(self, dstDevice, srcHost, ByteCount, hStream):
        return self._copy("cuMemcpyHtoDAsync", dstDevice, srcHost, ByteCount, True, False, hStream)

    def cuMemcpyDtoHAsync(self, dstHost, srcDevice, ByteCount, hStream):
        return self._copy("cuMemcpyDtoHAsync", dstHost, srcDevice, ByteCount, False, True, hStream)

    def cuMemcpyDtoDAsync(self, dstDevice, srcDevice, ByteCount, hStream):
        return self._copy("cuMemcpyDtoDAsync", dstDevice, srcDevice, ByteCount, True, True, hStream)

    # -- streams and events ----------------------------------------------------------------
    def cuStreamCreate(self, flags):
        failure = self._record("cuStreamCreate", (flags,))
        stream = self._handle(CUstream)
        if failure is None:
            self.streams.add(int(stream))
        return (failure or CUresult.CUDA_SUCCESS, stream)

    def cuStreamDestroy(self, stream):
        failure = self._record("cuStreamDestroy", (stream,))
        if failure is None and (int(stream) == 0 or int(stream) not in self.streams):
            failure = CUresult.CUDA_ERROR_INVALID_HANDLE
        self.streams.discard(int(stream))
        return (failure or CUresult.CUDA_SUCCESS,)

    def cuStreamSynchronize(self, stream):
        failure = self._record("cuStreamSynchronize", (stream,))
        if failure is None and int(stream) not in self.streams:
            failure = CUresult.CUDA_ERROR_INVALID_HANDLE
        return (failure or CUresult.CUDA_SUCCESS,)

    def cuEventCreate(self, flags):
        failure = self._record("cuEventCreate", (flags,))
        event = self._handle(CUevent)
        if failure is None:
            self.events[int(event)] = None
        return (failure or CUresult.CUDA_SUCCESS, event)

    def cuEventRecord(self, hEvent, hStream):
        failure = self._record("cuEventRecord", (hEvent, hStream))
        if failure is None and int(hEvent) not in self.events:
            failure = CUresult.CUDA_ERROR_INVALID_HANDLE
        if failure is None:
            self.events[int(hEvent)] = self.clock_ms
        return (failure or CUresult.CUDA_SUCCESS,)

    def cuEventSynchronize(self, hEvent):
        failure = self._record("cuEventSynchronize", (hEvent,))
        return (failure or CUresult.CUDA_SUCCESS,)

    def cuEventElapsedTime(self, hStart, hEnd):
        failure = self._record("cuEventElapsedTime", (hStart, hEnd))
        start, end = self.events.get(int(hStart)), self.events.get(int(hEnd))
        if failure is None and (start is None or end is None):
            failure = CUresult.CUDA_ERROR_INVALID_HANDLE
        return (failure or CUresult.CUDA_SUCCESS, (end or 0.0) - (start or 0.0))

    def cuEventDestroy(self, hEvent):
        failure = self._record("cuEventDestroy", (hEvent,))
        self.events.pop(int(hEvent), None)
        return (failure or CUresult.CUDA_SUCCESS,)

    # -- modules and launches --------------------------------------------------------------
    def cuModuleLoadData(self, image):
        failure = self._record("cuModuleLoadData", (image,))
        if failure is None and self._needs_context():
            failure = CUresult.CUDA_ERROR_INVALID_CONTEXT
        if failure is None and not bytes(image).startswith(IMAGE_MAGIC):
            failure = CUresult.CUDA_ERROR_INVALID_IMAGE
        if failure is not None:
            return (failure, CUmodule(0))
        module = self._handle(CUmodule)
        text = bytes(image)[len(IMAGE_MAGIC) :].rstrip(b"\0")
        self.modules[int(module)] = json.loads(text)
        return (CUresult.CUDA_SUCCESS, module)

    def cuModuleUnload(self, hmod):
        failure = self._record("cuModuleUnload", (hmod,))
        self.modules.pop(int(hmod), None)
        return (failure or CUresult.CUDA_SUCCESS,)

    def cuModuleGetFunction(self, hmod, name):
        failure = self._record("cuModuleGetFunction", (hmod, name))
        kernels = self.modules.get(int(hmod))
        if failure is None and kernels is None:
            failure = CUresult.CUDA_ERROR_INVALID_HANDLE
        if failure is None and name.decode() not in kernels:
            failure = CUresult.CUDA_ERROR_NOT_FOUND
        if failure is not None:
            return (failure, CUfunction(0))
        function = self._handle(CUfunction)
        self.functions[int(function)] = (name.decode(), kernels[name.decode()])
        return (CUresult.CUDA_SUCCESS, function)

    def cuFuncSetAttribute(self, hfunc, attrib, value):
        failure = self._record("cuFuncSetAttribute", (hfunc, attrib, value))
        entry = self.functions.get(int(hfunc))
        if failure is None and entry is None:
            failure = CUresult.CUDA_ERROR_INVALID_HANDLE
        if failure is None:
            attribute = CUfunction_attribute(int(attrib))
            if (
                attribute is CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
                and value
                > H200_ATTRIBUTES[
                    CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
                ]
            ):
                failure = CUresult.CUDA_ERROR_INVALID_VALUE
            else:
                self.function_attributes.setdefault(entry[0], {})[attribute.name] = value
        return (failure or CUresult.CUDA_SUCCESS,)

    def cuLaunchKernelEx(self, config, f, kernelParams, extra):
        failure = self._record("cuLaunchKernelEx", (config, f, kernelParams, extra))
        entry = self.functions.get(int(f))
        if failure is None and entry is None:
            failure = CUresult.CUDA_ERROR_INVALID_HANDLE
        if failure is not None:
            return (failure,)
        name, sizes = entry
        params = []
        if sizes:
            if not isinstance(kernelParams, int) or not kernelParams:
                return (CUresult.CUDA_ERROR_INVALID_VALUE,)
            pointers = (ctypes.c_void_p * len(sizes)).from_address(kernelParams)
            params = [ctypes.string_at(pointers[i], size) for i, size in enumerate(sizes)]
        attrs = []
        for attr in list(config.attrs)[: config.numAttrs]:
            attr_id = CUlaunchAttributeID(int(attr.id))
            if attr_id in (
                CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION,
            ):
                dim = attr.value.clusterDim
                attrs.append((attr_id.name, (dim.x, dim.y, dim.z)))
            elif attr_id is CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
                attrs.append((attr_id.name, attr.value.cooperative))
            else:
                attrs.append((attr_id.name, attr.value.programmaticStreamSerializationAllowed))
        shared = int(config.sharedMemBytes)
        allowed = self.function_attributes.get(name, {}).get(
            "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", 48 << 10
        )
        if shared > allowed:
            return (CUresult.CUDA_ERROR_INVALID_VALUE,)
        if int(config.hStream) not in self.streams:
            return (CUresult.CUDA_ERROR_INVALID_HANDLE,)
        launch = {
            "kernel": name,
            "grid": (config.gridDimX, config.gridDimY, config.gridDimZ),
            "block": (config.blockDimX, config.blockDimY, config.blockDimZ),
            "shared_mem_bytes": shared,
            "stream": int(config.hStream),
            "attrs": attrs,
            "params": params,
            "context": self.current_context,
        }
        self.launches.append(launch)
        self.clock_ms += LAUNCH_MS
        body = self.kernels.get(name)
        if body is not None:
            body(self, launch)
        return (CUresult.CUDA_SUCCESS,)

    # -- tensor maps -----------------------------------------------------------------------
    def cuTensorMapEncodeTiled(
        self,
        tensorDataType,
        tensorRank,
        globalAddress,
        globalDim,
        globalStrides,
        boxDim,
        elementStrides,
        interleave,
        swizzle,
        l2Promotion,
        oobFill,
    ):
        # cuda-bindings converts list items to cuuint64_t / cuuint32_t and rejects plain ints.
        for values, kind in (
            (globalDim, cuuint64_t),
            (globalStrides, cuuint64_t),
            (boxDim, cuuint32_t),
            (elementStrides, cuuint32_t),
        ):
            for value in values:
                if not isinstance(value, kind):
                    raise TypeError(f"Cannot convert {type(value).__name__} to {kind.__name__}")
        args = (
            tensorDataType,
            tensorRank,
            globalAddress,
            globalDim,
            globalStrides,
            boxDim,
            elementStrides,
            interleave,
            swizzle,
            l2Promotion,
            oobFill,
        )
        failure = self._record("cuTensorMapEncodeTiled", args)
        if failure is not None:
            return (failure, CUtensorMap())
        data = encode_fake_tensor_map(*args)
        return (CUresult.CUDA_SUCCESS, CUtensorMap(data))


#: Names the runtime uses; each must exist in the real ``cuda.bindings.driver``.
DRIVER_NAMES = sorted(
    name for name in vars(FakeCUDA) if name.startswith("cu") and callable(getattr(FakeCUDA, name))
) + [
    "CUresult",
    "CUdevice_attribute",
    "CUfunction_attribute",
    "CUlaunchAttributeID",
    "CUevent_flags",
    "CUstream_flags",
    "CUtensorMapDataType",
    "CUtensorMapInterleave",
    "CUtensorMapSwizzle",
    "CUtensorMapL2promotion",
    "CUtensorMapFloatOOBfill",
    "CUdeviceptr",
    "CUdevice",
    "CUcontext",
    "CUstream",
    "CUevent",
    "CUmodule",
    "CUfunction",
    "cuuint64_t",
    "cuuint32_t",
    "CUlaunchAttribute",
    "CUlaunchConfig",
    "CUtensorMap",
]

#: Enum members the runtime uses, as (enum name, member name).
ENUM_MEMBERS = [
    (cls.__name__, member.name)
    for cls in (
        CUresult,
        CUdevice_attribute,
        CUfunction_attribute,
        CUlaunchAttributeID,
        CUevent_flags,
        CUstream_flags,
        CUtensorMapDataType,
        CUtensorMapInterleave,
        CUtensorMapSwizzle,
        CUtensorMapL2promotion,
        CUtensorMapFloatOOBfill,
    )
    for member in cls
]


def install(monkeypatch, fake: FakeCUDA) -> FakeCUDA:
    """Make ``from cuda.bindings import driver`` return ``fake.module`` (undone by
    ``monkeypatch``) and reset pytvm's driver wrapper so it picks the fake up."""
    from tvm.backend.cuda import driver

    cuda = types.ModuleType("cuda")
    cuda.__path__ = []
    bindings = types.ModuleType("cuda.bindings")
    bindings.__path__ = []
    bindings.driver = fake.module
    cuda.bindings = bindings
    monkeypatch.setitem(sys.modules, "cuda", cuda)
    monkeypatch.setitem(sys.modules, "cuda.bindings", bindings)
    monkeypatch.setitem(sys.modules, "cuda.bindings.driver", fake.module)
    driver.reset()
    return fake
