"""``tvm.support.clang``: find ``clang`` and compile C/C++ source to LLVM IR text.

TVM code uses it to build LLVM IR that a module links in (``tvm.support.clang.create_llvm``
whose text goes to ``mod.attrs["tirx.llvm_ir"]``-style hooks or an ``llvm`` module import).
``find_clang`` looks for ``$TVM_CLANG``, then ``clang-<major>`` of the LLVM that llvmlite
links (the IR then matches that LLVM), then the other versioned names and plain ``clang``.
Failures raise ``RuntimeError`` carrying the command and the compiler output.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from . import utils

__all__ = ["create_llvm", "find_clang"]


def _llvm_major():
    try:
        # Lazy and optional: only used to prefer the matching clang version.
        import llvmlite.binding as llvm

        return int(llvm.llvm_version_info[0])
    except Exception:  # noqa: BLE001 - llvmlite missing or unusable: no preference
        return None


def find_clang(required: bool = True) -> list:
    """The paths of the ``clang`` executables on this machine, best first.

    Parameters
    ----------
    required : bool
        Raise when none is found (otherwise return an empty list).

    Returns
    -------
    list of str
        Absolute paths, without duplicates.

    Raises
    ------
    RuntimeError
        When ``required`` and no clang is installed.
    """
    names = []
    if os.environ.get("TVM_CLANG"):
        names.append(os.environ["TVM_CLANG"])
    major = _llvm_major()
    if major is not None:
        names.append(f"clang-{major}")
    names += [f"clang-{v}" for v in range(30, 9, -1) if v != major]
    names.append("clang")
    found = []
    for name in names:
        path = shutil.which(name)
        if path and path not in found:
            found.append(path)
    if required and not found:
        raise RuntimeError(
            "tvm.support.clang: cannot find clang (looked for $TVM_CLANG, clang-<version> and "
            "clang on PATH); install clang or set TVM_CLANG"
        )
    return found


def create_llvm(inputs, output=None, options=None, cc=None) -> str:
    """Compile C/C++ to LLVM IR text with ``clang -S -emit-llvm``.

    Parameters
    ----------
    inputs : str or list of str
        Source file names, or source code: an entry that is not an existing file is written
        to a temporary ``input<i>.cc`` first.
    output : str, optional
        Where the ``.ll`` goes (a temporary file when omitted).
    options : list of str, optional
        Extra compiler options (``["-O3", "--target=x86_64-linux-gnu"]``).
    cc : str, optional
        The compiler (the first of :func:`find_clang` when omitted).

    Returns
    -------
    str
        The LLVM IR text.

    Raises
    ------
    RuntimeError
        When no clang is found or the compilation fails (with the compiler's output).
    """
    cc = cc if cc else find_clang()[0]
    inputs = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
    temp = utils.tempdir()
    output = os.fspath(output) if output is not None else temp.relpath("output.ll")
    files = []
    for i, item in enumerate(inputs):
        item = os.fspath(item)
        if os.path.isfile(item):
            files.append(item)
        else:
            path = temp.relpath(f"input{i}.cc")
            with open(path, "w", encoding="utf-8") as f:
                f.write(item)
            files.append(path)
    cmd = [cc, "-S", "-emit-llvm", "-o", output, *(options or []), *files]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"tvm.support.clang: compilation failed: {' '.join(cmd)}\n{proc.stdout}{proc.stderr}"
        )
    with open(output, encoding="utf-8") as f:
        return f.read()
