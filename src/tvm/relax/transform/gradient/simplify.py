"""GradientSimplifier (spec F.5): transpose/matmul rewrites on the adjoint function.

Here a *transpose* is an ``R.permute_dims`` swapping exactly the last two axes of a tensor
of known rank >= 2 (``axes=None`` counts only for rank 2). The rewrites are

1. ``T(T(a))`` with ``a`` a variable -> ``a`` (a variable remap, no binding emitted);
2. ``T(matmul(a, b))`` with neither input 1-D -> ``matmul(T(b), T(a))`` (same ``out_dtype``),
   where ``T(v)`` reuses ``u`` when ``v`` is itself bound to a transpose of ``u``.

Unused bindings are removed afterwards.
"""

from __future__ import annotations

from ....ir.transform import module_pass
from ...analysis import remove_all_unused
from ...block_builder import BlockBuilder
from ...expr import Call, DataflowBlock, DataflowVar, Function, Var, VarBinding
from ...op import matmul, permute_dims
from .checkpoint import substitute

__all__ = ["GradientSimplifier", "simplify_gradient"]


def _op_name(value):
    return getattr(value.op, "name", None) if isinstance(value, Call) else None


def _ndim(expr):
    return getattr(expr.ty, "ndim", -1)


def is_transpose(value) -> bool:
    """Whether ``value`` is a ``permute_dims`` that swaps only the last two axes."""
    if _op_name(value) != "relax.permute_dims":
        return False
    ndim = _ndim(value.args[0])
    if ndim is None or ndim < 2:
        return False
    axes = value.attrs.axes
    if axes is None:
        return ndim == 2
    expected = list(range(ndim - 2)) + [ndim - 1, ndim - 2]
    return [int(a) for a in axes] == expected


def _transpose_axes(ndim):
    return list(range(ndim - 2)) + [ndim - 1, ndim - 2]


class _Simplifier:
    def __init__(self, bb):
        self._bb = bb
        self.values = {}  # var -> its (rewritten) value
        self.remap = {}

    def _transposed(self, var):
        """``T(var)``: the source of a transpose binding, or a newly emitted transpose."""
        value = self.values.get(var)
        if value is not None and is_transpose(value) and isinstance(value.args[0], Var):
            return value.args[0]
        return self._bb.emit(permute_dims(var, _transpose_axes(_ndim(var))))

    def rewrite(self, binding):
        value = substitute(binding.value, self.remap)
        var = binding.var
        if is_transpose(value) and isinstance(value.args[0], Var):
            inner = self.values.get(value.args[0])
            if is_transpose(inner) and isinstance(inner.args[0], Var):
                # Rule 1: a transpose of a transpose is the original variable.
                source = inner.args[0]
                if isinstance(var, DataflowVar) or not isinstance(source, DataflowVar):
                    self.remap[var] = source
                    return None
                value = source
            elif _op_name(inner) == "relax.matmul":
                a, b = inner.args
                if _ndim(a) not in (None, 1) and _ndim(b) not in (None, 1) and _ndim(a) >= 2:
                    # Rule 2: (a @ b)^T = b^T @ a^T.
                    tb = self._transposed(b)
                    ta = self._transposed(a)
                    value = self._bb.normalize(matmul(tb, ta, inner.attrs.out_dtype))
        self.values[var] = value
        return VarBinding(var, value) if value is not binding.value else binding


def simplify_gradient(func: Function) -> Function:
    """Apply the F.5 rewrites to a function whose body is one dataflow block."""
    blocks = func.body.blocks
    if len(blocks) != 1 or not isinstance(blocks[0], DataflowBlock):
        return func
    bb = BlockBuilder()
    attrs = dict((func.attrs or {}).items())
    name = attrs.get("global_symbol", "main")
    with bb.function(str(name), list(func.params), attrs=attrs, pure=func.is_pure):
        with bb.dataflow():
            simplifier = _Simplifier(bb)
            for binding in blocks[0].bindings:
                new = simplifier.rewrite(binding) if isinstance(binding, VarBinding) else binding
                if new is not None:
                    bb.emit_normalized(new)
        bb.emit_func_output(substitute(func.body.body, simplifier.remap))
    result = bb.get()[str(name)]
    return remove_all_unused(result)


def GradientSimplifier():
    """The simplifier as a module pass (``"GradientSimplifier"``) over every Relax function
    whose body is a single dataflow block; ``Gradient`` runs it on the adjoint function."""

    def _transform(mod, _ctx):
        new_mod = mod.clone()
        for gvar, func in mod.functions.items():
            if isinstance(func, Function):
                new_mod[gvar] = simplify_gradient(func)
        return new_mod

    return module_pass(_transform, opt_level=0, name="GradientSimplifier")
