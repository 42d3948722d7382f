"""The ``c`` backend's runtime module: C source compiled by the system C compiler.

:func:`build` prints a lowered ``IRModule`` as C (:func:`tvm.backend.c.host.codegen_host`),
compiles it into a shared library with ``$CC`` (else ``cc``, ``gcc`` or ``clang``) against the
``tvm_ffi`` headers, and loads that library with ``tvm_ffi.load_module``: calling a function
is a plain ``tvm_ffi`` call of ``__tvm_ffi_<name>``. ``inspect_source()`` returns the C
source; ``export_library`` compiles it again into an object file.

Without a C compiler, :func:`build` raises ``RuntimeError`` naming the compilers it tried.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile

import tvm_ffi

from tvm.runtime.module import Module

__all__ = ["CSourceModuleImpl", "build", "find_compiler"]

_LIBRARIES: dict = {}  # source hash -> loaded tvm_ffi.Module (the same source compiles once)


def find_compiler() -> str:
    """The C compiler driver: ``$CC``, else the first of ``cc``, ``gcc``, ``clang`` on PATH."""
    candidates = [os.environ.get("CC")] if os.environ.get("CC") else []
    candidates += ["cc", "gcc", "clang"]
    for cand in candidates:
        path = shutil.which(cand)
        if path:
            return path
    raise RuntimeError(
        "the c backend needs a C compiler to build its source: none of "
        f"{', '.join(candidates)} was found (set $CC)"
    )


def _compile(source: str, output: str, *, shared: bool) -> None:
    from tvm_ffi import libinfo  # lazy: only a build needs the header and library paths

    work = os.path.dirname(output)
    src = os.path.join(work, "pytvm_c_module.c")
    with open(src, "w", encoding="utf-8") as f:
        f.write(source)
    includes = [libinfo.find_include_path(), libinfo.find_dlpack_include_path()]
    cmd = [find_compiler(), "-O2", "-fPIC", "-std=gnu11", "-w"]
    cmd += [f"-I{path}" for path in includes]
    if shared:
        libdir = os.path.dirname(libinfo.find_libtvm_ffi())
        cmd += ["-shared", src, "-o", output, f"-L{libdir}", "-ltvm_ffi",
                f"-Wl,-rpath,{libdir}", "-lm"]
    else:
        cmd += ["-c", src, "-o", output]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"the c backend's C compiler failed ({' '.join(cmd[:1])}, exit {proc.returncode}):\n"
            f"{proc.stderr.strip()}"
        )


class CSourceModuleImpl:
    """Runtime-module implementation of a ``c`` build: the C source and its loaded library."""

    kind = "c"

    def __init__(self, source: str, names: list):
        self.source = source
        self.names = list(names)
        key = hashlib.sha256(source.encode("utf-8")).hexdigest()
        library = _LIBRARIES.get(key)
        if library is None:
            with tempfile.TemporaryDirectory(prefix="pytvm_c_") as tmp:
                path = os.path.join(tmp, "lib.so")
                _compile(source, path, shared=True)
                # dlopen keeps the mapping after the file is removed.
                library = tvm_ffi.load_module(path)
            _LIBRARIES[key] = library
        self._library = library

    @property
    def entry_name(self) -> str:
        if "main" in self.names or len(self.names) != 1:
            return "main"
        return self.names[0]

    def function_names(self) -> list:
        return list(self.names)

    def get_function(self, name: str):
        if name not in self.names:
            return None
        return self._library.get_function(name)

    def inspect_source(self, fmt: str = "") -> str:
        if fmt in ("", "c", "cc"):
            return self.source
        raise ValueError(
            f"Do not know how to get source code with format: '{fmt}'; the c module has 'c'"
        )

    def get_write_formats(self) -> list:
        return ["c", "o"]

    def write_to_file(self, file_name: str, fmt: str = "") -> None:
        fmt = fmt or os.path.splitext(file_name)[1].lstrip(".")
        if fmt in ("c", "cc"):
            with open(file_name, "w", encoding="utf-8") as out:
                out.write(self.source)
        elif fmt == "o":
            _compile(self.source, os.path.abspath(file_name), shared=False)
        else:
            raise ValueError(f"cannot write a c module in format '{fmt}'; use 'c' or 'o'")

    def export_objects(self, workspace_dir: str) -> list:
        path = os.path.join(workspace_dir, "c_module.o")
        _compile(self.source, path, shared=False)
        return [path]


def build(mod, target=None) -> Module:
    """Lowered ``IRModule`` of ``c`` functions -> a ``tvm.runtime.Module`` (compiled, loaded)."""
    from .host import codegen_host  # lazy: the code generator loads on the first build

    source, names = codegen_host(mod)
    return Module(CSourceModuleImpl(source, names))
