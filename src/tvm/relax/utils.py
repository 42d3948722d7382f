"""Utilities over Relax functions (``tvm.relax.utils``)."""

from __future__ import annotations

from ..ffi.node import Node
from .analysis.type_analysis import substitute_type, tir_vars_in
from .expr import DataflowVar, Function, PrimValue, ShapeExpr, Var
from .expr_functor import ExprMutator

__all__ = ["copy_with_new_vars"]


class _RenewVars(ExprMutator):
    """Gives every Relax variable and every symbolic TIR variable a fresh copy."""

    def __init__(self):
        super().__init__()
        self.tir_map = {}

    def _fresh_tir(self, value):
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
