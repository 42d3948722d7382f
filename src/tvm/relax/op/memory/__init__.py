"""Explicit memory ops made by ``StaticPlanBlockMemory`` (``R.memory.*``).

* ``alloc_storage(size, virtual_device_index, storage_scope, dtype)`` -> an opaque storage
  object of ``size`` (a 1-d shape, in elements of ``dtype``... as TVM: a byte count when
  ``dtype`` is uint8);
* ``alloc_tensor(storage, offset, shape, dtype, runtime_device_index=0)`` -> a tensor view of
  the storage at byte ``offset``;
* ``kill_storage(storage)`` / ``kill_tensor(tensor)`` end a lifetime (they return ``()``).
"""

from __future__ import annotations

from ...expr import Call
from ..registry import register_relax_op
from ._args import (
    as_dtype,
    as_int,
    as_shape,
    as_str,
    infer_object,
    infer_tensor_in_storage,
    infer_unit,
)

__all__ = ["alloc_storage", "alloc_tensor", "kill_storage", "kill_tensor"]


_ALLOC_STORAGE = register_relax_op(
    "memory.alloc_storage",
    4,
    "memory",
    infer_object,
    purity=False,
    description="Allocate a storage block.",
)
_ALLOC_TENSOR = register_relax_op(
    "memory.alloc_tensor",
    5,
    "memory",
    infer_tensor_in_storage,
    purity=False,
    description="A tensor placed in a storage block at an offset.",
)
_KILL_STORAGE = register_relax_op(
    "memory.kill_storage",
    1,
    "memory",
    infer_unit,
    purity=False,
    description="End the lifetime of a storage block.",
)
_KILL_TENSOR = register_relax_op(
    "memory.kill_tensor",
    1,
    "memory",
    infer_unit,
    purity=False,
    description="End the lifetime of a tensor.",
)


def alloc_storage(size, virtual_device_index, storage_scope, dtype) -> Call:
    """``R.memory.alloc_storage(size, virtual_device_index, storage_scope, dtype)``."""
    args = [as_shape(size), as_int(virtual_device_index), as_str(storage_scope), as_dtype(dtype)]
    return Call(_ALLOC_STORAGE, args)


def alloc_tensor(storage, offset, shape, dtype, runtime_device_index=0) -> Call:
    """``R.memory.alloc_tensor(storage, offset, shape, dtype, runtime_device_index=0)``."""
    args = [storage, as_int(offset), as_shape(shape), as_dtype(dtype), as_int(runtime_device_index)]
    return Call(_ALLOC_TENSOR, args)


def kill_storage(storage) -> Call:
    """``R.memory.kill_storage(storage)``."""
    return Call(_KILL_STORAGE, [storage])


def kill_tensor(tensor) -> Call:
    """``R.memory.kill_tensor(tensor)``."""
    return Call(_KILL_TENSOR, [tensor])
