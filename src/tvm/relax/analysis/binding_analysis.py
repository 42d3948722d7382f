"""Binding-level analyses: var-to-value maps, def-use chains, purity, post-order walks."""

from __future__ import annotations

from ...ffi.node import iter_children, walk
from ...ir.op import Op
from ..expr import Call, DataflowBlock, Function, Var
from ..ty import FuncType
from .var_analysis import free_vars

__all__ = [
    "contains_impure_call",
    "get_var2val",
    "name_to_binding",
    "post_order_visit",
    "udchain",
    "used_vars",
]


def _bindings(expr):
    for node in walk(expr):
        if hasattr(node, "var") and hasattr(node, "value") and isinstance(node.var, Var):
            yield node


def get_var2val(func) -> dict:
    """``{var: bound value}`` for every binding inside ``func`` (nested functions included)."""
    return {b.var: b.value for b in _bindings(func)}


def name_to_binding(func) -> dict:
    """``{name_hint: [bindings with that variable name]}``."""
    result: dict = {}
    for binding in _bindings(func):
        result.setdefault(binding.var.name_hint, []).append(binding)
    return result


def udchain(dfb: DataflowBlock) -> dict:
    """``{var: [vars whose bound value uses it]}`` for the variables defined in ``dfb``."""
    chain = {b.var: [] for b in dfb.bindings}
    for binding in dfb.bindings:
        for used in (
            free_vars(binding.value) if not isinstance(binding.value, Var) else [binding.value]
        ):
            if used in chain:
                chain[used].append(binding.var)
    return chain


def used_vars(expr) -> list:
    """Relax variables used (not merely defined) in ``expr``, in order of first use."""
    # Lazy: the collector class is built on first use (see var_analysis).
    from .var_analysis import _collect

    return list(_collect(expr).used)


def _call_is_impure(call, own_name) -> bool:
    callee = call.op
    if isinstance(callee, Op):
        return callee.get_attr("FPurity") is False
    if own_name is not None and callee is own_name:
        return False  # a recursive call: purity is the function's own annotation
    ty = callee.ty
    return not (isinstance(ty, FuncType) and ty.purity)


def contains_impure_call(expr, own_name=None) -> bool:
    """Whether ``expr`` contains a call that is not known to be pure.

    Calls inside nested functions do not count (defining a function has no effect), and a
    function annotated ``relax.force_pure`` is pure. ``own_name`` names the function itself,
    so that recursive calls are not counted.
    """
    if isinstance(expr, Function):
        if expr.attrs is not None and expr.attrs.get("relax.force_pure", False):
            return False
        expr = expr.body
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Function):
            continue
        if isinstance(node, Call) and _call_is_impure(node, own_name):
            return True
        stack.extend(iter_children(node))
    return False


def post_order_visit(expr, fvisit) -> None:
    """Call ``fvisit(node)`` on every node under ``expr``, children before parents."""
    seen = set()
    stack = [(expr, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            fvisit(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        children = [c for c in iter_children(node) if id(c) not in seen]
        stack.extend((c, False) for c in reversed(children))
