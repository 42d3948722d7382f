"""``AttachGlobalSymbol``: every function gets ``global_symbol`` = its name (for codegen).

Private functions (PrimFuncs made by ``LegalizeOps``, fused kernels) become externally
visible under their GlobalVar name, prefixed with the module's ``system_lib_prefix``
attribute when there is one, as in TVM 0.27.
"""

from __future__ import annotations

from ...ir.transform import module_pass

__all__ = ["AttachGlobalSymbol"]


@module_pass(opt_level=0, name="AttachGlobalSymbol")
class AttachGlobalSymbol:
    """Attach ``global_symbol`` to every function that lacks one."""

    def transform_module(self, mod, ctx):
        """Set ``global_symbol`` on each function that lacks one (its name, after the module's
        ``system_lib_prefix``).

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            A copy with the symbols attached; ``mod`` itself when none was missing.
        """
        prefix = mod.get_attr("system_lib_prefix") or ""
        new_mod = None
        for gvar, func in list(mod.functions.items()):
            attrs = getattr(func, "attrs", None)
            if attrs is not None and attrs.get("global_symbol") is not None:
                continue
            if not hasattr(func, "with_attr"):
                continue
            if new_mod is None:
                new_mod = mod.clone()
            new_mod.update_func(gvar, func.with_attr("global_symbol", prefix + gvar.name_hint))
        return mod if new_mod is None else new_mod
