"""Shared helpers of the TIR passes: the PrimFunc pass wrapper and small statement utilities."""

from __future__ import annotations

from ...ir.module import IRModule
from ...ir.transform import ModulePass, PassInfo, make_pass_decorator
from ..function import PrimFunc

__all__ = ["PrimFuncPass", "prim_func_pass"]


class PrimFuncPass(ModulePass):
    """A module pass that rewrites every ``PrimFunc`` of a module with ``func_fn``.

    ``func_fn(func, mod, ctx)`` returns the new function (or the same object when unchanged);
    other functions (Relax) are left alone. The module is rebuilt only when something changed.
    """

    def __init__(self, func_fn, info: PassInfo):
        self.func_fn = func_fn
        super().__init__(self._run, info)

    def _run(self, mod, ctx):
        changed = {}
        for gvar, func in mod.functions.items():
            if isinstance(func, PrimFunc):
                new = self.func_fn(func, mod, ctx)
                if new is not func:
                    changed[gvar] = new
        if not changed:
            return mod
        funcs = {gv: changed.get(gv, f) for gv, f in mod.functions.items()}
        return IRModule(funcs, attrs=mod.attrs, global_infos=mod.global_infos)


def prim_func_pass(pass_func=None, opt_level=0, name=None, required=None, traceable=False):
    """Make a PrimFunc pass from ``pass_func(func, mod, ctx) -> PrimFunc`` (TVM's decorator),
    or from a class whose ``transform_function(func, mod, ctx)`` does the work (calling the
    decorated class with its constructor's arguments gives the pass).

    Usable as ``@prim_func_pass(opt_level=0)`` or ``prim_func_pass(fn, opt_level=0)``.
    """
    return make_pass_decorator("prim_func", "transform_function", PrimFuncPass, pass_func,
                               opt_level, name, required, traceable)


def func_pass(fn, name):
    """A zero-option pass object applying ``fn(func) -> PrimFunc`` to every PrimFunc."""
    return PrimFuncPass(lambda func, mod, ctx: fn(func), PassInfo(0, name))


# Re-exported here, where Apache TVM has it (defined with the tile-primitive dispatch pass).
from .tile_primitive_dispatch import BufferReplacer  # noqa: F401
