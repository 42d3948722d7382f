"""``tvm.support.cc``: the host C compiler driver (``$CC``, else ``cc``/``gcc``/``clang``).

``create_shared`` / ``create_staticlib`` / ``create_executable`` have TVM's signature
``f(output, objects, options=None, cc=None)`` and are usable as ``export_library``'s
``fcompile``. Failures raise ``RuntimeError`` carrying the command and the compiler output.
"""

from __future__ import annotations

import os
import shutil
import subprocess

__all__ = [
    "create_executable",
    "create_shared",
    "create_staticlib",
    "cross_compiler",
    "get_cc",
]


def get_cc():
    """The path of the C compiler driver to use, or None when none is installed."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _as_list(value):
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    return [os.fspath(v) for v in value]


def _run(cmd, what):
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{what} failed (exit {proc.returncode}):\n{' '.join(cmd)}\n{proc.stdout}{proc.stderr}"
        )


def _compiler(cc):
    found = shutil.which(cc) if cc else get_cc()
    if not found:
        raise RuntimeError(
            f"no C compiler driver found ({cc or '$CC, cc, gcc or clang'}); install one or "
            "pass cc=..."
        )
    return found


def _compile(output, objects, options, cc, mode):
    cmd = [_compiler(cc)]
    if mode == "shared":
        cmd += ["-shared", "-fPIC"]
    cmd += ["-o", os.fspath(output), *_as_list(objects), *_as_list(options)]
    _run(cmd, f"creating {mode} '{output}'")


def create_shared(output, objects, options=None, cc=None, cwd=None, ccache_env=None):
    """Link (or compile and link) ``objects`` into the shared library ``output``.

    ``cwd`` and ``ccache_env`` are accepted for TVM compatibility and ignored.
    """
    del cwd, ccache_env
    _compile(output, objects, options, cc, "shared")


def create_executable(output, objects, options=None, cc=None, cwd=None, ccache_env=None):
    """Compile and link ``objects`` (sources or object files) into the program ``output``."""
    del cwd, ccache_env
    _compile(output, objects, options, cc, "executable")


def create_staticlib(output, inputs, ar=None):
    """Archive the object files ``inputs`` into the static library ``output`` (``ar rcs``)."""
    tool = ar or os.environ.get("AR") or "ar"
    if not shutil.which(tool):
        raise RuntimeError(f"create_staticlib needs the archiver '{tool}', not found on PATH")
    output = os.fspath(output)
    if os.path.exists(output):
        os.remove(output)  # ar would append to an old archive
    _run([shutil.which(tool), "rcs", output, *_as_list(inputs)], f"creating archive '{output}'")


# TVM marks its functions with the output format they produce.
create_shared.output_format = "so"
create_executable.output_format = "out"
create_staticlib.output_format = "a"


def cross_compiler(compile_func, options=None, output_format=None, get_target_triple=None,
                   add_files=None):
    """Wrap ``compile_func`` (a callable, or a compiler driver name) with fixed extra options.

    Returns ``f(outputs, objects, options=None)`` usable as ``fcompile``.
    """
    base_options = _as_list(options)
    extra_files = _as_list(add_files)
    if isinstance(compile_func, str):
        driver = compile_func

        def compile_func(out, objs, options=None, cc=None):
            create_shared(out, objs, options, cc=driver)

    def _fcompile(outputs, objects, options=None):
        return compile_func(outputs, _as_list(objects) + extra_files,
                            options=base_options + _as_list(options))

    _fcompile.output_format = output_format or getattr(compile_func, "output_format", "so")
    if get_target_triple is not None:
        _fcompile.get_target_triple = get_target_triple
    return _fcompile
