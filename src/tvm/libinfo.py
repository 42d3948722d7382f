"""Version and installation information.

pytvm is pure Python: there is no ``libtvm`` shared library. The helpers keep TVM's names and
report the one native library the stack runs on, ``libtvm_ffi`` from ``apache-tvm-ffi``.
"""

from __future__ import annotations

import os

__all__ = ["__version__", "find_include_path", "find_libtvm_runtime", "package_lib_paths"]

#: The TVM release whose public Python API this package follows (a development version).
__version__ = "0.27.0.dev0"


def package_lib_paths() -> list[str]:
    """Folders that hold the native libraries the stack loads (``tvm_ffi``'s ``lib`` folder)."""
    import tvm_ffi

    lib_dir = os.path.join(os.path.dirname(tvm_ffi.__file__), "lib")
    return [lib_dir] if os.path.isdir(lib_dir) else []


def find_libtvm_runtime() -> list[str]:
    """Paths of the runtime library: in pytvm that is ``libtvm_ffi`` (no separate runtime)."""
    import tvm_ffi.libinfo

    return [tvm_ffi.libinfo.find_libtvm_ffi()]


def find_include_path() -> list[str]:
    """C headers needed to build code against the runtime ABI (``tvm/ffi/c_api.h``, DLPack)."""
    import tvm_ffi.libinfo

    paths = [tvm_ffi.libinfo.find_include_path()]
    dlpack = tvm_ffi.libinfo.find_dlpack_include_path()
    if dlpack not in paths:
        paths.append(dlpack)
    return paths
