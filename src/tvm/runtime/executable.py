"""``tvm.runtime.Executable``: what ``tvm.compile`` returns for PrimFuncs (as Apache TVM 0.27).

It wraps the compiled :class:`~tvm.runtime.Module` (``ex.mod``): ``ex["name"]`` is a function
of the module or of its imports, ``ex(*args)`` calls ``main``, ``ex.jit()`` gives a runnable
module and ``ex.export_library(path)`` writes a shared library. Every module pytvm compiles is
runnable as it is, so ``jit()`` returns ``ex.mod`` itself.

Beyond 0.27, any other attribute reads through to ``ex.mod`` (``ex.imports``,
``ex.inspect_source()``, ``ex.time_evaluator(...)``), so code written against the module
keeps working.
"""

from __future__ import annotations

__all__ = ["Executable"]


class Executable:
    """The result of ``tvm.compile`` for a module of PrimFuncs.

    Examples
    --------
    >>> import numpy as np, tvm
    >>> from tvm import te
    >>> A = te.placeholder((4,), name="A")
    >>> B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    >>> ex = tvm.compile(te.create_prim_func([A, B]))
    >>> b = np.zeros(4, "float32")
    >>> ex["main"](np.arange(4, dtype="float32"), b)
    >>> b.tolist()
    [0.0, 2.0, 4.0, 6.0]
    >>> type(ex.mod).__name__
    'Module'
    """

    def __init__(self, mod):
        self.mod = mod

    def __getitem__(self, name: str):
        return self.jit().get_function(name, query_imports=True)

    def __call__(self, *args):
        """Call the module's entry function (``main``, or its only function)."""
        return self.jit()(*args)

    def jit(self, *, fcompile=None, addons=None, force_recompile=False, **kwargs):
        """A runnable module: ``self.mod`` (pytvm's compiled modules need no extra linking).

        ``fcompile``, ``addons`` and ``force_recompile`` are accepted for TVM compatibility;
        they matter only to :meth:`export_library`.
        """
        return self.mod

    def export_library(self, file_name, *args, **kwargs):
        """Write the compiled module as a shared library (see ``Module.export_library``)."""
        return self.mod.export_library(file_name, *args, **kwargs)

    def __getattr__(self, name):
        # Only reached for names Executable itself lacks: read them from the module.
        if name == "mod":
            raise AttributeError(name)
        return getattr(self.mod, name)

    def __repr__(self):
        return f"Executable({self.mod!r})"
