"""``LowerAllocTensor``: the ``R.builtin.alloc_tensor`` left by planning get their own storage.

Before::

    alloc = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))

After (the storage size is in bytes, of dtype uint8, as in TVM)::

    storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("uint8"))
    alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ..block_builder import BlockBuilder
from ..expr import VarBinding
from ..op import memory
from ..ty import TensorType
from ._utils import byte_size, emit_binding, flat_bindings, is_op, rebuild_body, relax_functions

__all__ = ["LowerAllocTensor"]


def _lower(func, bb):
    items = flat_bindings(func)
    new_blocks = [[] for _ in func.body.blocks]
    changed = False
    for b, binding in items:
        value = binding.value
        if not is_op(value, "relax.builtin.alloc_tensor"):
            new_blocks[b].append(binding)
            continue
        ty = value.ty
        if not isinstance(ty, TensorType) or getattr(ty.shape, "values", None) is None:
            raise ValueError(
                f"LowerAllocTensor: {binding.var.name_hint} allocates a tensor of unknown shape "
                f"({ty}); its size cannot be computed"
            )
        changed = True
        storage = emit_binding(
            bb, "storage", memory.alloc_storage([byte_size(ty)], 0, "global", "uint8")
        )
        new_blocks[b].append(storage)
        tensor = bb.normalize(memory.alloc_tensor(storage.var, 0, value.args[0], value.args[1], 0))
        new_blocks[b].append(VarBinding(binding.var, tensor, span=binding.span))
    return rebuild_body(func, new_blocks) if changed else func


@module_pass(opt_level=0, name="LowerAllocTensor")
class LowerAllocTensor:
    """Give every remaining ``R.builtin.alloc_tensor`` its own ``R.memory`` storage."""

    def transform_module(self, mod, ctx):
        bb = BlockBuilder(mod)
        for gvar, func in relax_functions(mod):
            new_func = _lower(func, bb)
            if new_func is not func:
                bb.update_func(gvar, new_func)
        return bb.get()
