"""Hooks the runtime calls and backends provide (``tvm.runtime.hooks``).

The runtime sits below every backend, so it never imports one: a backend registers the
functions the runtime needs here, in its ``register_backend()``, and the runtime looks them
up by name when it needs them.

Hooks the runtime calls now:

``"parallel_launch_address"`` : () -> int
    Address of this process's ``TVMBackendParallelLaunch`` (the thread pool of parallel
    loops); :func:`tvm.runtime.load_module` stores it into a loaded library that has parallel
    loops. Provided by the ``llvm`` backend.
``"num_threads"`` : () -> int
    Threads that parallel loops run on (:func:`tvm.runtime.num_threads`). Provided by the
    ``llvm`` backend.
``"text_module"`` : (symbol: str, text: str) -> Module
    A host-code module exporting a function ``symbol`` that returns ``text``;
    ``relax.Executable.export_library`` stores the VM program in the library that way.
    Provided by the ``llvm`` backend.

A backend may register more names for its own runtime pieces (``"<kind>.<what>"`` by
convention, e.g. ``"cuda.load_module"``) and other layers may look them up the same way.

Examples
--------
>>> from tvm.runtime import hooks
>>> hooks.register_runtime_hook("demo.answer", lambda: 42, override=True)
>>> hooks.get_runtime_hook("demo.answer")()
42
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["get_runtime_hook", "has_runtime_hook", "register_runtime_hook", "runtime_hooks"]

_HOOKS: dict[str, Callable] = {}


def register_runtime_hook(name: str, func: Callable, *, override: bool = False) -> None:
    """Register ``func`` as the runtime hook ``name``.

    Raises ``ValueError`` when ``name`` is taken (unless ``override``) and ``TypeError`` when
    ``func`` is not callable.
    """
    if not callable(func):
        raise TypeError(f"runtime hook {name!r} must be callable, got {type(func).__name__}")
    if name in _HOOKS and not override and _HOOKS[name] is not func:
        raise ValueError(f"runtime hook {name!r} is already registered")
    _HOOKS[name] = func


def has_runtime_hook(name: str) -> bool:
    """Whether a backend registered the hook ``name``."""
    return name in _HOOKS


def get_runtime_hook(name: str) -> Callable:
    """The hook ``name``; ``ValueError`` naming the registered hooks when none is."""
    func = _HOOKS.get(name)
    if func is None:
        raise ValueError(
            f"no backend registered the runtime hook {name!r} (registered: "
            f"{', '.join(sorted(_HOOKS)) or 'none'}); the 'llvm' backend registers the "
            "runtime hooks when tvm.backend is imported"
        )
    return func


def runtime_hooks() -> list[str]:
    """Names of the registered hooks, sorted."""
    return sorted(_HOOKS)
