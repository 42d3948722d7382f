"""Rendering a validated ``T.ptx`` call to inline PTX: one ``__device__`` helper per variant.

:func:`render_ptx` turns a ``tirx.ptx.*`` Call into a :class:`PTXRender`: the helper's name
(``tvm_builtin_ptx_<entry>_<tokens>``, ``::`` written ``__``), the asm template, its output
and input constraints, the C parameters, the Call arguments the helper takes (in order), and
the complete helper source. The CUDA code generator emits each distinct helper once and
calls it with those arguments. :func:`render_variant` renders one table entry with given
modifier tokens and no call at all (the C types then follow the PTX types).

The helper is ``__forceinline__ __device__ void <name>(<params>)``. A parameter is named
after its table operand, ``__<operand>``, or ``__<operand><lane>`` in a register group
(``__d0, __d1``). Register classes follow the inline-PTX conventions: 16-bit values ``h``,
32-bit ``r`` (``f`` for f32), 64-bit ``l`` (``d`` for f64), 128-bit ``q``; a shared-window
address is a 32-bit ``r``, a generic/global address a 64-bit ``l``. Values whose C type is
not the register's carrier cross through a local ``__<name>_reg`` (8-bit integers, ``half``,
``nv_bfloat16``, ``bool``). A ``.pred`` operand crosses as a uint32: a source is turned into
a predicate with ``setp.ne.b32``, a destination is read back with ``selp.u32``. An operand
that PTX types ``.b8`` outside a memory instruction (``cvt`` to/from ``.e2m1x2``) is staged
in a block-local ``.reg .b8 raw_<name>`` bridged with ``cvt.u16.u8`` / ``cvt.u8.u16``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import Call, IntImm
from .engine import (
    SINK,
    _mods,
    call_guard,
    lane_layout,
    operand_space,
    operand_type,
    ptx_bits,
    resolve,
)

__all__ = ["PTXRender", "render_ptx", "render_variant"]

#: Constraint letter -> the C type inline asm binds it to.
_CARRIER = {"h": "uint16_t", "r": "uint32_t", "l": "uint64_t", "f": "float", "d": "double",
            "q": "__uint128_t"}
#: PTX register type -> the C type a helper parameter has when no value says otherwise.
_NATURAL = {
    "b8": "uint8_t", "u8": "uint8_t", "s8": "int8_t",
    "b16": "uint16_t", "u16": "uint16_t", "s16": "int16_t", "f16": "half", "bf16": "nv_bfloat16",
    "b32": "uint32_t", "u32": "uint32_t", "s32": "int32_t", "f32": "float",
    "b64": "uint64_t", "u64": "uint64_t", "s64": "int64_t", "f64": "double",
    "b128": "__uint128_t", "pred": "uint32_t",
    "f16x2": "uint32_t", "bf16x2": "uint32_t", "u16x2": "uint32_t", "s16x2": "uint32_t",
}
#: TIR dtype of a call argument -> its C type.
_DTYPE_C = {
    "uint8": "uint8_t", "int8": "int8_t", "uint16": "uint16_t", "int16": "int16_t",
    "float16": "half", "bfloat16": "nv_bfloat16", "uint32": "uint32_t", "int32": "int32_t",
    "float32": "float", "uint64": "uint64_t", "int64": "int64_t", "float64": "double",
    "bool": "bool", "uint128": "__uint128_t", "int128": "__uint128_t", "handle": "const void*",
}
#: (param C type, carrier C type) -> (to carrier, from carrier) format strings.
_BRIDGE = {
    ("half", "uint16_t"): ("__half_as_ushort({})", "__ushort_as_half({})"),
    ("nv_bfloat16", "uint16_t"): ("__bfloat16_as_ushort({})", "__ushort_as_bfloat16({})"),
    ("bool", "uint32_t"): ("(uint32_t)({})", "({} != 0)"),
}
#: Families whose 8-bit operands may live in a wider register (``ld.u8 %rs``); elsewhere a
#: ``.b8`` operand needs a real ``.b8`` register.
_WIDE_8BIT = {"ld", "st", "atom", "red", "ldu", "multimem_st", "multimem_ld_reduce"}


@dataclass(frozen=True)
class PTXRender:
    """What the code generator needs to emit and call one PTX helper."""

    name: str
    asm: str
    outputs: tuple  # ((constraint, carrier C type, asm operand expression), ...)
    inputs: tuple
    params: tuple  # ("uint32_t& __d", ...) in call order
    args: tuple  # the Call arguments the helper takes, in call order
    source: str
    memory: bool
    opcode: str = ""


def _bits(ptx_type: str) -> int:
    return ptx_bits(ptx_type)


def _constraint(ptx_type: str, ctype: str) -> str:
    """The register class of one lane: from the PTX type's width, ``f``/``d`` for a float
    value."""
    if ptx_type == "pred":
        return "r"
    bits = _bits(ptx_type)
    if bits == 32 and ctype == "float":
        return "f"
    if bits == 64 and ctype == "double":
        return "d"
    return {8: "h", 16: "h", 32: "r", 64: "l", 128: "q"}.get(bits, "r")


def _convert(param_c: str, carrier: str):
    """(to carrier, from carrier) format strings, or None when the types bind directly."""
    if param_c == carrier:
        return None
    if (param_c, carrier) in _BRIDGE:
        return _BRIDGE[(param_c, carrier)]
    if carrier == "uint16_t" and param_c in ("uint8_t", "int8_t"):
        return ("(uint16_t){}", f"({param_c}){{}}")
    if param_c in ("int16_t", "int32_t", "int64_t"):
        return None  # "h"/"r"/"l" bind signed integers of their width as well
    if carrier == "uint32_t" and param_c == "float":
        return ("__float_as_uint({})", "__uint_as_float({})")
    if carrier == "uint64_t" and param_c == "double":
        return ("__double_as_longlong({})", "__longlong_as_double({})")
    return (f"({carrier})({{}})", f"({param_c})({{}})")


@dataclass
class _Lane:
    operand: object
    param: str  # parameter name, "__d0"
    ptx_type: str
    param_c: str  # the parameter's C type ("const void*" for a generic address)
    cons: str  # constraint letter
    rw: str  # "r", "w" or "rw"
    value: object = None
    number: int = -1  # asm operand number


def _lane_ctype(operand, ptx_type, value):
    dtype = str(getattr(value, "dtype", "") or "")
    if operand.kind == "addr":
        if ptx_type == "u32":
            return "uint32_t"  # a shared-window address
        return _DTYPE_C[dtype] if dtype in ("uint64", "int64") else "const void*"
    if dtype in _DTYPE_C:
        return _DTYPE_C[dtype]
    return _NATURAL.get(ptx_type, "uint32_t")


def _build(entry, mods, values=None, addr_offsets=None, guard=None):
    """Render ``entry`` with modifiers ``mods``; ``values`` are the call's operand arguments
    (immediates included) or None for a value-free rendering; ``guard`` is the ``pred=``
    value of a guarded call."""
    addr_offsets = addr_offsets or {}
    layout = lane_layout(entry, mods)
    opcode = ".".join([entry.mnemonic(), *(t for t in mods.values() if t)])
    wide8 = entry.family in _WIDE_8BIT
    lanes_of = {operand.name: n for operand, n in layout}
    groups = []  # per operand: (operand, [items]); item = ("text", str) | ("lane", _Lane)
    outs, ins, imms, pos = [], [], [], 0
    for operand in entry.operands:
        if operand.kind == "sink":
            groups.append((operand, [("text", operand.choices[0] if operand.choices else "_")]))
            continue
        if operand.name not in lanes_of:
            continue
        n = lanes_of[operand.name]
        items = []
        for lane in range(n):
            value = values[pos] if values is not None else None
            pos += 1
            if value is SINK:
                items.append(("text", "_"))
                continue
            if operand.kind == "imm":
                if value is None:
                    raise ValueError(f"{entry.key}: operand '{operand.name}' is an immediate; "
                                     "render_variant needs its value (imms=...)")
                imm = value.value if isinstance(value, IntImm) else value
                imms.append(imm)
                items.append(("text", str(imm)))
                continue
            if operand.kind == "addr":
                space = operand_space(operand, mods)
                ptx_type = "u32" if space.startswith("shared") else "u64"
            elif operand.kind == "tmem":
                ptx_type = "b32"
            else:
                ptx_type = operand_type(operand, mods)
                if ptx_type == "ptr":  # a pointer in a 64-bit register
                    ptx_type = "u64"
            param_c = _lane_ctype(operand, ptx_type, value)
            if operand.kind == "addr":
                cons = "r" if ptx_type == "u32" else "l"
            else:
                cons = _constraint(ptx_type, param_c)
            name = f"__{operand.name}{lane}" if n != 1 else f"__{operand.name}"
            item = _Lane(operand, name, ptx_type, param_c, cons, operand.rw, value)
            (ins if operand.rw == "r" else outs).append(item)
            items.append(("lane", item))
        groups.append((operand, items))
    guard_lane = None
    if guard is not None:
        # The guard crosses as a uint32 (any integer or bool converts) and is the last input.
        guard_lane = _Lane(None, "__pred", "b32", "uint32_t", "r", "r", guard)
        ins.append(guard_lane)
        for item in outs:  # where the guard is false a destination keeps its value
            item.rw = "rw"
    for k, item in enumerate(outs + ins):
        item.number = k
    pre, post, body_parts = [], [], []
    if guard_lane is not None:
        pre += [".reg .pred p;", f"setp.ne.b32 p, %{guard_lane.number}, 0;"]
    n_pred = 0
    for operand, items in groups:
        parts = []
        for kind, item in items:
            if kind == "text":
                parts.append(item)
                continue
            ref = f"%{item.number}"
            if item.ptx_type == "pred":
                pname = f"P{n_pred}"
                n_pred += 1
                pre.append(f".reg .pred {pname};")
                if item.rw == "r":
                    pre.append(f"setp.ne.b32 {pname}, {ref}, 0;")
                else:
                    post.append(f"{'@p ' if guard_lane else ''}selp.u32 {ref}, 1, 0, {pname};")
                ref = pname
            elif item.ptx_type == "b8" and not wide8 and operand.kind == "reg":
                raw = f"raw_{operand.name}" + (str(items.index((kind, item)))
                                               if len(items) > 1 else "")
                pre.append(f".reg .b8 {raw};")
                if item.rw == "r":
                    pre.append(f"cvt.u8.u16 {raw}, {ref};")
                else:
                    post.append(f"{'@p ' if guard_lane else ''}cvt.u16.u8 {ref}, {raw};")
                ref = raw
            parts.append(ref)
        if operand.kind == "sink":
            text = parts[0]
        elif operand.lanes != 1:
            text = "{" + ", ".join(parts) + "}"
        else:
            text = parts[0]
        if operand.kind == "addr" and operand.name in addr_offsets:
            off = addr_offsets[operand.name]
            text = f"{text}+{off}" if off >= 0 else f"{text}-{-off}"
        body_parts.append((operand, text))
    # Join operands: addresses in their own brackets, explicit [..] groups together, d|p pipes.
    rendered, bracket = [], None
    for operand, text in body_parts:
        if operand.open_bracket:
            bracket = [text]
        elif bracket is not None:
            bracket.append(text)
        if bracket is not None:
            if not operand.close_bracket:
                continue
            piece, bracket = "[" + ", ".join(bracket) + "]", None
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
    if guard_lane is not None:
        body = "@p " + body
    lines = pre + [body] + post
    asm = "{ " + " ".join(lines) + " }" if len(lines) > 1 else body
    # C side: parameters in call order (outputs first), carriers for bridged values.
    params, out_cons, in_cons, setup, teardown = [], [], [], [], []
    for item in outs:
        carrier = _CARRIER[item.cons]
        params.append(f"{item.param_c}& {item.param}")
        conv = _convert(item.param_c, carrier)
        prefix = "+" if item.rw == "rw" else "="
        if conv is None:
            out_cons.append((prefix + item.cons, carrier, item.param))
            continue
        reg = f"{item.param}_reg"
        init = f" = {conv[0].format(item.param)}" if item.rw == "rw" else ""
        setup.append(f"  {carrier} {reg}{init};\n")
        teardown.append(f"  {item.param} = {conv[1].format(reg)};\n")
        out_cons.append((prefix + item.cons, carrier, reg))
    for item in ins:
        carrier = _CARRIER[item.cons]
        params.append(f"{item.param_c} {item.param}")
        conv = None if item.param_c == "const void*" else _convert(item.param_c, carrier)
        expr = item.param if conv is None else conv[0].format(item.param)
        in_cons.append((item.cons, carrier, expr))
    name = _helper_name(entry, mods, imms, addr_offsets)
    if values is not None and any(item.param_c != _NATURAL.get(item.ptx_type, "uint32_t")
                                  for item in outs + ins if _typed_lane(item)):
        # A value of another C type than the PTX type's natural one changes the helper's
        # signature, so the name lists every register lane's type (``ld.b32`` into an int32:
        # ``..._b32_s32``), as Apache TVM 0.27 does.
        name += "".join(f"_{_C_SHORT.get(item.param_c, 'x')}"
                        for item in outs + ins if _typed_lane(item))
    if guard_lane is not None:
        name += "_pred"
    asm_c = asm.replace('"', '\\"')
    out_txt = ", ".join(f'"{c}"({e})' for c, _, e in out_cons)
    in_txt = ", ".join(f'"{c}"({e})' for c, _, e in in_cons)
    memory = entry.memory or any(o.kind == "addr" for o, _ in layout)
    tail = f' : {out_txt} : {in_txt} : "memory"' if memory else (
        f" : {out_txt} : {in_txt}" if in_txt else f" : {out_txt}" if out_txt else "")
    source = (f"__forceinline__ __device__ void {name}({', '.join(params)}) {{\n"
              + "".join(setup) + f'  asm volatile("{asm_c}"{tail});\n' + "".join(teardown)
              + "}\n")
    call_values = tuple(item.value for item in outs + ins)
    sunk = [i for i, v in enumerate(values or ()) if v is SINK]
    if sunk:
        name_tail = "_sink_" + "_".join(f"d{i}" for i in sunk)
        source = source.replace(f"void {name}(", f"void {name}{name_tail}(", 1)
        name += name_tail
    return PTXRender(name, asm, tuple(out_cons), tuple(in_cons), tuple(params), call_values,
                     source, memory, opcode)


#: C type of a parameter -> the short type name in a helper name.
_C_SHORT = {"int8_t": "s8", "uint8_t": "u8", "int16_t": "s16", "uint16_t": "u16",
            "int32_t": "s32", "uint32_t": "u32", "int64_t": "s64", "uint64_t": "u64",
            "half": "f16", "nv_bfloat16": "bf16", "float": "f32", "double": "f64",
            "bool": "pred", "__uint128_t": "b128", "const void*": "ptr"}


def _typed_lane(item) -> bool:
    # Register operands whose C type comes from the value: not addresses, tensor-memory
    # addresses, predicates (any integer or bool converts to them) or the guard.
    return (item.operand is not None and item.operand.kind == "reg"
            and item.ptx_type != "pred")


def _helper_name(entry, mods, imms, addr_offsets) -> str:
    tokens = [tok.replace("::", "__") for tok in mods.values() if tok]
    parts = ["tvm_builtin_ptx", entry.key, *tokens]
    if imms:
        parts.append("imm" + "_".join(str(v).replace("-", "m") for v in imms))
    for name, off in addr_offsets.items():
        parts.append(f"{name}_{'p' if off >= 0 else 'm'}{abs(off)}")
    return "_".join(parts)


def _split_addr(value):
    """``T.ptx.addr(base, offset)`` -> ``(base, offset)``; anything else -> ``(value, None)``."""
    if isinstance(value, Call) and getattr(value.op, "name", "") == "tirx.ptx.addr":
        base, off = value.args
        return base, int(off.value)
    return value, None


def render_ptx(call) -> PTXRender:
    """The inline-asm helper for a ``tirx.ptx.*`` Call (see the module docstring)."""
    entry, mods, operands = resolve(call)
    if mods.get("ignore_oob"):
        raise ValueError("rendering cp.async.bulk .ignore_oob is not supported yet: its "
                         "ignore-bytes operands are accepted in the IR only")
    values, offsets, pos = list(operands), {}, 0
    for operand, n in lane_layout(entry, mods):
        if operand.kind == "addr":
            base, off = _split_addr(values[pos])
            if off is not None:
                values[pos] = base
                offsets[operand.name] = off
        pos += n
    return _build(entry, mods, values, offsets, call_guard(call))


def render_variant(entry, tokens, *, imms=None):
    """``(opcode, helper name, helper source)`` of table ``entry`` with modifier ``tokens``
    (one per slot, ``""`` for an empty optional slot), without a call.

    Parameters take the PTX types' natural C types (``.s32`` -> ``int32_t``, ``.f16`` ->
    ``half``). ``imms`` gives the values of the entry's immediate operands, in order; an
    entry with immediates needs them. Raises ``ValueError`` for a token list that does not
    fit the entry.
    """
    tokens = tuple(tokens)
    if len(tokens) != len(entry.slots):
        raise ValueError(f"{entry.key} has {len(entry.slots)} modifier slots "
                         f"({', '.join(s.name for s in entry.slots)}), got {len(tokens)} tokens")
    for slot, tok in zip(entry.slots, tokens):
        if tok and tok not in slot.choices:
            raise ValueError(f"{entry.key}.{slot.name}: {tok!r} is not one of "
                             f"{', '.join(slot.choices)}")
        if not tok and not slot.optional:
            raise ValueError(f"{entry.key}.{slot.name} is required")
    mods = _mods(entry, tokens)
    values = None
    if imms is not None or any(op.kind == "imm" for op, _ in lane_layout(entry, mods)):
        given = list(imms or ())
        values = []
        for operand, n in lane_layout(entry, mods):
            for _ in range(n):
                if operand.kind == "imm":
                    if not given:
                        raise ValueError(f"{entry.key}: operand '{operand.name}' is an "
                                         "immediate; pass its value in imms=")
                    values.append(IntImm("int32", int(given.pop(0))))
                else:
                    values.append(None)
    r = _build(entry, mods, values)
    return r.opcode, r.name, r.source
