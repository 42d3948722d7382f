"""Tensors: ``tvm.runtime.tensor(array, device)`` and ``tvm.runtime.empty(shape, dtype)``.

:class:`Tensor` is ``tvm_ffi``'s DLPack tensor with TVM's NumPy helpers (``numpy()``,
``copyfrom``, ``copyto``). It is installed as ``tvm_ffi``'s tensor class, so tensors returned by
compiled functions and by ``tvm_ffi.from_dlpack`` are :class:`Tensor` too.

Memory is shared with NumPy and PyTorch through DLPack, both ways, without copies
(``tvm_ffi.from_dlpack(np_array)``, ``np.from_dlpack(tensor)``). ``tensor()`` copies its input,
as in TVM, and ``numpy()`` returns a copy.

Limitations: memory is allocated on the CPU only. The ``ml_dtypes`` types bfloat16 and
float8_* work (NumPy's DLPack refuses them, so pytvm exports them itself); float6/float4,
complex and vector dtypes are not supported.
"""

from __future__ import annotations

import numpy as np
import tvm_ffi
from tvm_ffi import core as _ffi_core

from . import _dlpack
from .data_type import FLOAT8_DTYPES
from .device import Device, cpu

__all__ = ["Tensor", "empty", "from_dlpack", "tensor"]

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
        """A NumPy copy of the contents (CPU tensors only)."""
        return self._host_view().copy()

    def _host_view(self) -> np.ndarray:
        """A NumPy view sharing this tensor's memory."""
        if self.device.type != "cpu":
            raise ValueError(
                f"cannot read a tensor on {self.device} into NumPy: pytvm has no device copy "
                "yet; use DLPack with a library that owns that device (e.g. torch)"
            )
        name = str(self.dtype)
        if name in _ML_DTYPE_NAMES:
            return _dlpack.to_numpy_view(self, _numpy_dtype(name))
        return np.from_dlpack(self)

    def copyfrom(self, source) -> Tensor:
        """Copy ``source`` (a NumPy array, list or Tensor) into this tensor; returns self."""
        if isinstance(source, _ffi_core.Tensor):
            source = source.numpy() if isinstance(source, Tensor) else np.from_dlpack(source)
        source = np.asarray(source)
        view = self._host_view()
        if source.shape != view.shape:
            raise ValueError(
                f"copyfrom: shape mismatch, tensor has shape {view.shape}, source {source.shape}"
            )
        view[...] = source.astype(view.dtype, copy=False)
        return self

    def __setitem__(self, key, value):
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

    def copyto(self, target):
        """Copy into a Tensor (returns it) or onto a Device (returns a new Tensor)."""
        if isinstance(target, _ffi_core.Tensor):
            return target.copyfrom(self)
        if isinstance(target, _ffi_core.Device):
            return tensor(self.numpy(), target)
        raise TypeError(f"copyto expects a Tensor or a Device, got {type(target).__name__}")

    def __array__(self, dtype=None, copy=None):
        array = self._host_view()
        if dtype is not None:
            array = array.astype(dtype)
        return array.copy() if copy else array

    def __repr__(self):
        head = f"<tvm.runtime.Tensor shape={tuple(self.shape)}, {self.device}>"
        if self.device.type != "cpu":
            return head
        return f"{head}\n{self.numpy()!r}"

    def __str__(self):
        return str(self.numpy()) if self.device.type == "cpu" else repr(self)


# Make tvm_ffi build our subclass wherever it creates a tensor (from_dlpack, FFI returns).
_ffi_core._set_class_tensor(Tensor)


def _numpy_dtype(dtype) -> np.dtype:
    """NumPy dtype for a dtype name (``"float32"``, ``"bfloat16"``) or a NumPy dtype."""
    name = str(dtype)
    if name in _ML_DTYPE_NAMES:
        import ml_dtypes  # only needed for these dtypes

        return np.dtype(getattr(ml_dtypes, name))
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


def _wrap_host_array(array: np.ndarray) -> Tensor:
    """A Tensor sharing the memory of a C-contiguous CPU NumPy array (kept alive by it)."""
    dtype = array.dtype
    name = dtype.name
    if name in _ML_DTYPE_NAMES:
        info = tvm_ffi.dtype(name)
        storage = array.view(np.uint8 if dtype.itemsize == 1 else np.uint16)
        return tvm_ffi.from_dlpack(_dlpack.export_array(storage, info.type_code, info.bits))
    if dtype.kind not in _NUMPY_DLPACK_KINDS or dtype.itemsize > 8 or not dtype.isnative:
        raise TypeError(_unsupported_dtype_message(name))
    if not array.flags.writeable:
        array = array.copy()
    return tvm_ffi.from_dlpack(array)


def _check_device(device) -> Device:
    if device is None:
        return cpu(0)
    if isinstance(device, str):
        device = tvm_ffi.device(device)
    if not isinstance(device, _ffi_core.Device):
        raise TypeError(f"expected a Device, got {type(device).__name__}")
    if device.type != "cpu":
        raise ValueError(
            f"cannot allocate a tensor on {device}: pytvm only allocates CPU memory so far; "
            "create device tensors with torch or cupy and pass them in through DLPack"
        )
    return device


def tensor(arr, device=None, mem_scope=None) -> Tensor:
    """A new Tensor holding a copy of ``arr`` (NumPy array, list, scalar or Tensor).

    Parameters
    ----------
    arr
        The data. Lists and scalars go through ``numpy.asarray`` (so ``[1, 2]`` is int64).
    device : Device, optional
        Where to put it; CPU (the default) is the only device supported so far.
    mem_scope : None
        Memory scopes are not supported; must be None.

    Raises
    ------
    TypeError
        For unsupported dtypes (complex, object, strings, float6/float4).
    ValueError
        For devices other than CPU.
    """
    if mem_scope is not None:
        raise ValueError(f"mem_scope={mem_scope!r} is not supported yet (only None)")
    _check_device(device)
    if isinstance(arr, _ffi_core.Tensor):
        arr = arr.numpy() if isinstance(arr, Tensor) else np.from_dlpack(arr)
    array = np.array(arr, order="C", copy=True)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("="))
    return _wrap_host_array(array)


def empty(shape, dtype="float32", device=None, mem_scope=None) -> Tensor:
    """An uninitialized Tensor of the given shape and dtype (a dtype name or NumPy dtype)."""
    if mem_scope is not None:
        raise ValueError(f"mem_scope={mem_scope!r} is not supported yet (only None)")
    _check_device(device)
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(dim) for dim in shape)
    if any(dim < 0 for dim in shape):
        raise ValueError(f"empty: negative dimension in shape {shape}")
    return _wrap_host_array(np.empty(shape, dtype=_numpy_dtype(dtype)))


def from_dlpack(ext_tensor, require_alignment: int = 0, require_contiguous: bool = False):
    """Share the memory of any DLPack producer (NumPy, PyTorch, ...) as a :class:`Tensor`."""
    return tvm_ffi.from_dlpack(
        ext_tensor, require_alignment=require_alignment, require_contiguous=require_contiguous
    )
