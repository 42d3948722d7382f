"""``@I.ir_module``: parse a decorated class into an ``IRModule``."""

from __future__ import annotations

import inspect

from ....ir.module import IRModule
from ..core.entry import parse
from ..core.utils import capture_caller_vars

__all__ = ["ir_module"]


def ir_module(mod=None, check_well_formed: bool = True, s_tir: bool = False):
    """Decorate a class whose methods are ``@R.function`` / ``@T.prim_func`` definitions.

    Parameters
    ----------
    mod : class, optional
        The class (when used as ``@I.ir_module`` without arguments).
    check_well_formed : bool
        Run the well-formedness gate on the parsed module.
    s_tir : bool
        Parse the module's TIR functions as schedulable functions.

    Returns
    -------
    IRModule, or a decorator when called with keyword arguments only.
    """

    def _decorate(cls, captured):
        if not inspect.isclass(cls):
            raise TypeError(f"@I.ir_module expects a class, got {type(cls).__name__}")
        mod = parse(cls, captured, check_well_formed=check_well_formed, s_tir=s_tir,
                    default_token="ir")
        if isinstance(mod, IRModule):
            # TVM 0.27: the module keeps the class's name (a plain attribute, not an IR field).
            object.__setattr__(mod, "__name__", cls.__name__)
        return mod

    if mod is not None:
        return _decorate(mod, capture_caller_vars(1))

    def decorator(cls):
        return _decorate(cls, capture_caller_vars(1))

    decorator.dispatch_token = "ir"
    return decorator


ir_module.dispatch_token = "ir"
