"""Memory of a ``relax.VirtualMachine`` running on a non-CPU device (``tvm.cuda()``).

The VM code is the same for every device; a VM on a device links it with the allocation
functions of :class:`DeviceMemory` instead of NumPy's:

* outputs of ``R.call_tir`` and ``R.builtin.alloc_tensor``: ``tvm.runtime.empty(shape, dtype,
  device)`` (memory from the device API table, ``tvm.runtime.device_api``);
* statically planned buffers: one device storage per planned storage, each buffer a tensor
  view at its offset (the storage stays alive while a view does);
* ``R.vm.alloc_storage`` / ``alloc_tensor``: a device byte tensor, views into it;
* constants of the module (bound weights): copied to the device once, when the VM links;
* arguments: host arrays (NumPy, CPU tensors) are copied to the device on each call; device
  tensors are passed as they are. Results stay on the device (``.numpy()`` copies back).

Not supported on a device yet: ops the VM runs through NumPy reference implementations (not
legalized to PrimFuncs); their kernels get host arrays and the host launcher's device check
rejects them with a ``ValueError``.
"""

from __future__ import annotations

import numpy as np
import tvm_ffi

from ...runtime import _dlpack, device_api, empty, tensor
from .builtins import storage_bytes

__all__ = ["DeviceMemory"]


class DeviceMemory:
    """Allocation and copy functions of a VM on ``device`` (see the module docstring)."""

    def __init__(self, device):
        self.device = device
        self.device_type = int(device.dlpack_device_type())
        device_api.get_device_api(self.device_type)  # ValueError: no backend for the device

    # --- allocation ------------------------------------------------------------------------
    def empty(self, shape, dtype):
        """An uninitialized tensor on the device."""
        return empty(tuple(int(d) for d in shape), dtype, self.device)

    def empty_named(self, shape, dtype):
        """``_empty_tensor``: same as :meth:`empty` (dtype given by name)."""
        return self.empty(shape, str(dtype))

    def view(self, storage, offset: int, shape, dtype):
        """A compact tensor of ``shape``/``dtype`` inside device ``storage`` at byte ``offset``."""
        np_dtype = np.dtype(dtype) if not isinstance(dtype, np.dtype) else dtype
        shape = tuple(int(d) for d in shape)
        nbytes = int(np.prod(shape, dtype=np.int64)) * np_dtype.itemsize
        size = int(storage.shape[0])
        if offset + nbytes > size:
            raise ValueError(
                f"VirtualMachine: alloc_tensor of {nbytes} bytes at offset {offset} does not "
                f"fit in a storage of {size} bytes"
            )
        info = tvm_ffi.dtype(np_dtype.name)
        producer = _dlpack.export_memory(
            storage.data_ptr() + offset, shape, info.type_code, info.bits,
            (self.device_type, self.device.index), owner=storage,
        )
        return tvm_ffi.from_dlpack(producer)

    def reshape_view(self, x, shape):
        """``R.reshape`` at run time on the device: a tensor of ``shape`` sharing ``x``'s
        memory (``x`` is compact: kernels and allocations only make compact tensors)."""
        if isinstance(x, np.ndarray):
            return self.to_device(x.reshape(shape))
        shape = tuple(int(d) for d in shape)
        if int(np.prod(shape, dtype=np.int64)) != int(np.prod(x.shape, dtype=np.int64)):
            raise ValueError(f"VirtualMachine: cannot view a tensor of shape {tuple(x.shape)} "
                             f"as {shape}")
        info = tvm_ffi.dtype(str(x.dtype))
        producer = _dlpack.export_memory(
            x.data_ptr(), shape, info.type_code, info.bits,
            (self.device_type, self.device.index), owner=x,
        )
        return tvm_ffi.from_dlpack(producer)

    def alloc_storage(self, size, device_index=0, dtype="uint8", scope="global"):
        """``vm.builtin.alloc_storage`` on the device: a byte tensor of ``prod(size)``
        elements of ``dtype``."""
        return self.empty((max(storage_bytes(size, dtype), 1),), "uint8")

    def memory_alloc_storage(self, size, device_index=0, scope="global", dtype="uint8"):
        """``memory.alloc_storage`` (argument order of ``R.memory``)."""
        return self.alloc_storage(size, device_index, dtype, scope)

    def alloc_tensor(self, storage, offset, shape, dtype, device_index=0):
        """``vm.builtin.alloc_tensor`` on the device: a view into ``storage``."""
        from ..op.registry import reference_dtype  # lazy: the dtype table

        return self.view(storage, int(offset), shape, reference_dtype(dtype))

    def planned_buffers(self, code) -> dict:
        """The planned slots of a function, as views into device storages (made once)."""
        storage_of = getattr(code, "storage_of", None) or {}
        storages = [self.empty((max(n, 1),), "uint8")
                    for n in getattr(code, "storage_sizes", ())]
        mem = {}
        for slot, shape, dtype in code.planned:
            index = storage_of.get(slot)
            if index is None:
                mem[slot] = self.empty(shape, dtype)
            else:
                mem[slot] = self.view(storages[index], 0, shape, dtype)
        return mem

    # --- copies ------------------------------------------------------------------------------
    def to_device(self, value):
        """``value`` on the device: host arrays are copied, tuples converted field by field."""
        if isinstance(value, np.ndarray):
            # np.require keeps 0-d arrays 0-d (ascontiguousarray makes them 1-d).
            return tensor(np.require(value, requirements="C"), self.device)
        if isinstance(value, (tuple, list)):
            return type(value)(self.to_device(v) for v in value)
        device = getattr(value, "device", None)
        if device is not None and hasattr(value, "copyto") and hasattr(device, "dlpack_device_type") \
                and int(device.dlpack_device_type()) == 1:
            return value.copyto(self.device)
        return value

    def constants(self, namespace: dict) -> dict:
        """Copies of the NumPy array constants of generated code, on the device."""
        return {key: self.to_device(value) for key, value in namespace.items()
                if isinstance(value, np.ndarray)}

    def wrap_function(self, func):
        """``func`` with its arguments copied to the device first (host arrays only)."""
        to_device = self.to_device

        def on_device(*args):
            return func(*[to_device(a) for a in args])

        on_device.__name__ = getattr(func, "__name__", "main")
        on_device.__wrapped__ = func
        return on_device
