"""The runtime module of the C host target: C source, compiled by the system C compiler.

:class:`CSourceModuleImpl` holds the C text of a build (``inspect_source()``). Its functions
are callable in-process: on first use the source is compiled into a shared library (``cc``,
``gcc`` or ``clang``; ``$CC`` wins) against ``tvm_ffi``'s headers and ``libtvm_ffi``, which
``tvm_ffi.load_module`` loads. ``export_library`` compiles it into an object file
(``export_objects``) that the runtime's linker step puts into the shared library.

Compiled libraries are cached per process by a SHA-256 of the source and the compiler
options, so an unchanged build is compiled once.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
import threading

import tvm_ffi

from ...runtime.module import find_linker

__all__ = ["COMPILE_OPTIONS", "CSourceModuleImpl", "compile_c"]

#: Options of every compilation (C11 with GNU extensions: vector types, ``restrict``).
COMPILE_OPTIONS = ("-std=gnu11", "-O2", "-fPIC", "-fno-strict-aliasing")

_LOCK = threading.Lock()
_LIBRARIES: dict = {}  # source hash -> tvm_ffi.Module (kept alive: functions point into it)
_TMP = None


def _tmpdir() -> str:
    global _TMP
    if _TMP is None:
        _TMP = tempfile.TemporaryDirectory(prefix="pytvm_c_")
    return _TMP.name


def compile_c(source: str, output: str, *, shared: bool, cc: str | None = None,
              options=()) -> str:
    """Compile C ``source`` into ``output``: a shared library, or an object file (``-c``).

    Raises ``RuntimeError`` naming the command and the compiler's messages when there is no
    C compiler or compilation fails.
    """
    compiler = find_linker(cc)
    if compiler is None:
        raise RuntimeError(
            "the C host target needs a C compiler (cc, gcc or clang on PATH, or $CC) to compile "
            "its source; none was found"
        )
    src = output + ".c"
    with open(src, "w", encoding="utf-8") as out:
        out.write(source)
    include = tvm_ffi.libinfo.find_include_path()
    dlpack = tvm_ffi.libinfo.find_dlpack_include_path()
    cmd = [compiler, *COMPILE_OPTIONS, f"-I{include}", f"-I{dlpack}", *options]
    if shared:
        lib_dir = os.path.dirname(tvm_ffi.libinfo.find_libtvm_ffi())
        cmd += ["-shared", "-o", output, src, f"-L{lib_dir}", "-ltvm_ffi",
                f"-Wl,-rpath,{lib_dir}", "-lm"]
    else:
        cmd += ["-c", "-o", output, src]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"compiling the C source failed (exit {proc.returncode}):\n{' '.join(cmd)}\n"
            f"{proc.stdout}{proc.stderr}"
        )
    return output


class CSourceModuleImpl:
    """A ``tvm.runtime.Module`` implementation over generated C source (see module doc)."""

    kind = "c"

    def __init__(self, source: str, function_names, name: str = "pytvm"):
        self.source = source
        self.name = name
        self._names = list(function_names)
        self._library = None

    # -- runtime.Module implementation protocol ------------------------------------------
    @property
    def entry_name(self) -> str:
        if "main" in self._names or len(self._names) != 1:
            return "main"
        return self._names[0]

    def function_names(self) -> list:
        return list(self._names)

    def get_function(self, name: str):
        if name not in self._names:
            return None
        return self._compiled().get_function(name)

    def _compiled(self):
        """The in-process shared library of this source (compiled on first use)."""
        if self._library is not None:
            return self._library
        key = hashlib.sha256((" ".join(COMPILE_OPTIONS) + "\n" + self.source).encode()).hexdigest()
        with _LOCK:
            library = _LIBRARIES.get(key)
            if library is None:
                path = os.path.join(_tmpdir(), f"c_{key[:24]}.so")
                compile_c(self.source, path, shared=True)
                library = tvm_ffi.load_module(path)
                _LIBRARIES[key] = library
        self._library = library
        return library

    def inspect_source(self, fmt: str = "") -> str:
        if fmt in ("", "c", "cc"):
            return self.source
        raise ValueError(
            f"Do not know how to get source code with format: '{fmt}'; the C host module "
            "supports 'c'"
        )

    def get_write_formats(self) -> list:
        return ["c", "o"]

    def write_to_file(self, file_name: str, fmt: str = "") -> None:
        fmt = fmt or os.path.splitext(file_name)[1].lstrip(".")
        if fmt in ("c", "cc"):
            with open(file_name, "w", encoding="utf-8") as out:
                out.write(self.source)
        elif fmt == "o":
            compile_c(self.source, file_name, shared=False)
        else:
            raise ValueError(f"cannot write a C module in format '{fmt}'; use 'c' or 'o'")

    def export_objects(self, workspace_dir: str) -> list:
        """Compile the source into an object file under ``workspace_dir``; its path."""
        safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in self.name) or "module"
        return [compile_c(self.source, os.path.join(workspace_dir, f"{safe}_c.o"),
                          shared=False)]
