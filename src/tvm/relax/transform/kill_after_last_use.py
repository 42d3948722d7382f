"""``KillAfterLastUse``: end the lifetime of storages and tensors right after their last use.

Only objects the function allocated (``R.memory.alloc_storage`` / ``alloc_tensor``) are
killed, never parameters nor what the function returns. A storage is dead once its last
tensor is placed in it (the tensor keeps the memory alive), so it is usually killed right
after the ``alloc_tensor``. Uses through aliases (``a = alloc``, tuples) count.

Before::

    storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
    alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    cls.exp(x, alloc)
    ...
    cls.exp(alloc, alloc1)
    return alloc1

After::

    storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
    alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    R.memory.kill_storage(storage)
    cls.exp(x, alloc)
    ...
    cls.exp(alloc, alloc1)
    R.memory.kill_tensor(alloc)
    return alloc1
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ..expr import Tuple, TupleGetItem, Var
from ..op import memory
from ._utils import (
    emit_binding,
    flat_bindings,
    free_relax_vars,
    is_op,
    rebuild_body,
    rewrite_relax_functions,
)

__all__ = ["KillAfterLastUse"]

_KILL = {"relax.memory.alloc_storage": "storage", "relax.memory.alloc_tensor": "tensor"}


def _roots(expr, roots):
    if isinstance(expr, Var):
        return roots.get(expr, [])
    if isinstance(expr, Tuple):
        return [r for f in expr.fields for r in _roots(f, roots)]
    if isinstance(expr, TupleGetItem):
        return _roots(expr.tuple_value, roots)
    return []


def _kill(func, bb):
    items = flat_bindings(func)
    roots = {}  # var -> [allocated vars it may alias]
    kind = {}
    last_use = {}
    for i, (_, binding) in enumerate(items):
        value = binding.value
        for name, what in _KILL.items():
            if is_op(value, name):
                kind[binding.var] = what
                roots[binding.var] = [binding.var]
                last_use[binding.var] = i
        if isinstance(value, (Var, Tuple, TupleGetItem)) and _roots(value, roots):
            roots[binding.var] = _roots(value, roots)
        for var in free_relax_vars(value):
            for root in roots.get(var, []):
                if root is not binding.var:
                    last_use[root] = i
    returned = {r for v in free_relax_vars(func.body.body) for r in roots.get(v, [])}
    kills_after = {}
    for root, i in last_use.items():
        if root not in returned:
            kills_after.setdefault(i, []).append(root)
    if not kills_after:
        return func
    new_blocks = [[] for _ in func.body.blocks]
    for i, (b, binding) in enumerate(items):
        new_blocks[b].append(binding)
        for root in kills_after.get(i, []):
            call = (
                memory.kill_storage(root) if kind[root] == "storage" else memory.kill_tensor(root)
            )
            new_blocks[b].append(emit_binding(bb, "_", call))
    return rebuild_body(func, new_blocks)


@module_pass(opt_level=0, name="KillAfterLastUse")
class KillAfterLastUse:
    """Insert ``R.memory.kill_storage`` / ``kill_tensor`` after each object's last use."""

    def transform_module(self, mod, ctx):
        """Insert ``R.memory.kill_tensor`` / ``kill_storage`` calls right after the last use of
        each tensor and storage a Relax function allocated.

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
        return rewrite_relax_functions(mod, _kill)
