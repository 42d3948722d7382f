"""Compile CUDA C with ``nvcc`` (or NVRTC): :func:`compile_cuda`, :func:`compile_many`.

``nvcc`` is looked up on ``PATH``, then in ``$CUDA_HOME/bin``. A compile error raises
:class:`CUDACompileError` whose message shows each of nvcc's error lines next to the source
lines it points at. NVRTC (``compiler="nvrtc"``) needs the ``cuda-bindings`` package
(``cuda.bindings.nvrtc``), imported only when asked for.

nvcc costs about 1.2 s per call whatever the source size, so tests put many kernels in one
translation unit: :func:`compile_many` joins sources (one preamble) and compiles them once.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

__all__ = ["CUDACompileError", "compile_cuda", "compile_many", "find_nvcc", "join_sources"]

_FORMATS = ("cubin", "fatbin", "ptx")
_ERROR_LINE = re.compile(r"\((\d+)\): (error|warning)")
_CONTEXT = 2


class CUDACompileError(RuntimeError):
    """nvcc or NVRTC rejected the source; the message quotes the offending lines."""


def find_nvcc() -> str | None:
    """The path of ``nvcc`` (``PATH``, then ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin``)."""
    found = shutil.which("nvcc")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            candidate = os.path.join(root, "bin", "nvcc")
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    return None


def _arch_flags(target_arch: str) -> list:
    arch = target_arch.replace("sm_", "")
    if not re.fullmatch(r"\d+[af]?", arch):
        raise ValueError(f"target_arch must look like 'sm_90a', got {target_arch!r}")
    return [f"-gencode=arch=compute_{arch},code=sm_{arch}"]


def _annotate(message: str, source: str) -> str:
    """nvcc's message with the source lines each error points at."""
    lines = source.splitlines()
    out = []
    for line in message.splitlines():
        out.append(line)
        match = _ERROR_LINE.search(line)
        if match and match.group(2) == "error":
            k = int(match.group(1))
            for n in range(max(1, k - _CONTEXT), min(len(lines), k + _CONTEXT) + 1):
                mark = ">>" if n == k else "  "
                out.append(f"    {mark} {n:5d} | {lines[n - 1]}")
    return "\n".join(out)


def compile_cuda(source: str, target_arch: str = "sm_90a", fmt: str = "cubin",
                 compiler: str = "nvcc", options=()) -> bytes:
    """Compile CUDA C ``source`` for ``target_arch``; the ``cubin``/``fatbin``/``ptx`` bytes.

    Raises ``ValueError`` for a bad format or arch, ``RuntimeError`` when nvcc (or NVRTC) is not
    installed, and :class:`CUDACompileError` (a ``RuntimeError``) when the source does not
    compile.
    """
    if fmt not in _FORMATS:
        raise ValueError(f"fmt must be one of {_FORMATS}, got {fmt!r}")
    if compiler == "nvrtc":
        return _compile_nvrtc(source, target_arch, fmt, options)
    if compiler != "nvcc":
        raise ValueError(f"compiler must be 'nvcc' or 'nvrtc', got {compiler!r}")
    nvcc = find_nvcc()
    if nvcc is None:
        raise RuntimeError(
            "nvcc was not found on PATH or in $CUDA_HOME/bin; install the CUDA toolkit to "
            "compile CUDA source (the source itself can still be generated)"
        )
    flags = _arch_flags(target_arch)
    with tempfile.TemporaryDirectory(prefix="pytvm_nvcc_") as tmp:
        src = os.path.join(tmp, "kernels.cu")
        out = os.path.join(tmp, f"kernels.{fmt}")
        with open(src, "w") as f:
            f.write(source)
        cmd = [nvcc, f"--{fmt}", "-O3", *flags, *options, "-o", out, src]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            message = (proc.stderr + proc.stdout).replace(src, "kernels.cu")
            raise CUDACompileError(
                f"nvcc failed to compile the CUDA source for {target_arch}:\n"
                + _annotate(message, source)
            )
        with open(out, "rb") as f:
            return f.read()


def _compile_nvrtc(source, target_arch, fmt, options) -> bytes:
    try:
        from cuda.bindings import nvrtc  # lazy: optional extra, heavy import
    except ImportError as err:
        raise RuntimeError(
            "NVRTC needs the cuda-bindings package (pip install 'cuda-bindings>=13,<14' "
            "nvidia-cuda-nvrtc); use compiler='nvcc' otherwise"
        ) from err
    if fmt == "fatbin":
        raise ValueError("NVRTC produces cubin or ptx, not fatbin")
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"kernels.cu", 0, [], [])
    _check_nvrtc(nvrtc, err, "nvrtcCreateProgram")
    arch = target_arch.replace("sm_", "")
    virtual = "sm" if fmt == "cubin" else "compute"
    opts = [f"--gpu-architecture={virtual}_{arch}".encode(), b"-default-device"]
    home = os.environ.get("CUDA_HOME")
    if home:
        opts.append(f"-I{os.path.join(home, 'include')}".encode())
    opts += [o.encode() for o in options]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise CUDACompileError(
            f"NVRTC failed to compile the CUDA source for {target_arch}:\n"
            + _annotate(log.decode(errors="replace"), source)
        )
    if fmt == "cubin":
        _, size = nvrtc.nvrtcGetCUBINSize(prog)
        data = b" " * size
        nvrtc.nvrtcGetCUBIN(prog, data)
    else:
        _, size = nvrtc.nvrtcGetPTXSize(prog)
        data = b" " * size
        nvrtc.nvrtcGetPTX(prog, data)
    nvrtc.nvrtcDestroyProgram(prog)
    return bytes(data)


def _check_nvrtc(nvrtc, err, what):
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise CUDACompileError(f"{what} failed: {err}")


def join_sources(sources) -> str:
    """One translation unit from several generated sources.

    The preamble (everything before the first ``extern "C"`` line and before the device
    helpers) is kept once, each ``T.ptx``/``T.cuda`` helper once by name, then every kernel;
    each kernel name must be unique across the sources (``ValueError`` otherwise).
    """
    # The helpers' markers belong to the TIRx code generator.
    from .codegen_tirx import HELPER_BEGIN, helper_text

    head, helpers, bodies, names = None, {}, [], set()
    for text in sources:
        cut = text.find('extern "C"')
        pre, body = (text, "") if cut < 0 else (text[:cut], text[cut:])
        first = pre.find(HELPER_BEGIN)
        preamble = pre if first < 0 else pre[:first]
        if head is None:
            head = preamble
        if first >= 0:
            for chunk in pre[first:].split(HELPER_BEGIN)[1:]:
                name, _, source = chunk.partition("\n")
                helpers.setdefault(name, source)
        found = set(re.findall(r"__global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(", body))
        clash = found & names
        if clash:
            raise ValueError(f"join_sources: kernel {min(clash)} appears in two sources")
        names |= found
        extra = "".join(line + "\n" for line in preamble.splitlines()
                        if line.startswith("#include") and line not in (head or ""))
        bodies.append(extra + body)
    return (head or "") + helper_text(helpers) + "".join(bodies)


def compile_many(sources, target_arch: str = "sm_90a", fmt: str = "cubin") -> bytes:
    """Compile several generated sources in one nvcc call (see :func:`join_sources`)."""
    return compile_cuda(join_sources(sources), target_arch, fmt)
