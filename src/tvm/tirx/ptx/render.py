"""Rendering a validated ``T.ptx`` call to inline PTX: one ``__device__`` helper per variant.

:func:`render_ptx` turns a ``tirx.ptx.*`` Call into a :class:`PTXRender`: the helper's name
(``tvm_builtin_ptx_<entry>_<tokens>``, ``::`` written ``__``), the asm template, its output
and input constraints, the C parameters, the Call arguments the helper takes (in order), and
the complete helper source. The CUDA code generator emits each distinct helper once and
calls it with those arguments.

Register classes follow the inline-PTX conventions: 16-bit values ``h``, 32-bit ``r`` (``f``
for f32), 64-bit ``l`` (``d`` for f64); a shared-window address is a 32-bit ``r``, a
generic/global address a 64-bit ``l``. A ``.pred`` operand crosses the C boundary as a
uint32: a source is turned into a predicate with ``setp.ne.b32``, a destination is read back
with ``selp.u32``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import IntImm
from .engine import lane_layout, operand_space, operand_type, resolve

__all__ = ["PTXRender", "render_ptx"]

_CONSTRAINT = {8: "h", 16: "h", 32: "r", 64: "l", 128: "l"}
_CTYPE = {"h": "uint16_t", "r": "uint32_t", "l": "uint64_t", "f": "float", "d": "double"}


@dataclass(frozen=True)
class PTXRender:
    """What the code generator needs to emit and call one PTX helper."""

    name: str
    asm: str
    outputs: tuple  # ((constraint, c_type, param name), ...) in asm operand order
    inputs: tuple
    params: tuple  # ("uint32_t& d0", ...) in call order
    args: tuple  # the Call arguments the helper takes, in call order
    source: str
    memory: bool


def _reg_class(ptx_type: str) -> str:
    if ptx_type == "f32":
        return "f"
    if ptx_type == "f64":
        return "d"
    if ptx_type == "pred":
        return "r"
    bits = int("".join(ch for ch in ptx_type if ch.isdigit()) or 32)
    return _CONSTRAINT.get(bits, "r")


def _helper_name(entry, mods, imms) -> str:
    tokens = [tok.replace("::", "__") for tok in mods.values() if tok]
    parts = ["tvm_builtin_ptx", entry.key, *tokens]
    if imms:
        parts.append("imm" + "_".join(str(v).replace("-", "m") for v in imms))
    return "_".join(parts)


def render_ptx(call) -> PTXRender:
    """The inline-asm helper for a ``tirx.ptx.*`` Call (see the module docstring)."""
    entry, mods, operands = resolve(call)
    if mods.get("ignore_oob"):
        raise ValueError("rendering cp.async.bulk .ignore_oob is not supported yet: its "
                         "ignore-bytes operands are accepted in the IR only")
    layout = lane_layout(entry, mods)
    opcode = ".".join([entry.mnemonic(), *(t for t in mods.values() if t)])
    # Pass 1: classify every argument; outputs are numbered before inputs.
    slots = []  # per operand: (operand, [(kind, payload)])
    outputs, inputs, imms = [], [], []
    pos = 0
    lanes_of = {operand.name: lanes for operand, lanes in layout}
    for operand in entry.operands:
        if operand.kind == "sink":  # written in the text, takes no argument
            slots.append((operand, []))
            continue
        if operand.name not in lanes_of:  # absent: its modifier slot is empty
            continue
        lanes = lanes_of[operand.name]
        items = []
        for _ in range(lanes):
            value = operands[pos]
            pos += 1
            if operand.kind == "imm":
                imm = value.value if isinstance(value, IntImm) else value
                imms.append(imm)
                items.append(("text", str(imm)))
                continue
            if operand.kind == "addr":
                space = operand_space(operand, mods)
                cls = "r" if space.startswith("shared") else "l"
                ptx_type = ""
            elif operand.kind == "tmem":
                cls, ptx_type = "r", "b32"
            else:
                ptx_type = operand_type(operand, mods)
                cls = _reg_class(ptx_type)
            if operand.rw == "r":
                items.append(("in", (len(inputs), ptx_type)))
                inputs.append([cls, value, operand])
            else:
                items.append(("out", (len(outputs), ptx_type)))
                outputs.append(["+" + cls if operand.rw == "rw" else "=" + cls, value, operand])
        slots.append((operand, items))
    n_out = len(outputs)
    pre, post, preds = [], [], 0
    texts = []
    for operand, items in slots:
        parts = []
        for kind, payload in items:
            if kind == "text":
                parts.append(payload)
                continue
            index, ptx_type = payload
            number = index if kind == "out" else n_out + index
            ref = f"%{number}"
            if ptx_type == "pred":
                name = f"P{preds}"
                preds += 1
                pre.append(f".reg .pred {name};")
                if kind == "in":
                    pre.append(f"setp.ne.b32 {name}, {ref}, 0;")
                else:
                    post.append(f"selp.u32 {ref}, 1, 0, {name};")
                ref = name
            parts.append(ref)
        group = operand.lanes != 1
        text = ("{" + ", ".join(parts) + "}") if group else (parts[0] if parts else "_")
        if operand.kind == "sink":
            text = operand.choices[0] if operand.choices else "_"
        texts.append((operand, text))
    # Join operands: addresses in their own brackets, explicit [..] groups together, d|p pipes.
    rendered, bracket, piece = [], None, ""
    for operand, text in texts:
        if operand.open_bracket:
            bracket = [text]
        elif bracket is not None:
            bracket.append(text)
        if bracket is not None:
            if operand.close_bracket:
                piece = "[" + ", ".join(bracket) + "]"
                bracket = None
            else:
                continue
        elif operand.kind == "addr":
            piece = f"[{text}]"
        else:
            piece = text
        if rendered and rendered[-1].endswith("|"):
            rendered[-1] += piece
        else:
            rendered.append(piece)
        if operand.pipe:
            rendered[-1] += "|"
    body = f"{opcode} {', '.join(rendered)};" if rendered else f"{opcode};"
    lines = pre + [body] + post
    asm = "{ " + " ".join(lines) + " }" if pre else body
    # C side.
    params, out_cons, in_cons = [], [], []
    call_args = []
    for k, (cons, value, _operand) in enumerate(outputs):
        ctype = _CTYPE[cons[1]]
        params.append(f"{ctype}& d{k}")
        out_cons.append((cons, ctype, f"d{k}"))
        call_args.append(value)
    for k, (cls, value, operand) in enumerate(inputs):
        ctype = _CTYPE[cls]
        if operand.kind == "addr" and cls == "l":
            params.append(f"const void* a{k}")
        else:
            params.append(f"{ctype} a{k}")
        in_cons.append((cls, ctype, f"a{k}"))
        call_args.append(value)
    name = _helper_name(entry, mods, imms)
    asm_c = asm.replace('"', '\\"')
    out_txt = ", ".join(f'"{c}"({p})' for c, _, p in out_cons)
    in_txt = ", ".join(f'"{c}"({p})' for c, _, p in in_cons)
    clobber = ' : "memory"' if entry.memory or any(o.kind == "addr" for o, _ in layout) else ""
    source = (
        f"__device__ __forceinline__ void {name}({', '.join(params)}) {{\n"
        f'  asm volatile("{asm_c}" : {out_txt} : {in_txt}{clobber});\n'
        "}\n"
    )
    return PTXRender(name, asm, tuple(out_cons), tuple(in_cons), tuple(params),
                     tuple(call_args), source, bool(clobber))
