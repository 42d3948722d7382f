"""Calls between Relax functions, for the Gradient pass: inline the callee before the sweep.

Apache TVM 0.27 treats ``lv = cls.helper(x)`` as a value without gradient, so everything that
flows through the helper gets a zero adjoint, silently. pytvm inlines every call of a Relax
function of the module into the differentiated block first (recursively), so the reverse
sweep sees the helper's own bindings. Why inline rather than emit a ``helper_adjoint`` once
and call it: the sweep then reuses the helper's forward values directly (a separate adjoint
function would have to recompute the helper's forward or return its intermediates as a
tuple), and the adjoint is structurally the one of the hand-flattened model (tested), so the
compiled step is too. Measured (``benchmarks/autodiff_calls.py``: four calls of a
``tanh(h @ w)`` layer, the alternative built from Gradient's own VJP of the callee): the
adjoint-function design costs 1.78-1.80x the inlined adjoint, because the callee's forward is
recomputed inside its VJP. The cost of inlining is code size when one helper is called many
times: every call site gets its own copy.
"""

from __future__ import annotations

from ...expr import BindingBlock, Call, DataflowVar, Function, If, SeqExpr, VarBinding
from ...expr_functor import ExprMutator
from ...utils import instantiate_body
from ..to_non_dataflow import without_dataflow
from .adjoint import GradientError

__all__ = ["inline_function_calls"]


def _callee(mod, call):
    """The Relax function a call invokes, when it is a call of a module function."""
    if mod is None or not isinstance(call, Call):
        return None, None
    name = getattr(call.op, "name_hint", None)
    if name is None or type(call.op).__name__ != "GlobalVar" or name not in mod:
        return None, None
    func = mod[name]
    return (name, func) if isinstance(func, Function) else (None, None)


class _AsDataflowVars(ExprMutator):
    """Rebinds the non-dataflow variables of an inlined body as dataflow variables."""

    def visit_var_def_(self, var):
        new = DataflowVar(var.name_hint, var.ty, var.span)
        self.set_var_remap(var, new)
        return new


def inline_function_calls(mod, bindings, func_name: str, dataflow: bool = True) -> list:
    """``bindings`` with every call of a Relax function of ``mod`` replaced by its body.

    The callee's bindings come first (fresh variables; all dataflow variables when the
    bindings go into a dataflow block, all plain variables otherwise), then the call's
    variable is bound to the callee's return value. Calls inside the callee are inlined too.
    A call cycle raises :class:`GradientError` naming it.
    """
    convert = (lambda e: _AsDataflowVars().visit_expr(e)) if dataflow else without_dataflow
    return _inline(mod, list(bindings), [func_name], convert)


def _inline_branch(mod, branch, chain, convert):
    """An ``R.If`` branch with the calls in it inlined (one binding block)."""
    if not isinstance(branch, SeqExpr):
        return branch
    bindings = [b for block in branch.blocks for b in block.bindings]
    inlined = _inline(mod, bindings, chain, convert)
    if all(a is b for a, b in zip(inlined, bindings)) and len(inlined) == len(bindings):
        return branch
    return SeqExpr([BindingBlock(inlined)], branch.body, span=branch.span)


def _inline(mod, bindings, chain, convert):
    out = []
    for binding in bindings:
        value = getattr(binding, "value", None)
        if isinstance(value, If):
            out.append(binding.replace(value=If(
                value.cond,
                _inline_branch(mod, value.true_branch, chain, convert),
                _inline_branch(mod, value.false_branch, chain, convert),
            )))
            continue
        name, callee = _callee(mod, value)
        if callee is None:
            out.append(binding)
            continue
        if name in chain:
            cycle = " -> ".join(chain[chain.index(name):] + [name])
            raise GradientError(
                f"Gradient of {chain[0]}: the call of {name} (bound to "
                f"{binding.var.name_hint}) is recursive ({cycle}); recursive functions "
                "cannot be differentiated"
            )
        body = convert(instantiate_body(callee, value.args))
        inner = [b for block in body.blocks for b in block.bindings]
        out.extend(_inline(mod, inner, chain + [name], convert))
        out.append(VarBinding(binding.var, body.body))
    return out
