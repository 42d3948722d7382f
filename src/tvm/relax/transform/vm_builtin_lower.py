"""``VMBuiltinLower``: ``R.memory.*`` (and leftover ``R.builtin.alloc_tensor``) to ``R.vm.*``.

Before::

    storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
    alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    R.memory.kill_storage(storage)

After (VM storage sizes are bytes, of dtype uint8)::

    storage = R.vm.alloc_storage(R.shape([24]), 0, R.dtype("uint8"), R.str("global"))
    alloc = R.vm.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    R.vm.kill_object(storage)

A remaining ``R.builtin.alloc_tensor`` becomes ``R.vm.alloc_storage`` + ``R.vm.alloc_tensor``.
TVM 0.27 names this pass ``LowerRuntimeBuiltin``; both names are exported.
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ..expr import VarBinding
from ..op import vm
from ._utils import (
    byte_size,
    emit_binding,
    is_op,
    rewrite_bindings,
    rewrite_relax_functions,
)

__all__ = ["LowerRuntimeBuiltin", "VMBuiltinLower"]


def _lower(func, bb):
    def rewrite(binding):
        value = binding.value
        out = []
        if is_op(value, "relax.memory.alloc_storage"):
            size, device, scope, _dtype = value.args
            new_value = vm.alloc_storage(size, device, "uint8", scope)
        elif is_op(value, "relax.memory.alloc_tensor"):
            new_value = vm.alloc_tensor(*value.args)
        elif is_op(value, "relax.memory.kill_storage") or is_op(value, "relax.memory.kill_tensor"):
            new_value = vm.kill_object(value.args[0])
        elif is_op(value, "relax.builtin.alloc_tensor"):
            shape, dtype, device, scope = value.args
            storage = emit_binding(
                bb, "storage", vm.alloc_storage([byte_size(value.ty)], device, "uint8", scope)
            )
            out.append(storage)
            new_value = vm.alloc_tensor(storage.var, 0, shape, dtype, device)
        else:
            return None
        out.append(VarBinding(binding.var, bb.normalize(new_value), span=binding.span))
        return out

    return rewrite_bindings(func, rewrite)


@module_pass(opt_level=0, name="VMBuiltinLower")
class VMBuiltinLower:
    """Lower the memory builtins to the ``R.vm`` ops the Relax VM executes."""

    def transform_module(self, mod, ctx):
        """Lower the ``R.memory.*`` ops (and leftover ``R.builtin.alloc_tensor``) of each Relax
        function to ``R.vm.*`` builtins.

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The rewritten module.
        """
        return rewrite_relax_functions(mod, _lower)


def LowerRuntimeBuiltin():
    """TVM 0.27's name of :class:`VMBuiltinLower`."""
    return VMBuiltinLower()
