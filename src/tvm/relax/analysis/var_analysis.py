"""Variable analyses: free/bound/all Relax vars, global vars, symbolic (TIR) vars.

Results are lists in order of first occurrence, without duplicates.
"""

from __future__ import annotations

from ...ffi.node import walk
from ...ir.expr import GlobalVar
from ..expr import Function, MatchCast, PrimValue, ShapeExpr, Var
from .type_analysis import tir_vars_in

__all__ = [
    "all_global_vars",
    "all_vars",
    "bound_vars",
    "defined_symbolic_vars",
    "free_symbolic_vars",
    "free_vars",
]


_COLLECTOR = None


def _collector_cls():
    """The collector visitor class, made on first use.

    Lazy because ``expr_functor`` imports the BlockBuilder, whose normalizer imports this
    package: a module-level import would be circular.
    """
    global _COLLECTOR
    if _COLLECTOR is None:
        from ..expr_functor import ExprVisitor

        class _VarCollector(ExprVisitor):
            def __init__(self):
                self.defined = {}
                self.used = {}
                self.globals = {}

            def visit_var_def_(self, var):
                self.defined.setdefault(var, None)

            visit_dataflow_var_def_ = visit_var_def_

            def visit_var_(self, var):
                self.used.setdefault(var, None)

            visit_dataflow_var_ = visit_var_

            def visit_global_var_(self, gvar):
                self.globals.setdefault(gvar, None)

            def visit_type(self, ty):
                pass  # as in TVM, variables inside type annotations are not counted

        _COLLECTOR = _VarCollector
    return _COLLECTOR


def _collect(expr):
    collector = _collector_cls()()
    collector.visit_expr(expr)
    return collector


def free_vars(expr) -> list:
    """Relax variables used in ``expr`` but not defined inside it."""
    c = _collect(expr)
    return [v for v in c.used if v not in c.defined]


def bound_vars(expr) -> list:
    """Relax variables defined inside ``expr`` (function params and binding variables)."""
    return list(_collect(expr).defined)


def all_vars(expr) -> list:
    """Every Relax variable defined or used in ``expr``."""
    c = _collect(expr)
    result = dict(c.defined)
    result.update(c.used)
    return list(result)


def all_global_vars(expr) -> list:
    """Every GlobalVar referred to in ``expr``."""
    return [g for g in _collect(expr).globals if isinstance(g, GlobalVar)]


def _symbolic_sites(expr):
    """(defining types, using values) of symbolic vars inside ``expr``."""
    defining, using = [], []
    for node in walk(expr):
        if isinstance(node, Function):
            defining.extend(p.ty for p in node.params)
            if node.ret_ty is not None:
                using.append(node.ret_ty)
        elif isinstance(node, MatchCast):
            defining.append(node.ty)
        elif isinstance(node, (ShapeExpr, PrimValue)):
            using.append(node)
        elif isinstance(node, Var) and node.ty is not None:
            using.append(node.ty)
    return defining, using


def _unique(values):
    seen = {}
    for value in values:
        seen.setdefault(id(value), value)
    return list(seen.values())


def defined_symbolic_vars(expr) -> list:
    """Symbolic TIR vars defined in ``expr`` (by function signatures and match_casts)."""
    defining, _ = _symbolic_sites(expr)
    return _unique(v for ty in defining for v in tir_vars_in(ty))


def free_symbolic_vars(expr) -> list:
    """Symbolic TIR vars used in ``expr`` but not defined inside it."""
    defining, using = _symbolic_sites(expr)
    defined = {id(v) for ty in defining for v in tir_vars_in(ty)}
    return _unique(v for site in using for v in tir_vars_in(site) if id(v) not in defined)
