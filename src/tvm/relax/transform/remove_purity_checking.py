"""``RemovePurityChecking``: pure functions are marked ``"relax.force_pure"`` and their pure
packed calls become ordinary ones, so that later (impure, destination-passing) lowering needs
no purity bookkeeping.

Before::

    @R.function
    def f(x: R.Tensor((), "int32")):
        z = R.call_pure_packed("vm.builtin.copy", x, ty_args=R.Tensor((), "int32"))
        return z

After::

    @R.function
    def f(x: R.Tensor((), "int32")):
        R.func_attr({"relax.force_pure": True})
        z = R.call_packed("vm.builtin.copy", x, ty_args=R.Tensor((), "int32"))
        return z

``R.invoke_pure_closure`` becomes ``R.invoke_closure``. Nested pure functions are treated the
same way; impure functions (and everything inside them) are left as they are.
"""

from __future__ import annotations

from ...ir.op import Op
from ...ir.transform import module_pass
from ..expr import Call
from ..expr_functor import ExprMutator
from ._utils import is_op, map_functions

__all__ = ["RemovePurityChecking"]


class _Remover(ExprMutator):
    def visit_function_(self, op):
        if not op.is_pure:
            return op  # an impure function keeps its calls as written
        func = super().visit_function_(op)
        return func.with_attr("relax.force_pure", True)

    def visit_call_(self, op):
        call = super().visit_call_(op)
        if is_op(call, "relax.call_pure_packed"):
            return Call(call.args[0], list(call.args[1:]), call.attrs, list(call.ty_args),
                        span=call.span)
        if is_op(call, "relax.invoke_pure_closure"):
            return Call(Op.get("relax.invoke_closure"), list(call.args), call.attrs,
                        list(call.ty_args), span=call.span)
        return call


@module_pass(opt_level=0, name="RemovePurityChecking")
class RemovePurityChecking:
    """Mark pure functions ``relax.force_pure`` and make their pure calls plain calls."""

    def transform_module(self, mod, ctx):
        """Mark each pure Relax function ``relax.force_pure`` and turn its pure packed calls
        and closure invocations into ordinary ones.

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
        return map_functions(mod, _Remover)
