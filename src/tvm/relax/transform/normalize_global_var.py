"""``NormalizeGlobalVar``: every public function is named by its ``global_symbol``.

A public function (one with a ``global_symbol`` attribute) whose GlobalVar has another name
gets a GlobalVar of that name. Then each private function (Relax or TIR), in module order,
keeps its name if it is still free, else takes the next free ``<name><k>`` (as TVM's name
supply: ``func`` -> ``func1``, and a later ``func1`` -> ``func11``). Every reference to a
renamed function (calls, ``R.call_tir`` callees) follows, and the Relax functions are
re-normalized (a binding whose value changed takes the value's type). Two public functions
with one symbol raise ``ValueError``. Mirrors Apache TVM 0.27's pass of the same name, which
``BlockBuilder.finalize`` runs.
"""

from __future__ import annotations

from ...ir.expr import GlobalVar
from ...ir.module import IRModule
from ...ir.transform import module_pass
from ..analysis.type_analysis import (
    BaseCheckResult,
    definable_tir_vars_in_type,
    erase_to_well_defined,
    struct_info_base_check,
)
from ..expr import Function
from ..expr_functor import ExprMutator

__all__ = ["NormalizeGlobalVar"]


def _symbol(func):
    attrs = getattr(func, "attrs", None)
    symbol = attrs.get("global_symbol") if attrs is not None else None
    return None if symbol is None else str(symbol)


class _NameTable:
    """Unique names as TVM's name supply hands them out: ``f`` when free, else ``f1``, ``f2``..."""

    def __init__(self):
        self.counters: dict = {}  # name -> the last suffix tried for it

    def reserve(self, name: str) -> None:
        self.counters[name] = 0

    def fresh(self, name: str) -> str:
        name = (name or "v").replace(".", "_")
        if name not in self.counters:
            self.counters[name] = 0
            return name
        suffix, candidate = self.counters[name], name
        while candidate in self.counters:
            suffix += 1
            candidate = f"{name}{suffix}"
        self.counters[name] = suffix
        self.counters[candidate] = 0
        return candidate


def _new_names(mod) -> dict:
    """``{old GlobalVar: new name}`` for the functions to rename (empty when none needs it).

    Public functions take their ``global_symbol``; then each private function, in module
    order, takes its own name if still free, else the next free ``<name><k>``.
    """
    if all(_symbol(f) in (None, g.name_hint) for g, f in mod.functions.items()):
        return {}
    table, names = _NameTable(), {}
    for gvar, func in mod.functions.items():
        symbol = _symbol(func)
        if symbol is None:
            continue
        if symbol in table.counters:
            raise ValueError(f"IRModule contains duplicate global symbol: {symbol}")
        table.reserve(symbol)
        names[gvar] = symbol
    for gvar, func in mod.functions.items():
        if _symbol(func) is None:
            names[gvar] = table.fresh(gvar.name_hint)
    return {g: n for g, n in names.items() if n != g.name_hint}


class _Replace(ExprMutator):
    def __init__(self, table):
        super().__init__()
        self.table = table

    def visit_global_var_(self, op):
        return self.table.get(op, op)

    def visit_function_(self, op):
        # As TVM's mutator: a re-normalized body whose type contradicts the declared return
        # type (another shape, once a binding took its value's type) gives the function its
        # return type, with the symbolic variables only the body defines erased.
        func = super().visit_function_(op)
        body_ty = getattr(func.body, "ty", None)
        if func is op or func.ret_ty is None or body_ty is None:
            return func
        if struct_info_base_check(body_ty, func.ret_ty) not in _CONTRADICTS:
            return func
        defined = {}
        for param in func.params:
            for var in definable_tir_vars_in_type(param.ty):
                defined[var] = var
        return Function(func.params, func.body, erase_to_well_defined(body_ty, defined),
                        func.is_pure, func.attrs, span=func.span)


_CONTRADICTS = (BaseCheckResult.FAIL_L0, BaseCheckResult.FAIL_L1)


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
