"""``tvm.relax.build``: a thin re-export of :func:`tvm.driver.relax_build.build`.

The driver owns the compile pipeline (``docs/arch/layout.md``); relax sits below it, so this
module forwards lazily. Other names (``vm_build._unify_loop_dtypes``, ...) are looked up in
``tvm.driver.relax_build`` on first access. ``default_relax_pipeline`` is
``tvm.relax.pipeline.default_relax_pipeline`` (the ``"default"`` pipeline).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .pipeline import default_relax_pipeline

if TYPE_CHECKING:  # names for annotations only
    from ..ir.module import IRModule
    from ..ir.transform import Pass
    from ..target import Target
    from .expr import Function
    from .vm.exec_builder import ExecBuilder
    from .vm.executable import Executable

__all__ = ["build", "default_relax_pipeline"]


def _driver() -> ModuleType:
    # Lazy: tvm.driver is the top layer; importing it here at module level would invert them.
    return importlib.import_module("tvm.driver.relax_build")


def build(
    mod: IRModule | Function,
    target: str | dict[str, Any] | Target | None = None,
    params: dict[str, Any] | None = None,
    relax_pipeline: str | Pass | None = "default",
    tir_pipeline: str | Any = "default",
    exec_mode: str = "bytecode",
    *,
    system_lib: bool | None = None,
) -> Executable:
    """Compile an IRModule with Relax functions into a ``relax.Executable``.

    See :func:`tvm.driver.relax_build.build` for the parameters.
    """
    result: Executable = _driver().build(
        mod,
        target,
        params,
        relax_pipeline,
        tir_pipeline,
        exec_mode,
        system_lib=system_lib,
    )
    return result


def _vmcodegen(builder: ExecBuilder, mod: IRModule, exec_mode: str = "bytecode") -> Any:
    """Hand the Relax functions of ``mod`` to ``builder`` (a :class:`relax.ExecBuilder`);
    return the module of the other functions (PrimFuncs) for :func:`_vmlink`.

    As in TVM this runs no pass: ``mod`` must be ready for the VM (as after
    ``relax.build``'s pipeline). Both ``exec_mode`` values give pytvm's one VM (generated
    Python); the Python is generated at :func:`_vmlink`.
    """
    if exec_mode not in ("bytecode", "compiled"):
        raise ValueError(f"Unknown exec_mode {exec_mode}")
    return builder.add_module(mod)


def _vmlink(builder: ExecBuilder, target: str | dict[str, Any] | Target | None,
            tir_mod: IRModule | None = None, tir_pipeline: str | Any = "default",
            ext_libs: list[Any] | None = None, params: dict[str, Any] | None = None,
            *, system_lib: bool | None = None) -> Executable:
    """Compile ``tir_mod`` for ``target`` and link it with the functions in ``builder``
    into a ``relax.Executable``."""
    if ext_libs:
        raise ValueError("_vmlink: ext_libs is not supported yet (no external modules)")
    from ..target import Target  # lazy: only the linker needs the target machinery

    if target is None:
        target = "llvm"
    target = target if isinstance(target, Target) else Target(target)
    from ..ir.module import IRModule
    from ..tirx.function import PrimFunc
    from .expr import Function
    from .vm.codegen import compile_function
    from .vm.executable import Executable

    driver = _driver()
    mod = builder.module(tir_mod)
    prims = {gv: driver._unify_loop_dtypes(f) for gv, f in mod.functions.items()
             if isinstance(f, PrimFunc)}
    lib = driver.tir_compile(IRModule(prims), target, tir_pipeline=tir_pipeline) if prims else None
    codes = {
        gv.name_hint: (compile_function(gv.name_hint, f, mod, check_params=False), None)
        for gv, f in mod.functions.items()
        if isinstance(f, Function)
    }
    ex = Executable(lib, codes, mod)
    ex.target = target
    ex.system_lib = bool(system_lib)
    ex.params = dict(params or {})
    return ex


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # import machinery probes (__path__, ...): not forwarded
        raise AttributeError(f"module 'tvm.relax.vm_build' has no attribute {name!r}")
    try:
        return getattr(_driver(), name)
    except AttributeError:
        raise AttributeError(f"module 'tvm.relax.vm_build' has no attribute {name!r}") from None
