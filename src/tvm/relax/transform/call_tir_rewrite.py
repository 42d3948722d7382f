"""``CallTIRRewrite``: ``R.call_tir`` / ``R.call_dps_packed`` with explicit output allocation.

Before::

    lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((2, 3), dtype="float32"))

After (the function gets ``"relax.force_pure": True``, since the direct call writes into its
argument)::

    alloc = R.builtin.alloc_tensor(R.shape([2, 3]), R.dtype("float32"), 0, R.str("global"))
    cls.exp(x, alloc)
    lv = alloc

Tuple outputs get one allocation each and ``lv = (alloc, alloc1)``; ``tir_vars`` are passed
after the outputs. ``R.call_tir_inplace`` allocates only its new (index -1) outputs; an in-place
output is the input it overwrites (``cls.zeros(x); lv = x``). Runs after ``ToNonDataflow`` (the direct call is impure).
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ...ir.type import TupleType
from ..expr import Call, ShapeExpr, Tuple, TupleGetItem
from ..expr_functor import ExprMutator
from ..op.builtin import alloc_tensor
from ..ty import TensorType
from ._utils import is_op, relax_functions

__all__ = ["CallTIRRewrite"]


def _fields(expr):
    if isinstance(expr, Tuple):
        return list(expr.fields)
    return [TupleGetItem(expr, i) for i in range(len(expr.ty.fields))]


class _Rewriter(ExprMutator):
    def __init__(self, mod):
        super().__init__(mod)
        self.changed = False

    def visit_var_binding_(self, binding):
        value = self.visit_expr(binding.value)
        inplace = is_op(value, "relax.call_tir_inplace")
        if not (inplace or is_op(value, "relax.call_tir")
                or is_op(value, "relax.call_dps_packed")):
            self._reemit(binding, value)
            return
        self.changed = True
        callee, args = value.args[0], value.args[1]
        out_ty = value.ty
        # Nested tuple outputs are flattened for the call and rebuilt for the result.
        out_types = _flatten(out_ty) if isinstance(out_ty, TupleType) else [out_ty]
        indices = (
            [int(i) for i in value.attrs.inplace_indices] if inplace else [-1] * len(out_types)
        )
        allocs, results = [], []
        for ty, index in zip(out_types, indices):
            if index != -1:
                # An in-place output is the input it overwrites: no allocation.
                results.append(_fields(args)[index])
                continue
            shape = _alloc_shape(ty)
            if shape is None:
                raise ValueError(
                    f"CallTIRRewrite: the output of {binding.var.name_hint} must be a tensor "
                    f"of known shape to be allocated, but its type is {ty}"
                )
            alloc = alloc_tensor(shape, ty.dtype, 0, "global")
            allocs.append(self.builder_.emit(alloc, name_hint="alloc"))
            results.append(allocs[-1])
        call_args = _fields(args) + allocs
        if len(value.args) > 2:
            extra = value.args[2]
            # tir_vars: a shape expression, or a variable of known shape type (its dims).
            values = extra.values if isinstance(extra, ShapeExpr) else extra.ty.values
            call_args += list(values)
            call_args = [_as_value(a) for a in call_args]
        self.builder_.emit(Call(callee, call_args), name_hint="_")
        single = len(results) == 1 and not isinstance(out_ty, TupleType)
        result = results[0] if single else _rebuild(out_ty, iter(results))
        bound = self.builder_.emit(result, name_hint=binding.var.name_hint)
        self.set_var_remap(binding.var, bound)


def _flatten(ty):
    """The leaf types of a (nested) tuple type, in order."""
    if isinstance(ty, TupleType):
        return [leaf for field in ty.fields for leaf in _flatten(field)]
    return [ty]


def _rebuild(ty, leaves):
    """A (nested) Tuple of the next leaves with the structure of ``ty``."""
    if isinstance(ty, TupleType):
        return Tuple([_rebuild(field, leaves) for field in ty.fields])
    return next(leaves)


def _alloc_shape(ty):
    """The shape argument of an allocation of type ``ty``: its dims, or the shape variable
    that holds them (a tensor typed by a ``match_cast`` shape), else None."""
    if not isinstance(ty, TensorType):
        return None
    values = getattr(ty.shape, "values", None)
    if values is not None:
        return list(values)
    shape_ty = getattr(ty.shape, "ty", None)
    if getattr(shape_ty, "values", None) is not None:
        return ty.shape
    return None


def _as_value(arg):
    """A TIR dim passed to a PrimFunc becomes a ``PrimValue`` argument."""
    from ...ir.expr import PrimExpr
    from ..expr import PrimValue

    if isinstance(arg, PrimExpr):
        return PrimValue(arg)
    return arg


@module_pass(opt_level=0, name="CallTIRRewrite")
class CallTIRRewrite:
    """Make the outputs of ``call_tir`` / ``call_dps_packed`` explicit allocations."""

    def transform_module(self, mod, ctx):
        """Turn ``call_tir`` / ``call_dps_packed`` into explicit output allocation plus a call
        of each Relax function (changed pure functions get ``relax.force_pure``).

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The rewritten module (a new one; the input is not modified).
        """
        rewriter = _Rewriter(mod)
        for gvar, func in relax_functions(mod):
            rewriter.changed = False
            new_func = rewriter.visit_expr(func)
            if rewriter.changed and new_func.is_pure:
                # An impure function needs no override (TVM's well-formedness forbids
                # relax.force_pure on it).
                new_func = new_func.with_attr("relax.force_pure", True)
            if new_func is not func:
                rewriter.builder_.update_func(gvar, new_func)
        return rewriter.builder_.get()
