"""DLPack tensors with chosen fields, for tests of the argument checks of compiled functions.

``tvm_ffi.from_dlpack`` of a ctypes ``DLManagedTensor`` lets a test hand a kernel what NumPy
cannot make: another device type, a byte offset, a NULL data pointer, an odd dtype.
"""

from __future__ import annotations

import ctypes

from ..runtime import _dlpack

__all__ = ["fake_dlpack_tensor"]


# The DLPack structs of the runtime's own exporter (its deleter field accepts None: NULL).
DLDevice, DLDataType, DLTensor, DLManagedTensor = (
    _dlpack._DLDevice, _dlpack._DLDataType, _dlpack._DLTensor, _dlpack._DLManagedTensor)


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
