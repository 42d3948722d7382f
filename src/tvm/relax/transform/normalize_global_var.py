"""``NormalizeGlobalVar``: every public function is named by its ``global_symbol``.

A public function (one with a ``global_symbol`` attribute) whose GlobalVar has another name
gets a GlobalVar of that name. A private function whose name a public one now takes is renamed
``<name>1`` (``<name>2``... when taken). Every reference to a renamed function (calls,
``R.call_tir`` callees) follows. Mirrors Apache TVM 0.27's pass of the same name.
"""

from __future__ import annotations

from ...ir.expr import GlobalVar
from ...ir.module import IRModule
from ...ir.transform import module_pass
from ..expr import Function
from ..expr_functor import ExprMutator

__all__ = ["NormalizeGlobalVar"]


def _symbol(func):
    attrs = getattr(func, "attrs", None)
    symbol = attrs.get("global_symbol") if attrs is not None else None
    return None if symbol is None else str(symbol)


def _new_names(mod) -> dict:
    """``{old GlobalVar: new name}`` for the functions to rename."""
    public = {}
    for gvar, func in mod.functions.items():
        symbol = _symbol(func)
        if symbol is not None:
            public[gvar] = symbol
    taken = set(public.values())
    final = set(taken)
    final.update(g.name_hint for g in mod.functions if g not in public)
    renames = {g: s for g, s in public.items() if s != g.name_hint}
    for gvar in mod.functions:
        if gvar in public or gvar.name_hint not in taken:
            continue
        k = 1
        while f"{gvar.name_hint}{k}" in final:
            k += 1
        name = f"{gvar.name_hint}{k}"
        final.add(name)
        renames[gvar] = name
    return renames


class _Replace(ExprMutator):
    def __init__(self, table):
        super().__init__()
        self.table = table

    def visit_global_var_(self, op):
        return self.table.get(op, op)


@module_pass(opt_level=0, name="NormalizeGlobalVar")
class NormalizeGlobalVar:
    """Rename GlobalVars so that each public function's name equals its ``global_symbol``."""

    def transform_module(self, mod, ctx):
        """Name each public function's GlobalVar by its ``global_symbol`` (renaming a private
        function that held the name) and update every reference.

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            A new module with the renamed GlobalVars; ``mod`` itself when no name changes.
        """
        renames = _new_names(mod)
        if not renames:
            return mod
        table = {old: GlobalVar(name, old.ty) for old, name in renames.items()}
        functions = {}
        for gvar, func in mod.functions.items():
            if isinstance(func, Function):
                func = _Replace(table).visit_expr(func)
            functions[table.get(gvar, gvar)] = func
        return IRModule(functions, attrs=mod.attrs, global_infos=mod.global_infos)
