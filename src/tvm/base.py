"""Loaded native libraries, and the runtime-only switch.

``_LOADED_LIBS`` maps a library's basename (without ``lib`` prefix or extension) to its ctypes
handle, so extensions can skip libraries that are already loaded. pytvm has no ``libtvm``: the
runtime entry ``"tvm_runtime"`` is ``tvm_ffi``'s own ``libtvm_ffi`` handle, and the compiler
entry ``"tvm_compiler"`` is a :class:`LibrarySentinel` (the compiler is this Python package).
"""

from __future__ import annotations

import ctypes
import os

import tvm_ffi

from . import libinfo  # noqa: F401 - TVM exposes ``tvm.base.libinfo``

__all__ = ["_LOADED_LIBS", "_RUNTIME_ONLY", "LibrarySentinel", "load_lib_once"]

#: ``TVM_USE_RUNTIME_LIB=1`` asks for the runtime only (no compiler packages imported).
_RUNTIME_ONLY: bool = os.environ.get("TVM_USE_RUNTIME_LIB") == "1"


class LibrarySentinel:
    """Stands in for a library that pure-Python pytvm implements without a shared object."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self):
        return f"<LibrarySentinel {self._name!r} (implemented in Python)>"


_LOADED_LIBS: dict[str, object] = {"tvm_runtime": tvm_ffi.LIB}
if not _RUNTIME_ONLY:
    _LOADED_LIBS["tvm_compiler"] = LibrarySentinel("tvm_compiler")
else:
    # Compiler object types are not registered in runtime-only mode; let tvm_ffi pass them.
    tvm_ffi.registry._SKIP_UNKNOWN_OBJECTS = True


def _basename(path_or_name: str) -> str:
    """``/x/libtvm_runtime_cuda.so.1`` -> ``tvm_runtime_cuda``."""
    base = os.path.basename(path_or_name)
    base = base.removeprefix("lib")
    for ext in (".so", ".dylib", ".dll"):
        index = base.find(ext)
        if index > 0:
            base = base[:index]
            break
    return base


def load_lib_once(path_or_name: str, mode: int = ctypes.RTLD_GLOBAL, name: str | None = None):
    """Load a shared library once and record it in ``_LOADED_LIBS``.

    Parameters
    ----------
    path_or_name
        A path, or a name ``ctypes.CDLL`` can find (``"libm.so.6"``).
    mode
        ``ctypes.RTLD_GLOBAL`` (default; symbols visible to later libraries) or
        ``ctypes.RTLD_LOCAL``.
    name
        The key to record; by default the basename without ``lib`` prefix or extension.

    Returns
    -------
    handle : ctypes.CDLL
        The handle, the one already recorded under that key if any.

    Raises
    ------
    OSError
        When the library cannot be loaded (the message names the path).
    """
    key = name if name is not None else _basename(path_or_name)
    handle = _LOADED_LIBS.get(key)
    if handle is not None:
        return handle
    try:
        handle = ctypes.CDLL(path_or_name, mode=mode)
    except OSError as err:
        raise OSError(f"Cannot load shared library {path_or_name!r}: {err}") from err
    _LOADED_LIBS[key] = handle
    return handle
