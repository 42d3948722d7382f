"""``tvm.relax.build``: a thin re-export of :func:`tvm.driver.relax_build.build`.

The driver owns the compile pipeline (``docs/arch/layout.md``); relax sits below it, so this
module forwards lazily. Other names (``vm_build._unify_loop_dtypes``, ...) are looked up in
``tvm.driver.relax_build`` on first access. ``default_relax_pipeline`` is
``tvm.relax.pipeline.default_relax_pipeline`` (the ``"default"`` pipeline).
"""

from __future__ import annotations

import importlib

from .pipeline import default_relax_pipeline

__all__ = ["build", "default_relax_pipeline"]


def _driver():
    # Lazy: tvm.driver is the top layer; importing it here at module level would invert them.
    return importlib.import_module("tvm.driver.relax_build")


def build(
    mod,
    target=None,
    params=None,
    relax_pipeline="default",
    tir_pipeline="default",
    exec_mode="bytecode",
    *,
    system_lib=None,
):
    """Compile an IRModule with Relax functions into a ``relax.Executable``.

    See :func:`tvm.driver.relax_build.build` for the parameters.
    """
    return _driver().build(
        mod,
        target,
        params,
        relax_pipeline,
        tir_pipeline,
        exec_mode,
        system_lib=system_lib,
    )


def __getattr__(name):
    if name.startswith("__"):  # import machinery probes (__path__, ...): not forwarded
        raise AttributeError(f"module 'tvm.relax.vm_build' has no attribute {name!r}")
    try:
        return getattr(_driver(), name)
    except AttributeError:
        raise AttributeError(f"module 'tvm.relax.vm_build' has no attribute {name!r}") from None
