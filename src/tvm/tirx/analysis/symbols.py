"""``exported_symbols``: the symbols the PrimFuncs of a module export, checked for clashes."""

from __future__ import annotations

from ..function import PrimFunc

__all__ = ["exported_symbols"]


def exported_symbols(mod) -> dict:
    """``global_symbol`` (or GlobalVar name) -> GlobalVar name of every PrimFunc of ``mod``.

    Raises ``ValueError`` when two functions would export the same symbol. ``tvm.compile``
    calls it on the whole module before splitting it into parts compiled separately, where a
    clash across parts would otherwise go unnoticed; the LLVM code generator calls it on
    each part.
    """
    owners = {}
    for gvar, func in mod.functions.items():
        if isinstance(func, PrimFunc):
            name = str(func.get_attr("global_symbol") or gvar.name_hint)
            if name in owners:
                raise ValueError(
                    f"Duplicate PrimFunc global_symbol '{name}': IRModule keys "
                    f"'{owners[name]}' and '{gvar.name_hint}' both lower to the same exported "
                    f"symbol '__tvm_ffi_{name}'. Each exposed PrimFunc in one IRModule must "
                    "have a unique global_symbol."
                )
            owners[name] = gvar.name_hint
    return owners
