"""Assemble many rendered ``T.ptx`` helpers with one nvcc call (a test utility).

A ``__forceinline__`` helper reaches ptxas only when a kernel calls it, so
:func:`kernel_source` writes one kernel per helper that calls it with locals of the
parameters' types. :func:`assemble` compiles the unit to a cubin and returns nvcc's error
text ("" when it assembled).
"""

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

_PRELUDE = """#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
"""

_PARAM = re.compile(r"^(.*?)(&?)\s*(__\w+)$")

#: The PTX ISA version the installed nvcc writes (CUDA 13.0: 9.0). Shapes that need a newer
#: one cannot be assembled here.
NVCC_PTX = (9, 0)


def have_nvcc() -> bool:
    return shutil.which("nvcc") is not None


def ptx_ok(version: str) -> bool:
    return tuple(int(x) for x in version.split(".")) <= NVCC_PTX


def _signature(source: str):
    head = source.split("{", 1)[0]
    name = re.search(r"void (\w+)\(", head).group(1)
    inner = head[head.index("(") + 1:head.rindex(")")].strip()
    params = [p.strip() for p in inner.split(",")] if inner else []
    return name, params


def kernel_source(sources) -> str:
    """One translation unit: each helper once, then one kernel calling each."""
    helpers, kernels, seen = [], [], set()
    for k, source in enumerate(sources):
        name, params = _signature(source)
        if name in seen:
            continue
        seen.add(name)
        helpers.append(source)
        decls, args = [], []
        for j, param in enumerate(params):
            m = _PARAM.match(param)
            ctype, ref = m.group(1).strip(), m.group(2)
            if ctype == "const void*":
                args.append("p")
                continue
            decls.append(f"  {ctype} v{j}{'' if ref else ' = ' + _init(ctype)};")
            args.append(f"v{j}")
        sinks = "".join(f"  sink[{j}] = (unsigned long long)(v{j});\n"
                        for j, p in enumerate(params) if "&" in p and _numeric(p))
        kernels.append(f'extern "C" __global__ void k{k}(void* p, unsigned long long* sink) {{\n'
                       + "\n".join(decls) + ("\n" if decls else "")
                       + f"  {name}({', '.join(args)});\n" + sinks + "}\n")
    return _PRELUDE + "".join(helpers) + "".join(kernels)


def _numeric(param: str) -> bool:
    return not any(t in param for t in ("half", "bfloat16", "__uint128_t"))


def _init(ctype: str) -> str:
    if ctype == "half":
        return "__float2half(1.0f)"
    if ctype == "nv_bfloat16":
        return "__float2bfloat16(1.0f)"
    return f"({ctype})threadIdx.x"


def assemble(sources, arch: str) -> str:
    """nvcc's error output for the helpers ``sources`` on ``arch`` ("" when they assemble)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "helpers.cu"
        src.write_text(kernel_source(sources))
        proc = subprocess.run(["nvcc", f"-arch={arch}", "-cubin", "-o", str(Path(tmp) / "o"),
                               str(src)], check=False, capture_output=True, text=True,
                              timeout=600)
        return "" if proc.returncode == 0 else (proc.stderr or proc.stdout)


def spellings(entry, limit=16):
    """Token tuples to assemble for ``entry``: all of them when there are at most ``limit``,
    else a covering set in which every token of every slot appears at least once."""
    import itertools

    from tvm.backend.cuda.ptx import renderings

    every = list(itertools.islice(renderings(entry), limit + 1))
    if len(every) <= limit:
        return [tokens for tokens, *_ in every]
    picked = {}
    axes = [(("",) if s.optional else ()) + tuple(s.choices) for s in entry.slots]
    for i, slot in enumerate(entry.slots):
        for choice in slot.choices:
            fixed = [axis if j != i else (choice,) for j, axis in enumerate(axes)]
            for tokens in itertools.product(*fixed):
                mods = {s.name: t for s, t in zip(entry.slots, tokens)}
                if entry.check is None or not entry.check(mods):
                    picked[tokens] = None
                    break
    return list(picked)


def imm_values(entry, tokens):
    """A legal value for each immediate operand of ``entry`` with ``tokens``."""
    from tvm.tirx.ptx.engine import _mods, lane_layout

    out = []
    for operand, lanes in lane_layout(entry, _mods(entry, tokens)):
        if operand.kind == "imm":
            out.extend([int(operand.choices[0]) if operand.choices else 0] * lanes)
    return out


def helpers_for(arch, entries, limit=16):
    """``(sources, skipped)``: helper sources of every spelling of ``entries`` that ``arch``
    has and the installed nvcc's PTX version can express; the keys skipped for PTX."""
    from tvm.backend.cuda.ptx import render_variant
    from tvm.tirx.ptx.engine import _mods, required_arch_of, required_ptx_of
    from tvm.tirx.ptx.spec import arch_satisfies

    sources, skipped = [], set()
    for entry in entries:
        for tokens in spellings(entry, limit):
            mods = _mods(entry, tokens)
            if not arch_satisfies(arch, required_arch_of(entry, mods)):
                continue
            if not ptx_ok(required_ptx_of(entry, mods)):
                skipped.add(entry.key)
                continue
            sources.append(render_variant(entry, tokens, imms=imm_values(entry, tokens))[2])
    return sources, skipped
