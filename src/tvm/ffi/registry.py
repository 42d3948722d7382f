"""The global function registry and FFI types, as thin names over ``tvm_ffi``.

Global functions live in ``tvm_ffi``'s process-wide table, so a function registered here is
callable from compiled code and from other packages that use ``tvm_ffi`` directly.

Examples
--------
>>> from tvm.ffi import register_func, get_global_func
>>> @register_func("demo.add_one", override=True)
... def add_one(x):
...     return x + 1
>>> get_global_func("demo.add_one")(41)
42
"""

from __future__ import annotations

from collections.abc import Callable

import tvm_ffi
from tvm_ffi import (
    Device,
    Function,
    Module,
    Object,
    Tensor,
    convert,
    init_ffi_api,
    register_global_func,
    register_object,
)

__all__ = [
    "Device",
    "Function",
    "Module",
    "Object",
    "Tensor",
    "convert",
    "get_global_func",
    "init_ffi_api",
    "list_global_func_names",
    "register_func",
    "register_global_func",
    "register_object",
    "remove_global_func",
]


def register_func(func_name, f: Callable | None = None, override: bool = False):
    """Register a Python callable as a global function; usable as a decorator.

    Parameters
    ----------
    func_name : str or callable
        The global name. Used bare as ``@register_func``, the function's ``__name__``.
    f : callable, optional
        The function; when omitted, a decorator is returned.
    override : bool
        Replace an existing function of the same name instead of raising.

    Returns
    -------
    The registered callable (unchanged), or a decorator when ``f`` is omitted.
    """
    if callable(func_name) and f is None:
        # Bare decorator: @register_func
        func = func_name
        tvm_ffi.register_global_func(func.__name__, func, override)
        return func
    if not isinstance(func_name, str):
        raise TypeError(f"register_func expects a name string, got {type(func_name).__name__}")

    def register(func):
        tvm_ffi.register_global_func(func_name, func, override)
        return func

    return register(f) if f is not None else register


def get_global_func(name: str, allow_missing: bool = False):
    """The global function ``name`` as a ``tvm_ffi.Function``.

    Raises ``ValueError`` naming the function when it is missing, unless ``allow_missing``
    (then returns ``None``).
    """
    func = tvm_ffi.get_global_func(name, allow_missing=True)
    if func is None and not allow_missing:
        raise ValueError(f"Cannot find global function {name!r}")
    return func


def list_global_func_names() -> list[str]:
    """Names of every registered global function."""
    return list(tvm_ffi.registry.list_global_func_names())


def remove_global_func(name: str) -> None:
    """Remove a global function (no error when it does not exist)."""
    tvm_ffi.registry.remove_global_func(name)
