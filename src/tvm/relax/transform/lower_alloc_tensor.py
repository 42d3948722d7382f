"""``LowerAllocTensor``: the ``R.builtin.alloc_tensor`` left by planning get their own storage.

Allocations inside ``If`` branches (never planned) are lowered too.

Before::

    alloc = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))

After (the storage size is in bytes, of dtype uint8, as in TVM)::

    storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("uint8"))
    alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ..expr import VarBinding
from ..op import memory
from ..ty import TensorType
from ._utils import (
    byte_size,
    emit_binding,
    is_op,
    rewrite_bindings,
    rewrite_relax_functions,
)

__all__ = ["LowerAllocTensor"]


def _lower(func, bb):
    def rewrite(binding):
        value = binding.value
        if not is_op(value, "relax.builtin.alloc_tensor"):
            return None
        ty = value.ty
        if not isinstance(ty, TensorType) or getattr(ty.shape, "values", None) is None:
            raise ValueError(
                f"LowerAllocTensor: {binding.var.name_hint} allocates a tensor of unknown shape "
                f"({ty}); its size cannot be computed"
            )
        storage = emit_binding(
            bb, "storage", memory.alloc_storage([byte_size(ty)], 0, "global", "uint8")
        )
        tensor = bb.normalize(memory.alloc_tensor(storage.var, 0, value.args[0], value.args[1], 0))
        return [storage, VarBinding(binding.var, tensor, span=binding.span)]

    return rewrite_bindings(func, rewrite)


@module_pass(opt_level=0, name="LowerAllocTensor")
class LowerAllocTensor:
    """Give every remaining ``R.builtin.alloc_tensor`` its own ``R.memory`` storage."""

    def transform_module(self, mod, ctx):
        """Give each ``R.builtin.alloc_tensor`` left by planning its own storage:
        ``R.memory.alloc_storage`` plus ``R.memory.alloc_tensor``.

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
