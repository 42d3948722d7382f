"""DLPack tensors with chosen fields, for tests of the argument checks of compiled functions.

``tvm_ffi.from_dlpack`` of a ctypes ``DLManagedTensor`` lets a test hand a kernel what NumPy
cannot make: another device type, a byte offset, a NULL data pointer, an odd dtype.
"""

from __future__ import annotations

import ctypes

__all__ = ["fake_dlpack_tensor"]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


# The tensors have a NULL deleter: what they point to is kept alive here, for the process.
_KEEP_ALIVE: list = []


def fake_dlpack_tensor(data, shape, *, device_type: int = 1, byte_offset: int = 0,
                       dtype=(2, 32, 1)):
    """A ``tvm_ffi.Tensor`` over ``data`` with the given DLPack fields.

    Parameters
    ----------
    data : numpy.ndarray or None
        The memory (kept alive for the process), or None for a NULL data pointer.
    shape : sequence of int
        The extents.
    device_type, byte_offset : int
        DLPack's fields (1: CPU).
    dtype : tuple
        ``(code, bits, lanes)``; the default is float32.
    """
    import tvm_ffi  # lazy: tests only

    extents = (ctypes.c_int64 * len(shape))(*shape)
    managed = DLManagedTensor()
    managed.dl_tensor = DLTensor(
        None if data is None else data.ctypes.data, DLDevice(device_type, 0), len(shape),
        DLDataType(*dtype), extents, None, byte_offset,
    )
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    capsule = new_capsule(ctypes.addressof(managed), b"dltensor", None)

    class Producer:
        def __dlpack__(self, stream=None, **kwargs):
            return capsule

        def __dlpack_device__(self):
            return (device_type, 0)

    _KEEP_ALIVE.extend([data, extents, managed])
    return tvm_ffi.from_dlpack(Producer())
