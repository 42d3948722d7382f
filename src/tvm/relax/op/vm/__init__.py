"""VM-level memory ops made by ``VMBuiltinLower`` (``R.vm.*``); the Relax VM runs them.

* ``alloc_storage(size, runtime_device_index, dtype, storage_scope)`` -> a storage object of
  ``size`` bytes (``size`` is a 1-d shape);
* ``alloc_tensor(storage, offset, shape, dtype, runtime_device_index=0)`` -> a tensor view;
* ``kill_object(obj)`` releases the register holding ``obj``.
"""

from __future__ import annotations

from ...expr import Call
from ..memory._args import (
    as_dtype,
    as_int,
    as_shape,
    as_str,
    infer_object,
    infer_tensor_in_storage,
    infer_unit,
)
from ..registry import register_relax_op

__all__ = ["alloc_storage", "alloc_tensor", "call_builtin_with_ctx", "kill_object"]


_ALLOC_STORAGE = register_relax_op(
    "vm.alloc_storage",
    4,
    "vm",
    infer_object,
    purity=False,
    description="Allocate a storage block of a byte size on a device.",
)
_ALLOC_TENSOR = register_relax_op(
    "vm.alloc_tensor",
    5,
    "vm",
    infer_tensor_in_storage,
    purity=False,
    description="A tensor placed in a storage block at a byte offset.",
)
_KILL_OBJECT = register_relax_op(
    "vm.kill_object",
    1,
    "vm",
    infer_unit,
    purity=False,
    description="Release the register holding an object.",
)


def alloc_storage(size, runtime_device_index, dtype, storage_scope="global") -> Call:
    """``R.vm.alloc_storage(size, runtime_device_index, dtype, storage_scope)``."""
    args = [as_shape(size), as_int(runtime_device_index), as_dtype(dtype), as_str(storage_scope)]
    return Call(_ALLOC_STORAGE, args)


def alloc_tensor(storage, offset, shape, dtype, runtime_device_index=0) -> Call:
    """``R.vm.alloc_tensor(storage, offset, shape, dtype, runtime_device_index=0)``."""
    args = [storage, as_int(offset), as_shape(shape), as_dtype(dtype), as_int(runtime_device_index)]
    return Call(_ALLOC_TENSOR, args)


def kill_object(obj) -> Call:
    """``R.vm.kill_object(obj)``."""
    return Call(_KILL_OBJECT, [obj])


def _infer_builtin_with_ctx(call, _bb=None):
    from ...ty import ObjectType

    return call.ty_args[0] if call.ty_args else ObjectType()


_CALL_BUILTIN_WITH_CTX = register_relax_op(
    "call_builtin_with_ctx",
    2,
    "vm",
    _infer_builtin_with_ctx,
    purity=False,
    description="Call a VM builtin, passing the VM context first.",
)


def call_builtin_with_ctx(func, args, ty_args=None, *, sinfo_args=None) -> Call:
    """``R.call_builtin_with_ctx(func, args, ty_args=...)``: a VM builtin given the VM context."""
    from ...expr import ExternFunc, Tuple

    ty_args = ty_args if ty_args is not None else sinfo_args
    if isinstance(func, str):
        func = ExternFunc(func)
    if not isinstance(args, Tuple):
        args = Tuple([as_int(a) for a in args])
    if ty_args is not None and not isinstance(ty_args, (list, tuple)):
        ty_args = [ty_args]
    return Call(_CALL_BUILTIN_WITH_CTX, [func, args], None, list(ty_args or []))
