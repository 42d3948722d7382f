"""``T.ptx``: a table-driven PTX dialect for TIRx kernels.

Two spellings build the same call:

* attribute chain: ``T.ptx.ld.global_.acquire.gpu.b32(dst, ptr)``: the first name is the
  family, later names fill modifier slots in any order; a trailing ``_`` escapes a Python
  keyword (``global_``) and ``__`` stands for ``::`` (``shared__cta``);
* exact PTX text: ``T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](...)``.

Each call is a void ``tirx.Call`` of ``tirx.ptx.<family>`` with effect kind Opaque:
destinations are leading operands and the modifiers trail as strings, which is also how it
prints. Calls are validated when built (unknown family or modifier, missing modifier, wrong
operand count or kind: ``ValueError``). The table is :mod:`.table`; its form is described in
:mod:`.spec` and docs/arch/tirx_ptx.md.

:func:`required_arch` gives the oldest GPU a call assembles for, and :func:`check_arch`
rejects a kernel that uses an instruction its target lacks.
"""

from __future__ import annotations

from ..cuda_ops import CUDA_OP_ARCH
from .engine import PTXModifierError, PTXNamespace, register_ops, required_arch_of, required_ptx_of
from .engine import resolve as _resolve
from .render import PTXRender, render_ptx
from .spec import arch_satisfies, parse_arch
from .table import ENTRIES, TABLE

__all__ = [
    "ENTRIES",
    "TABLE",
    "PTXModifierError",
    "PTXRender",
    "check_arch",
    "ptx",
    "render_ptx",
    "required_arch",
    "required_ptx_version",
]

register_ops()

#: The ``T.ptx`` namespace object.
ptx = PTXNamespace()


def required_arch(call) -> str:
    """The oldest CUDA arch (``"sm_80"``, ``"sm_90a"``, ``"sm_100a"``...) that has ``call``.

    ``call`` is a ``tirx.ptx.*`` Call, or a ``tirx.cuda.*`` one (``"sm_50"`` when the builtin
    has no requirement).
    """
    name = getattr(call.op, "name", "")
    if name.startswith("tirx.cuda."):
        return CUDA_OP_ARCH.get(name, "sm_50")
    entry, mods, _ = _resolve(call)
    return required_arch_of(entry, mods)


def required_ptx_version(call) -> str:
    """The first PTX ISA version (``"8.0"``) with this ``tirx.ptx.*`` call's instruction."""
    entry, mods, _ = _resolve(call)
    return required_ptx_of(entry, mods)


def _ptx_text(call) -> str:
    entry, mods, _ = _resolve(call)
    return ".".join([entry.mnemonic(), *(t for t in mods.values() if t)])


def _calls(node):
    from ..stmt_functor import post_order_visit  # same layer; stmt_functor is heavier

    found = []

    def visit(obj):
        op_name = getattr(getattr(obj, "op", None), "name", "")
        if isinstance(op_name, str) and op_name.startswith(("tirx.ptx.", "tirx.cuda.")):
            found.append(obj)

    post_order_visit(node, visit)
    return found


def _spans(func):
    # Statement spans point at the TVMScript line when the call itself has none.
    from ..stmt_functor import post_order_visit  # same layer; stmt_functor is heavier

    spans = {}

    def visit(obj):
        value = getattr(obj, "value", None)
        span = getattr(obj, "span", None)
        if value is not None and span is not None and hasattr(value, "op"):
            spans[id(value)] = span

    post_order_visit(func, visit)
    return spans


def check_arch(func_or_mod, arch: str) -> None:
    """Raise ``ValueError`` if a ``T.ptx``/``T.cuda`` call of the kernel(s) needs more than
    ``arch`` (e.g. ``"sm_90a"``).

    The message names the instruction, the arch it needs, and, when the call came from
    TVMScript, the source line. ``func_or_mod`` is a PrimFunc or an IRModule (every PrimFunc
    of it is checked).
    """
    parse_arch(arch)  # a bad target name is the caller's error, reported first
    funcs = []
    if hasattr(func_or_mod, "functions"):
        funcs = [(gv.name_hint, f) for gv, f in func_or_mod.functions.items()
                 if type(f).__name__ == "PrimFunc"]
    else:
        funcs = [(None, func_or_mod)]
    for fname, func in funcs:
        spans = _spans(func.body)
        for call in _calls(func.body):
            need = required_arch(call)
            if arch_satisfies(arch, need):
                continue
            name = call.op.name
            what = (f"ptx instruction '{_ptx_text(call)}'" if name.startswith("tirx.ptx.")
                    else f"T.cuda.{name[len('tirx.cuda.'):]}")
            span = getattr(call, "span", None) or spans.get(id(call))
            where = ""
            if span is not None:
                where = f" at {span.source_name.name}:{span.line}"
                try:
                    import linecache  # stdlib: show the offending TVMScript line

                    text = linecache.getline(span.source_name.name, span.line).strip()
                    if text:
                        where += f": {text}"
                except (AttributeError, TypeError):
                    pass
            in_func = f" in {fname}" if fname else ""
            raise ValueError(f"{what}{in_func} requires {need}, but the target is {arch}"
                             f"{where}")
