"""``DeadCodeElimination``: drop unused bindings and functions unreachable from the entries.

Entry functions are the given ``entry_functions`` plus every public function (one with a
``global_symbol``). A function is kept when an entry reaches it through GlobalVar references
(calls, ``call_tir`` callees). Inside every kept Relax function, bindings whose value is pure
and unused are removed (impure calls outside dataflow blocks stay), as
:func:`tvm.relax.analysis.remove_all_unused` does.

Before::

    @R.function
    def main(x: R.Tensor((2,), "float32")):
        with R.dataflow():
            lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((2,), "float32"))  # unused
            gv = R.call_tir(cls.relu, (x,), out_ty=R.Tensor((2,), "float32"))
            R.output(gv)
        return gv

After: ``lv`` is gone, and so is the PrimFunc ``exp`` (no longer referenced).
"""

from __future__ import annotations

from ...ir.expr import GlobalVar
from ...ir.transform import module_pass
from ..analysis import remove_all_unused
from ..expr import Function
from ..expr_functor import ExprVisitor

__all__ = ["DeadCodeElimination"]


def _callees(func):
    found = []

    class _Uses(ExprVisitor):
        def visit_global_var_(self, op):
            found.append(op)

    if isinstance(func, Function):
        _Uses().visit_expr(func)
    return found


def _is_public(func):
    attrs = getattr(func, "attrs", None)
    return attrs is not None and attrs.get("global_symbol") is not None


@module_pass(opt_level=0, name="DeadCodeElimination")
class DeadCodeElimination:
    """Remove unused bindings and unreachable functions.

    Parameters
    ----------
    entry_functions : list of str, optional
        Extra functions to keep as roots (public functions always are).
    """

    def __init__(self, entry_functions=None):
        self.entry_functions = list(entry_functions or [])

    def transform_module(self, mod, ctx):
        """Remove unused bindings in each Relax function, then drop the functions that no
        public function or ``entry_functions`` entry reaches.

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            A new module without the dead code (every function is kept when no entry is known).
        """
        new_mod = mod.clone()
        for gvar, func in list(new_mod.functions.items()):
            if isinstance(func, Function):
                cleaned = remove_all_unused(func)
                if cleaned is not func:
                    new_mod.update_func(gvar, cleaned)
        by_name = {gv.name_hint: gv for gv in new_mod.get_global_vars()}
        roots = [gv for gv, f in new_mod.functions.items() if _is_public(f)]
        roots += [by_name[n] for n in self.entry_functions if n in by_name]
        if not roots:
            return new_mod  # nothing is known to be an entry: keep every function
        reached = set()
        stack = list(roots)
        while stack:
            gvar = stack.pop()
            if gvar.name_hint in reached:
                continue
            reached.add(gvar.name_hint)
            func = new_mod.functions.get(by_name.get(gvar.name_hint, gvar))
            stack.extend(g for g in _callees(func) if isinstance(g, GlobalVar))
        for gvar in list(new_mod.get_global_vars()):
            if gvar.name_hint not in reached:
                new_mod.remove(gvar)
        return new_mod
