"""Checkpointing for the Gradient pass (spec F.4): strip the markers, decide which forward
values are kept, and recompute the others lazily in the backward sweep.
"""

from __future__ import annotations

from ...expr import Call, DataflowVar, If, Var, VarBinding
from ...expr_functor import ExprMutator, ExprVisitor
from .te_grad import as_call_tir

__all__ = ["CheckpointInfo", "Recomputer", "strip_checkpoints"]

_START = "relax.grad.start_checkpoint"
_END = "relax.grad.end_checkpoint"


def _marker(value):
    """``"start"``/``"end"`` when ``value`` is a checkpoint marker call, else None."""
    if isinstance(value, Call):
        name = getattr(value.op, "name", None)
        if name == _START:
            return "start"
        if name == _END:
            return "end"
    return None


class _VarUses(ExprVisitor):
    """Collects the Relax variables an expression reads."""

    def __init__(self):
        super().__init__()
        self.vars = []

    def visit_var_(self, op):
        self.vars.append(op)

    def visit_dataflow_var_(self, op):
        self.vars.append(op)


def used_vars_of(expr) -> list:
    """The Relax variables ``expr`` reads, in visiting order (repeats kept)."""
    visitor = _VarUses()
    visitor.visit_expr(expr)
    return visitor.vars


class _Substitute(ExprMutator):
    """Replaces variables by other expressions (a plain var remap)."""

    def __init__(self, mapping):
        super().__init__()
        for old, new in mapping.items():
            self.set_var_remap(old, new)


def substitute(expr, mapping: dict):
    """``expr`` with every variable in ``mapping`` replaced by its value."""
    if not mapping:
        return expr
    return _Substitute(mapping).visit_expr(expr)


class CheckpointInfo:
    """What stripping the markers learned: which variables the forward pass keeps."""

    def __init__(self, checkpointed: set, bindings: dict, redirect: dict):
        #: Variables whose forward value is kept (params, start_checkpoint inputs, and values
        #: computed only from kept values or end_checkpoint outputs).
        self.checkpointed = checkpointed
        #: var -> forward value (after stripping) of every binding of the block.
        self.bindings = bindings
        #: marker variable -> the variable standing in for it once markers are stripped.
        self.redirect = redirect

    def resolve(self, var):
        """The variable that replaces ``var`` after stripping (``var`` itself if unchanged)."""
        return self.redirect.get(var, var)


def strip_checkpoints(params, bindings):
    """Remove the checkpoint markers of a dataflow block's ``bindings``.

    Returns ``(new_bindings, info)``: the bindings with every marker binding dropped and its
    variable redirected to the marker's input (a non-dataflow marker output bound to a dataflow
    input becomes a plain alias binding, so it stays visible after the block), and the
    :class:`CheckpointInfo` of the block.
    """
    checkpointed = set(params)
    end_outputs = set()
    redirect = {}
    new_bindings = []
    for binding in bindings:
        value = binding.value
        kind = _marker(value) if isinstance(binding, VarBinding) else None
        if kind is None:
            # Rule 3 of F.4 is decided on the value as written, before markers are stripped.
            # The value of an R.If is always kept: recomputing it would re-bind the
            # variables of its branches.
            if isinstance(value, If) or all(
                v in checkpointed or v in end_outputs for v in used_vars_of(value)
            ):
                checkpointed.add(binding.var)
            new_value = substitute(value, redirect)
            if new_value is not value:
                binding = binding.replace(value=new_value)
            new_bindings.append(binding)
            continue
        source = value.args[0]
        target = redirect.get(source, source)
        if kind == "start":
            checkpointed.add(target)
        else:
            end_outputs.add(binding.var)
        if not isinstance(binding.var, DataflowVar) and isinstance(target, DataflowVar):
            # The marker's variable is a function output: an output alias of the input (named
            # like the input, as TVM does) stands in for it.
            alias = Var(target.name_hint, binding.var.ty, binding.var.span)
            new_bindings.append(VarBinding(alias, target))
            checkpointed.add(alias)
            end_outputs.add(alias)
            redirect[binding.var] = alias
            continue
        redirect[binding.var] = target
    info = CheckpointInfo(checkpointed, {b.var: b.value for b in new_bindings}, redirect)
    return new_bindings, info


class Recomputer:
    """Gives the backward sweep the forward value of a variable, recomputing when needed.

    A checkpointed variable is used as is; any other one is re-emitted once as
    ``<name>_cp = <its value on recomputed inputs>`` just before its first use (memoised).
    """

    def __init__(self, bb, info: CheckpointInfo):
        self._bb = bb
        self._info = info
        self._memo = {}

    def var(self, var):
        """The variable holding ``var``'s forward value in the backward sweep."""
        if var in self._info.checkpointed or var not in self._info.bindings:
            return var
        done = self._memo.get(var)
        if done is not None:
            return done
        # A recomputed call_tir_with_grad is a plain call_tir, like the forward copy.
        value = self.value(as_call_tir(self._info.bindings[var]))
        new_var = self._bb.emit(value, f"{var.name_hint}_cp")
        self._memo[var] = new_var
        return new_var

    def value(self, expr):
        """``expr`` with each variable it reads replaced by :meth:`var` of it (left to right)."""
        mapping = {}
        for var in used_vars_of(expr):
            if var not in mapping:
                mapping[var] = self.var(var)
        if all(k is v for k, v in mapping.items()):
            return expr
        return substitute(expr, mapping)

    def binding(self, var, value):
        """``(var, value)`` of a forward binding as the gradient rules must see them."""
        new_value = self.value(value)
        return self.var(var), new_value
