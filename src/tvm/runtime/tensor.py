"""Tensors: ``tvm.runtime.tensor(array, device)`` and ``tvm.runtime.empty(shape, dtype, device)``.

:class:`Tensor` is ``tvm_ffi``'s DLPack tensor with TVM's NumPy helpers (``numpy()``,
``copyfrom``, ``copyto``). It is installed as ``tvm_ffi``'s tensor class, so tensors returned by
compiled functions and by ``tvm_ffi.from_dlpack`` are :class:`Tensor` too.

Memory is shared with NumPy and PyTorch through DLPack, both ways, without copies
(``tvm_ffi.from_dlpack(np_array)``, ``np.from_dlpack(tensor)``). ``tensor()`` copies its input,
as in TVM, and ``numpy()`` returns a copy.

Device memory (``tvm.cuda(0)``) comes from the device type's
:class:`~tvm.runtime.device_api.DeviceAPI`, which a backend registers (the CUDA backend for
``cuda``): ``empty``/``tensor`` allocate there, ``numpy()``/``copyfrom``/``copyto`` copy
through it, and the memory is freed when the last tensor sharing it (including a PyTorch or
CuPy tensor made from it with DLPack) is gone. CPU tensors never touch that table.

Limitations: the ``ml_dtypes`` types bfloat16 and float8_* work (NumPy's DLPack refuses
them, so pytvm exports them itself); float6/float4, complex and vector dtypes are not
supported. Device tensors must be compact (row-major, no strides) to be copied.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import tvm_ffi
from tvm_ffi import core as _ffi_core

from . import _dlpack
from . import device_api as _device_api
from .data_type import FLOAT8_DTYPES
from .device import Device, cpu

__all__ = ["Tensor", "empty", "from_dlpack", "tensor"]

_KDLCPU = 1
# dtypes that NumPy's DLPack exports itself.
_NUMPY_DLPACK_KINDS = "biuf"
# ml_dtypes types that pytvm exports through its own DLPack capsule (1 element per byte or
# 2 bytes, so NumPy's storage matches DLPack's).
_ML_DTYPE_NAMES = ("bfloat16", *FLOAT8_DTYPES)


class Tensor(_ffi_core.Tensor):
    """An n-dimensional array on a device: ``.shape``, ``.dtype``, ``.device``, ``.numpy()``.

    Examples
    --------
    >>> import numpy as np, tvm
    >>> t = tvm.runtime.tensor(np.arange(6, dtype="float32").reshape(2, 3))
    >>> t.shape, str(t.dtype), str(t.device)
    ((2, 3), 'float32', 'cpu:0')
    >>> t.numpy().sum()
    np.float32(15.0)
    """

    def numpy(self) -> np.ndarray:
        """A NumPy copy of the contents (copied from the device for device tensors)."""
        if self.device.dlpack_device_type() != _KDLCPU:
            return _device_to_numpy(self)
        copied: np.ndarray = self._host_view().copy()
        return copied

    def _host_view(self) -> np.ndarray:
        """A NumPy view sharing this tensor's memory (CPU tensors only)."""
        if self.device.dlpack_device_type() != _KDLCPU:
            raise ValueError(
                f"cannot view a tensor on {self.device} as NumPy memory; numpy() copies it"
            )
        name = str(self.dtype)
        if name in _ML_DTYPE_NAMES:
            shared: np.ndarray = _dlpack.to_numpy_view(self, _numpy_dtype(name))
            return shared
        return np.from_dlpack(self)

    def copyfrom(self, source: Any) -> Tensor:
        """Copy ``source`` (a NumPy array, list or Tensor) into this tensor; returns self."""
        if self.device.dlpack_device_type() != _KDLCPU:
            _copy_into_device_tensor(self, source)
            return self
        if isinstance(source, _ffi_core.Tensor):
            if source.device.dlpack_device_type() != _KDLCPU:
                _copy_into_device_tensor(self, source, host_target=True)
                return self
            source = source.numpy() if isinstance(source, Tensor) else np.from_dlpack(source)
        source = np.asarray(source)
        view = self._host_view()
        if source.shape != view.shape:
            raise ValueError(
                f"copyfrom: shape mismatch, tensor has shape {view.shape}, source {source.shape}"
            )
        view[...] = source.astype(view.dtype, copy=False)
        return self

    def __setitem__(self, key: Any, value: Any) -> None:
        """``tensor[:] = value`` copies a NumPy array or Tensor in (the only form supported)."""
        if not isinstance(key, slice) or key != slice(None):
            raise ValueError(
                f"Tensor item assignment supports only tensor[:] = value, got index {key!r}"
            )
        if not isinstance(value, (np.ndarray, _ffi_core.Tensor)):
            raise TypeError(
                f"tensor[:] = value needs a NumPy array or Tensor, got {type(value).__name__}"
            )
        self.copyfrom(value)

    def copyto(self, target: Tensor | Device | _ffi_core.Tensor | _ffi_core.Device) -> Tensor:
        """Copy into a Tensor (returns it) or onto a Device (returns a new Tensor)."""
        if isinstance(target, _ffi_core.Tensor):
            return cast(Tensor, target).copyfrom(self)
        if isinstance(target, _ffi_core.Device):
            if (
                self.device.dlpack_device_type() == _KDLCPU
                and target.dlpack_device_type() == _KDLCPU
            ):
                return tensor(self.numpy(), target)
            result = empty(self.shape, str(self.dtype), target)
            return result.copyfrom(self)
        raise TypeError(f"copyto expects a Tensor or a Device, got {type(target).__name__}")

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if self.device.dlpack_device_type() != _KDLCPU:
            array = self.numpy()
            return array.astype(dtype) if dtype is not None else array
        array = self._host_view()
        if dtype is not None:
            array = array.astype(dtype)
        return array.copy() if copy else array

    def __repr__(self) -> str:
        head = f"<tvm.runtime.Tensor shape={tuple(self.shape)}, {self.device}>"
        if self.device.type != "cpu":
            return head
        return f"{head}\n{self.numpy()!r}"

    def __str__(self) -> str:
        return str(self.numpy()) if self.device.type == "cpu" else repr(self)


# Make tvm_ffi build our subclass wherever it creates a tensor (from_dlpack, FFI returns).
_ffi_core._set_class_tensor(Tensor)

_CPU0 = cpu(0)


def _numpy_dtype(dtype: Any) -> np.dtype[Any]:
    """NumPy dtype for a dtype name (``"float32"``, ``"bfloat16"``) or a NumPy dtype."""
    name = str(dtype)
    if name in _ML_DTYPE_NAMES:
        import ml_dtypes  # only needed for these dtypes

        ml_dtype: np.dtype[Any] = np.dtype(getattr(ml_dtypes, name))
        return ml_dtype
    if isinstance(dtype, str) and name not in _TVM_SCALAR_NAMES:
        # Only TVM's spellings: NumPy would read codes such as "i4" with another meaning.
        raise TypeError(_unsupported_dtype_message(name))
    try:
        return np.dtype(name if isinstance(dtype, str) else dtype)
    except TypeError as err:
        raise TypeError(_unsupported_dtype_message(name)) from err


_TVM_SCALAR_NAMES = frozenset(
    ["bool", "float16", "float32", "float64"]
    + [f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64)]
)


def _unsupported_dtype_message(name: str) -> str:
    return (
        f"unsupported dtype {name!r} for a tvm.runtime.Tensor: supported are bool, "
        "int8/16/32/64, uint8/16/32/64, float16/32/64, bfloat16 and the float8 types of "
        "ml_dtypes. For other types pass a same-sized integer view (e.g. array.view('uint16'))."
    )


#: Byte alignment of host memory that pytvm allocates (``empty``, ``tensor``, the VM's
#: planned buffers), as TVM's ``kAllocAlignment``: NumPy's large arrays start 16 bytes into
#: a cache line, so a kernel's 64-byte vector row segments would straddle two lines.
HOST_ALIGNMENT = 64


def aligned_host_empty(shape: Sequence[int], dtype: Any) -> np.ndarray:
    """An uninitialized C-contiguous NumPy array whose data starts on a ``HOST_ALIGNMENT``
    boundary (a view into a slightly larger byte array, which it keeps alive)."""
    dtype = np.dtype(dtype)
    shape = tuple(int(d) for d in shape)
    count = 1
    for dim in shape:
        count *= dim
    nbytes = count * dtype.itemsize
    raw = np.empty(nbytes + HOST_ALIGNMENT, np.uint8)
    start = -int(raw.ctypes.data) % HOST_ALIGNMENT
    array: np.ndarray = raw[start:start + nbytes].view(dtype).reshape(shape)
    return array


def _wrap_host_array(array: np.ndarray) -> Tensor:
    """A Tensor sharing the memory of a C-contiguous CPU NumPy array (kept alive by it)."""
    dtype = array.dtype
    name = dtype.name
    if name in _ML_DTYPE_NAMES:
        info = tvm_ffi.dtype(name)
        storage = array.view(np.uint8 if dtype.itemsize == 1 else np.uint16)
        return cast(Tensor, tvm_ffi.from_dlpack(
            _dlpack.export_array(storage, info.type_code, info.bits)))
    if dtype.kind not in _NUMPY_DLPACK_KINDS or dtype.itemsize > 8 or not dtype.isnative:
        raise TypeError(_unsupported_dtype_message(name))
    if not array.flags.writeable:
        array = array.copy()
    return cast(Tensor, tvm_ffi.from_dlpack(array))


def _check_device(device: _ffi_core.Device | str | None) -> _ffi_core.Device:
    if device is None:
        return _CPU0
    if isinstance(device, str):
        device = tvm_ffi.device(device)
    if not isinstance(device, _ffi_core.Device):
        raise TypeError(f"expected a Device, got {type(device).__name__}")
    return device


def tensor(arr: Any, device: _ffi_core.Device | str | None = None, mem_scope: str | None = None) -> Tensor:
    """A new Tensor holding a copy of ``arr`` (NumPy array, list, scalar or Tensor).

    Parameters
    ----------
    arr
        The data. Lists and scalars go through ``numpy.asarray`` (so ``[1, 2]`` is int64).
    device : Device, optional
        Where to put it (default CPU). Other devices need their backend's device API
        (``tvm.cuda()`` needs the CUDA backend and driver).
    mem_scope : None
        Memory scopes are not supported; must be None.

    Raises
    ------
    TypeError
        For unsupported dtypes (complex, object, strings, float6/float4).
    ValueError
        For a device type no backend registered a device API for.
    RuntimeError
        When the device's driver is missing or fails (for CUDA: no libcuda.so.1).
    """
    if mem_scope is not None:
        raise ValueError(f"mem_scope={mem_scope!r} is not supported yet (only None)")
    device = _check_device(device)
    if isinstance(arr, _ffi_core.Tensor):
        if device.dlpack_device_type() != _KDLCPU:
            return empty(arr.shape, str(arr.dtype), device).copyfrom(arr)
        arr = arr.numpy() if isinstance(arr, Tensor) else np.from_dlpack(arr)
    array = np.asarray(arr)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("="))
    if array.dtype.kind in _NUMPY_DLPACK_KINDS or array.dtype.name in _ML_DTYPE_NAMES:
        array = _aligned_copy(array)
    else:
        array = np.array(array, order="C", copy=True)  # rejected with its dtype's message
    if device.dlpack_device_type() != _KDLCPU:
        result = _device_empty(array.shape, array.dtype, device)
        _host_to_device(array, result)
        return result
    return _wrap_host_array(array)


def empty(shape: int | Sequence[Any], dtype: Any = "float32",
          device: _ffi_core.Device | str | None = None, mem_scope: str | None = None) -> Tensor:
    """An uninitialized Tensor of the given shape and dtype (a dtype name or NumPy dtype)."""
    if mem_scope is not None:
        raise ValueError(f"mem_scope={mem_scope!r} is not supported yet (only None)")
    device = _check_device(device)
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(dim) for dim in shape)
    if any(dim < 0 for dim in shape):
        raise ValueError(f"empty: negative dimension in shape {shape}")
    if device.dlpack_device_type() != _KDLCPU:
        return _device_empty(shape, _numpy_dtype(dtype), device)
    return _wrap_host_array(aligned_host_empty(shape, _numpy_dtype(dtype)))


def _aligned_copy(array: np.ndarray) -> np.ndarray:
    out = aligned_host_empty(array.shape, array.dtype)
    np.copyto(out, array)
    return out


# --- device tensors (memory from the device-API table) ---------------------------------------


class _DeviceAllocation:
    """Memory from a device API, freed when this object (owned by the DLPack capsule's
    keep-alive entry, released by the DLManagedTensor deleter) goes away."""

    __slots__ = ("api", "device", "nbytes", "ptr")

    def __init__(self, api: Any, device: Any, nbytes: int) -> None:
        self.api = api
        self.device = device
        self.nbytes = nbytes
        self.ptr = None
        self.ptr = api.alloc(device, nbytes, 64)

    def __del__(self) -> None:
        if self.ptr is None:
            return
        ptr, self.ptr = self.ptr, None
        # A finalizer must not raise (at interpreter exit the driver may already be gone).
        with contextlib.suppress(Exception):
            self.api.free(self.device, ptr)


def _dlpack_dtype(np_dtype: np.dtype[Any]) -> tuple[int, int]:
    """``(type_code, bits)`` of a supported NumPy dtype; TypeError for unsupported ones."""
    name = np_dtype.name
    if name not in _ML_DTYPE_NAMES and (
        np_dtype.kind not in _NUMPY_DLPACK_KINDS or np_dtype.itemsize > 8
    ):
        raise TypeError(_unsupported_dtype_message(name))
    info = tvm_ffi.dtype(name)
    return info.type_code, info.bits


def _device_empty(shape: tuple[int, ...], np_dtype: np.dtype[Any], device: Any) -> Tensor:
    """An uninitialized compact tensor on a non-CPU device."""
    api = _device_api.get_device_api(device.dlpack_device_type())
    type_code, bits = _dlpack_dtype(np.dtype(np_dtype))
    count = 1
    for dim in shape:
        count *= dim
    allocation = _DeviceAllocation(api, device, count * np.dtype(np_dtype).itemsize)
    producer = _dlpack.export_memory(
        allocation.ptr,
        shape,
        type_code,
        bits,
        (device.dlpack_device_type(), device.index),
        owner=allocation,
    )
    return cast(Tensor, tvm_ffi.from_dlpack(producer))


def _nbytes(t: Any) -> int:
    count = 1
    for dim in t.shape:
        count *= dim
    return count * _numpy_dtype(str(t.dtype)).itemsize


def _require_compact(t: Any, what: str) -> None:
    if not t.is_contiguous():
        raise ValueError(
            f"{what}: the tensor on {t.device} is not compact (strides {tuple(t.strides)}); "
            "only row-major tensors can be copied to or from a device"
        )


def _host_to_device(array: np.ndarray, target: Any) -> None:
    """Copy a C-contiguous host array into a compact device tensor of the same size."""
    api = _device_api.get_device_api(target.device.dlpack_device_type())
    if array.size:
        api.copy(array.ctypes.data, _CPU0, target.data_ptr(), target.device, array.nbytes)


def _device_to_numpy(t: Any) -> np.ndarray:
    _require_compact(t, "numpy()")
    np_dtype = _numpy_dtype(str(t.dtype))
    result = np.empty(tuple(t.shape), dtype=np_dtype)
    if result.size:
        api = _device_api.get_device_api(t.device.dlpack_device_type())
        api.copy(t.data_ptr(), t.device, result.ctypes.data, _CPU0, result.nbytes)
    return result


def _copy_into_device_tensor(target: Any, source: Any, host_target: bool = False) -> None:
    """``target.copyfrom(source)`` when either side is on a device.

    A device-to-device copy goes through the destination's device API (or the source's
    when the destination is the host); host data is converted to the target's dtype first.
    """
    _require_compact(target, "copyfrom")
    if isinstance(source, _ffi_core.Tensor) and source.device.dlpack_device_type() != _KDLCPU:
        _require_compact(source, "copyfrom")
        if tuple(source.shape) != tuple(target.shape) or str(source.dtype) != str(target.dtype):
            raise ValueError(
                f"copyfrom: shape/dtype mismatch, tensor has {tuple(target.shape)} "
                f"{target.dtype}, source {tuple(source.shape)} {source.dtype}"
            )
        owner = source.device if host_target else target.device
        api = _device_api.get_device_api(owner.dlpack_device_type())
        nbytes = _nbytes(target)
        if nbytes:
            api.copy(source.data_ptr(), source.device, target.data_ptr(), target.device, nbytes)
        return
    if isinstance(source, _ffi_core.Tensor):
        source = source.numpy() if isinstance(source, Tensor) else np.from_dlpack(source)
    source = np.asarray(source)
    shape = tuple(target.shape)
    if source.shape != shape:
        raise ValueError(
            f"copyfrom: shape mismatch, tensor has shape {shape}, source {source.shape}"
        )
    np_dtype = _numpy_dtype(str(target.dtype))
    _host_to_device(np.ascontiguousarray(source.astype(np_dtype, copy=False)), target)


def from_dlpack(ext_tensor: Any, require_alignment: int = 0,
                require_contiguous: bool = False) -> Tensor:
    """Share the memory of any DLPack producer (NumPy, PyTorch, CuPy...) as a :class:`Tensor`.

    Device memory is shared too, without a copy: ``from_dlpack(torch_cuda_tensor)`` is a
    ``cuda`` tensor over the same memory, kept alive by the producer's tensor. A NumPy array
    of an ``ml_dtypes`` type (bfloat16, float8_*), which NumPy's own DLPack refuses, is
    shared through pytvm's exporter; it must be C-contiguous (sharing, not copying).
    """
    if isinstance(ext_tensor, np.ndarray) and ext_tensor.dtype.name in _ML_DTYPE_NAMES:
        if not ext_tensor.flags.c_contiguous:
            raise ValueError(
                f"from_dlpack shares memory: a {ext_tensor.dtype.name} NumPy array must be "
                "C-contiguous (np.ascontiguousarray copies it; tvm.runtime.tensor copies too)"
            )
        return _wrap_host_array(ext_tensor)
    return cast(Tensor, tvm_ffi.from_dlpack(
        ext_tensor, require_alignment=require_alignment, require_contiguous=require_contiguous
    ))
