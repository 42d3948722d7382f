"""Zero-copy DLPack export of NumPy arrays whose dtype NumPy's own DLPack refuses.

NumPy's ``__dlpack__`` rejects the ``ml_dtypes`` types (bfloat16, float8_*, float6_*,
float4_*). This module builds the ``DLManagedTensor`` capsule itself with ctypes, tagging the
memory with the DLPack dtype code that ``tvm_ffi`` knows, and keeps the array alive until the
consumer calls the deleter. It also reads such tensors back into NumPy (CPU only).

:func:`export_memory` does the same for any compact buffer on any device (device tensors
allocated through the device-API table use it, with an owner that frees the memory).
"""

from __future__ import annotations

import ctypes

import numpy as np

__all__ = ["export_array", "export_memory", "to_numpy_view"]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_DELETER_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", _DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", _DELETER_TYPE),
    ]


# Exported arrays and their ctypes structs, by the DLManagedTensor address, until deleted.
_ALIVE: dict[int, tuple] = {}


def _delete(address):
    _ALIVE.pop(address, None)


# Module-level so the C callback outlives every capsule that points at it.
_DELETER = _DELETER_TYPE(_delete)

_CAPSULE_NAME = b"dltensor"
_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_PyCapsule_IsValid = ctypes.pythonapi.PyCapsule_IsValid
_PyCapsule_IsValid.restype = ctypes.c_int
_PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


def _capsule_destructor(capsule_address):
    # A consumer renames the capsule ("used_dltensor") and calls the deleter itself; a capsule
    # still named "dltensor" was never consumed, so its array is released here.
    if _PyCapsule_IsValid(capsule_address, _CAPSULE_NAME):
        _delete(_PyCapsule_GetPointer(capsule_address, _CAPSULE_NAME))


# Raw pointer argument: the capsule is being destroyed and must not be touched as an object.
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_capsule_destructor)


class _CapsuleProducer:
    """A one-shot object with ``__dlpack__`` returning a prepared capsule."""

    def __init__(self, capsule, device=(1, 0)):
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, stream=None, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def export_memory(data_ptr, shape, type_code: int, bits: int, device=(1, 0), owner=None):
    """A DLPack producer for compact row-major memory at ``data_ptr`` on ``device``.

    ``device`` is a DLPack ``(device_type, device_id)`` pair. ``owner`` is kept alive until
    the consumer releases the tensor (the DLManagedTensor deleter), so an owner whose
    ``__del__`` frees the memory ties the memory's life to the consumer's tensor.
    """
    shape = tuple(int(dim) for dim in shape)
    ndim = len(shape)
    shape_array = (ctypes.c_int64 * max(ndim, 1))(*shape)
    managed = _DLManagedTensor()
    managed.dl_tensor.data = data_ptr or None
    managed.dl_tensor.device = _DLDevice(*device)
    managed.dl_tensor.ndim = ndim
    managed.dl_tensor.dtype = _DLDataType(type_code, bits, 1)
    managed.dl_tensor.shape = shape_array
    managed.dl_tensor.strides = None  # compact row-major
    managed.dl_tensor.byte_offset = 0
    managed.deleter = _DELETER
    address = ctypes.addressof(managed)
    _ALIVE[address] = (owner, shape_array, managed)
    capsule = _PyCapsule_New(
        address, _CAPSULE_NAME, ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p)
    )
    return _CapsuleProducer(capsule, tuple(device))


def export_array(arr: np.ndarray, type_code: int, bits: int):
    """A DLPack producer for a C-contiguous CPU array, tagged with ``(type_code, bits)``."""
    arr = np.ascontiguousarray(arr)
    return export_memory(arr.ctypes.data if arr.size else 0, arr.shape, type_code, bits, owner=arr)


def to_numpy_view(tensor, np_dtype) -> np.ndarray:
    """A NumPy view of a CPU tensor's memory with ``np_dtype`` (tensor must stay alive)."""
    shape = tuple(tensor.shape)
    itemsize = np.dtype(np_dtype).itemsize
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if count == 0:
        return np.empty(shape, dtype=np_dtype)
    strides = tensor.strides
    if strides is not None and tuple(strides) and not tensor.is_contiguous():
        raise ValueError(
            "reading a non-contiguous tensor of this dtype into NumPy is not supported"
        )
    buffer = (ctypes.c_uint8 * (count * itemsize)).from_address(tensor.data_ptr())
    return np.frombuffer(buffer, dtype=np_dtype, count=count).reshape(shape)
