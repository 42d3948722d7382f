"""``tvm.runtime.vm``: the Relax virtual machine under its Apache TVM 0.27 module path.

``VirtualMachine``, ``Executable`` (``VMExecutable``) and ``ProfileReport`` are the classes of
``tvm.relax.vm``: the VM runs Relax executables, so pytvm keeps it in the Relax layer and this
module hands its names out on first use (``tvm.runtime.vm.VirtualMachine is
tvm.relax.VirtualMachine``).
"""

from __future__ import annotations

import importlib

_NAMES = ("Executable", "ProfileReport", "VMExecutable", "VirtualMachine")
__all__ = list(_NAMES)  # served by __getattr__


def __getattr__(name):
    if name not in _NAMES:
        raise AttributeError(f"module 'tvm.runtime.vm' has no attribute {name!r}")
    # Lazy: the VM lives in the relax layer, above runtime; it is loaded only when asked for.
    value = getattr(importlib.import_module("tvm.relax.vm"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_NAMES))
