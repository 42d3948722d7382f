"""``StaticPlanBlockMemory``: plan ``R.builtin.alloc_tensor`` into reused storage blocks.

Within a function, every ``R.builtin.alloc_tensor`` whose tensor does not escape (is not part
of the returned value) gets a *storage token*. A token is released after the last use of its
tensor (through any alias: ``a = alloc``, tuples, tuple items) and a later allocation of the
same byte size and dtype reuses it. Each token becomes one ``R.memory.alloc_storage``, emitted
just before its first tensor; each planned tensor becomes an ``R.memory.alloc_tensor`` at
offset 0. Escaping allocations are left to ``LowerAllocTensor``.

Before::

    alloc = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
    cls.exp(x, alloc)
    alloc1 = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
    cls.exp(alloc, alloc1)
    alloc2 = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
    cls.exp(alloc1, alloc2)
    alloc3 = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
    cls.exp(alloc2, alloc3)
    return alloc3

After (``alloc2`` reuses the storage of ``alloc``, dead after the second call)::

    storage = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
    alloc = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    cls.exp(x, alloc)
    storage1 = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
    alloc1 = R.memory.alloc_tensor(storage1, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    cls.exp(alloc, alloc1)
    alloc2 = R.memory.alloc_tensor(storage, 0, R.shape([2, 3]), R.dtype("float32"), 0)
    cls.exp(alloc1, alloc2)
    alloc3 = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
    cls.exp(alloc2, alloc3)
    return alloc3

The storage size is in bytes. Symbolic sizes are reused only by an allocation whose size is
structurally the same expression.
"""

from __future__ import annotations

from ...ffi.structural import structural_equal
from ...ir.transform import module_pass
from ..expr import Tuple, TupleGetItem, Var, VarBinding
from ..op import memory
from ..ty import TensorType
from ._utils import (
    byte_size,
    emit_binding,
    flat_bindings,
    free_relax_vars,
    is_op,
    rebuild_body,
    rewrite_relax_functions,
)

__all__ = ["StaticPlanBlockMemory"]


class _Token:
    def __init__(self, size, dtype):
        self.size = size
        self.dtype = dtype
        self.storage_var = None  # set when its alloc_storage is emitted


def _tokens_of(expr, tokens):
    """The storage tokens an expression may alias (vars, tuples, tuple items)."""
    if isinstance(expr, Var):
        return tokens.get(expr, [])
    if isinstance(expr, Tuple):
        return [t for f in expr.fields for t in _tokens_of(f, tokens)]
    if isinstance(expr, TupleGetItem):
        return _tokens_of(expr.tuple_value, tokens)
    return []


def _plannable(value):
    """An ``R.builtin.alloc_tensor`` of known shape."""
    return (
        is_op(value, "relax.builtin.alloc_tensor")
        and isinstance(value.ty, TensorType)
        and getattr(value.ty.shape, "values", None) is not None
    )


def _plan_function(func, bb):
    items = flat_bindings(func)
    tokens = {}  # var -> [tokens it may alias]
    own = {}  # binding index -> token of a planned alloc
    last_use = {}  # id(token) -> binding index of the last use
    for i, (_, binding) in enumerate(items):
        value = binding.value
        if _plannable(value):
            token = _Token(byte_size(value.ty), value.ty.dtype)
            own[i] = token
            tokens[binding.var] = [token]
            last_use[id(token)] = i
            continue
        if isinstance(value, (Var, Tuple, TupleGetItem)):
            aliased = _tokens_of(value, tokens)
            if aliased:
                tokens[binding.var] = aliased
        for var in free_relax_vars(value):
            for token in tokens.get(var, []):
                last_use[id(token)] = i
    escaping = {id(t) for v in free_relax_vars(func.body.body) for t in tokens.get(v, [])}

    # Assign storage: a token whose tensor is dead is released to a pool for reuse.
    storage_of = {}  # binding index -> the token whose storage it uses
    pool = []
    release_at = {}
    for i in range(len(items)):
        token = own.get(i)
        if token is not None and id(token) not in escaping:
            reused = next(
                (
                    p
                    for p in pool
                    if p.dtype == token.dtype and structural_equal(p.size, token.size)
                ),
                None,
            )
            if reused is not None:
                pool.remove(reused)
            storage_of[i] = reused or token
            release_at.setdefault(last_use[id(token)], []).append(storage_of[i])
        pool.extend(release_at.pop(i, []))

    if not storage_of:
        return func
    new_blocks = [[] for _ in func.body.blocks]
    for i, (b, binding) in enumerate(items):
        store = storage_of.get(i)
        if store is None:
            new_blocks[b].append(binding)
            continue
        value = binding.value
        if store.storage_var is None:
            call = memory.alloc_storage([store.size], 0, "global", store.dtype)
            storage_binding = emit_binding(bb, "storage", call)
            store.storage_var = storage_binding.var
            new_blocks[b].append(storage_binding)
        shape, dtype = value.args[0], value.args[1]
        tensor = bb.normalize(memory.alloc_tensor(store.storage_var, 0, shape, dtype, 0))
        new_blocks[b].append(VarBinding(binding.var, tensor, span=binding.span))
    return rebuild_body(func, new_blocks)


@module_pass(opt_level=0, name="StaticPlanBlockMemory")
class StaticPlanBlockMemory:
    """Plan non-escaping ``R.builtin.alloc_tensor`` into reused ``R.memory`` storage."""

    def transform_module(self, mod, ctx):
        """Plan the ``R.builtin.alloc_tensor`` calls whose tensors do not escape into shared
        ``R.memory.alloc_storage`` blocks (same byte size and dtype, disjoint lifetimes).

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
        return rewrite_relax_functions(mod, _plan_function)
