"""Utilities over Relax functions (``tvm.relax.utils``)."""

from __future__ import annotations

from ..ffi.node import Node
from .analysis.type_analysis import substitute_type, tir_vars_in
from .expr import DataflowVar, Function, PrimValue, SeqExpr, ShapeExpr, Var
from .expr_functor import ExprMutator

__all__ = ["copy_with_new_vars", "instantiate_body", "renew_vars"]


class _RenewVars(ExprMutator):
    """Gives every Relax variable and every symbolic TIR variable a fresh copy."""

    def __init__(self, renew_tir=True):
        super().__init__()
        self.tir_map = {}
        self._renew_tir = renew_tir

    def _fresh_tir(self, value):
        if not self._renew_tir:
            return
        for var in tir_vars_in(value):
            if not any(k is var for k in self.tir_map):
                # Lazy: tirx is a lower layer but only needed when symbols exist.
                from ..tirx.expr import Var as TirVar

                self.tir_map[var] = TirVar(var.name, var.dtype)

    def visit_type(self, ty):
        ty = super().visit_type(ty)
        self._fresh_tir(ty)
        return substitute_type(ty, self.tir_map)

    def _renew(self, var, cls):
        new = cls(var.name_hint, None if var.ty is None else self.visit_type(var.ty), var.span)
        self.set_var_remap(var, new)
        return new

    def visit_var_def_(self, var):
        return self._renew(var, Var)

    def visit_dataflow_var_def_(self, var):
        return self._renew(var, DataflowVar)

    def _subst_values(self, values):
        self._fresh_tir(values)
        from .analysis.type_analysis import _subst_expr

        by_id = {id(k): v for k, v in self.tir_map.items()}
        return tuple(_subst_expr(v, by_id) for v in values)

    def visit_shape_expr_(self, op):
        values = self._subst_values(op.values)
        return op if all(a is b for a, b in zip(values, op.values)) else ShapeExpr(values)

    def visit_prim_value_(self, op):
        (value,) = self._subst_values((op.value,))
        return op if value is op.value else PrimValue(value)


def copy_with_new_vars(func: Function) -> Function:
    """A copy of ``func`` where every variable (Relax and symbolic) is a new object.

    The copy is structurally equal to ``func`` but shares no variable with it, so both can
    live in one module (the Gradient pass uses this for the adjoint function's parameters).
    """
    if not isinstance(func, Function):
        raise TypeError(f"copy_with_new_vars expects a relax.Function, got {type(func).__name__}")
    result = _RenewVars().visit_expr(func)
    assert isinstance(result, Node)
    return result


def renew_vars(expr):
    """A copy of ``expr`` (a SeqExpr, a branch) whose bound variables are all new objects.

    Variables used but not bound inside ``expr`` are kept, so the copy can sit next to the
    original in the same scope (the Gradient pass re-emits an ``R.If`` branch this way).
    Symbolic TIR variables are kept: they are defined outside.
    """
    return _RenewVars(renew_tir=False).visit_expr(expr)


def _bind_param_dims(param_ty, arg_ty, tir_map: dict) -> None:
    """Bind the bare symbolic dims of a parameter type to the argument type's dims."""
    if param_ty is None or arg_ty is None:
        return
    fields = getattr(param_ty, "fields", None)
    if fields is not None:
        for sub_param, sub_arg in zip(fields, getattr(arg_ty, "fields", ()) or ()):
            _bind_param_dims(sub_param, sub_arg, tir_map)
        return
    param_shape = getattr(getattr(param_ty, "shape", None), "values", None)
    arg_shape = getattr(getattr(arg_ty, "shape", None), "values", None)
    if param_shape is None or arg_shape is None or len(param_shape) != len(arg_shape):
        return
    for dim, value in zip(param_shape, arg_shape):
        vars_ = tir_vars_in(dim)
        if len(vars_) == 1 and vars_[0] is dim and not any(k is dim for k in tir_map):
            tir_map[dim] = value


def instantiate_body(func: Function, args):
    """The body of ``func`` applied to ``args``: the building block of inlining a call.

    Every variable bound inside the body is a fresh object; uses of the parameters are
    replaced by ``args`` (leaf expressions, as in normal form); a symbolic dim that a
    parameter's type declares bare (``n`` in ``R.Tensor((n, 4))``) takes the argument's dim.

    Parameters
    ----------
    func : relax.Function
        The callee.
    args : list of relax.Expr
        One argument per parameter.

    Returns
    -------
    relax.SeqExpr
        The instantiated body (a SeqExpr even when the body is a plain expression).
    """
    if not isinstance(func, Function):
        raise TypeError(f"instantiate_body expects a relax.Function, got {type(func).__name__}")
    args = list(args)
    if len(args) != len(func.params):
        raise ValueError(
            f"instantiate_body: the function takes {len(func.params)} parameters, "
            f"got {len(args)} arguments"
        )
    renew = _RenewVars()
    for param, arg in zip(func.params, args):
        _bind_param_dims(param.ty, arg.ty, renew.tir_map)
        renew.set_var_remap(param, arg)
    body = func.body
    if not isinstance(body, SeqExpr):
        body = SeqExpr([], body)
    return renew.visit_expr(body)
