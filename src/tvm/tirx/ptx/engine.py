"""Interpreting the ``T.ptx`` table: spelling, validation, IR calls and arch requirements.

A PTX call is a void ``tirx.Call`` of the Op ``tirx.ptx.<family>`` (effect kind Opaque) with
the arguments ``[operands..., modifier tokens (one per slot, "" when empty), marker]``. The
marker is a comma-joined flag list (``"p<i>"``: operand ``i`` is a ``.pred`` value) and is
usually ``""``. That is also the printed form, ``T.ptx.mbarrier(addr, T.uint32(1), "init",
"", "shared::cta", "b64", "")``, and parsing it back dispatches on the tokens again.
"""

from __future__ import annotations

from ...ir.op import register_op, register_op_attr
from ...runtime.data_type import dtype_bits
from ..cuda_ops import cuda
from ..expr import Call, FloatImm, IntImm, StringImm
from ..op import CallEffectKind
from .spec import LANES, Instr, _digits, max_arch
from .table import ENTRIES

__all__ = [
    "PTXModifierError",
    "PTXNamespace",
    "call_guard",
    "escape_token",
    "guarded",
    "lane_layout",
    "resolve",
    "unescape_token",
]

#: PTX register type -> TIR dtype of a value that carries it.
PTX_DTYPE = {
    "b8": "uint8", "u8": "uint8", "s8": "int8",
    "b16": "uint16", "u16": "uint16", "s16": "int16", "f16": "float16", "bf16": "bfloat16",
    "b32": "uint32", "u32": "uint32", "s32": "int32", "f32": "float32",
    "b64": "uint64", "u64": "uint64", "s64": "int64", "f64": "float64",
    "pred": "bool", "b128": "uint128",
    "f16x2": "uint32", "bf16x2": "uint32", "u16x2": "uint32", "s16x2": "uint32",
    "ptr": "handle",
}


class _Sink:
    """``T.ptx.SINK``: the ISA's sink symbol ``_`` for one lane of a register group that the
    instruction writes but the kernel does not need (``mov.b64 {_, hi}, packed``)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "T.ptx.SINK"


#: The sink symbol (see :class:`_Sink`).
SINK = _Sink()


def marker_flags(marker: str) -> list:
    """The flags of a call's marker string (``"p1,s0,pred"`` -> ``["p1", "s0", "pred"]``)."""
    return marker.split(",") if marker else []


def split_guard(operands, marker: str):
    """``(operands, guard)``: a call written with ``pred=`` carries the guard as its last
    operand and the flag ``pred`` in the marker; ``guard`` is None otherwise."""
    operands = list(operands)
    if "pred" in marker_flags(marker):
        if not operands:
            raise ValueError("a T.ptx call marked 'pred' has no guard operand")
        return operands[:-1], operands[-1]
    return operands, None


def _coerce_guard(label, value):
    """``pred=`` of a T.ptx call: a boolean or integer scalar; non-zero runs the
    instruction (it becomes ``@p`` in the PTX text)."""
    if isinstance(value, int):  # bool included
        return IntImm("uint32", int(value))
    if hasattr(value, "asobject"):  # `tx == 0`: the comparison node, not Python's bool
        value = value.asobject()
    dtype = str(_dtype_of(value) or "")
    if dtype != "bool" and not dtype.startswith(("int", "uint")):
        raise TypeError(f"{label}: pred= takes a bool or integer scalar (non-zero runs the "
                        f"instruction), got {dtype or type(value).__name__}")
    return value


def expand_sinks(operands, marker: str) -> list:
    """The written operand list of a printed call: ``T.ptx.SINK`` back at each ``s<i>`` of
    the marker (a sunk lane takes no argument, so the printed call is shorter)."""
    out = list(operands)
    for flag in marker.split(",") if marker else ():
        if flag.startswith("s") and flag[1:].isdigit():
            out.insert(int(flag[1:]), SINK)
    return out


class PTXModifierError(ValueError, AttributeError):
    """An unknown family or modifier in ``T.ptx.<...>`` (a ValueError; also an AttributeError
    so that ``hasattr(T.ptx, name)`` answers False)."""


def unescape_token(name: str) -> str:
    """Python spelling -> PTX token: ``global_`` -> ``global``, ``shared__cta`` ->
    ``shared::cta``, and ``_2d`` -> ``2d`` (a token that starts with a digit)."""
    if name.endswith("_") and not name.endswith("__"):
        name = name[:-1]
    if len(name) > 1 and name[0] == "_" and name[1].isdigit():
        name = name[1:]
    return name.replace("__", "::")


def escape_token(token: str) -> str:
    """PTX token -> a Python attribute name (the inverse of :func:`unescape_token`)."""
    import keyword  # stdlib, only needed for this rare path

    name = token.replace("::", "__")
    if name[:1].isdigit():
        return "_" + name
    return name + "_" if keyword.iskeyword(name) else name


# ---------------------------------------------------------------------------------------------
# Operand layout
# ---------------------------------------------------------------------------------------------


def _mods(entry: Instr, tokens) -> dict:
    return {slot.name: tok or "" for slot, tok in zip(entry.slots, tokens)}


def _lane_count(operand, mods) -> int:
    lanes = operand.lanes
    if isinstance(lanes, int):
        return lanes
    kind, name = lanes.split(":", 1)
    if kind == "slot":
        return _digits(mods[name])
    return LANES[name](mods)


def lane_layout(entry: Instr, mods: dict) -> list:
    """``[(operand, lanes)]`` of the operands that take arguments, in PTX order."""
    out = []
    for operand in entry.operands:
        if operand.kind == "sink":
            continue
        if operand.when and not mods.get(operand.when):
            continue
        out.append((operand, _lane_count(operand, mods)))
    return out


def operand_type(operand, mods) -> str:
    """The PTX register type of a register operand (``$type`` resolved)."""
    rtype = operand.rtype
    if rtype == "acc":  # an mma accumulator: .f16 results are packed two per .b32 register
        return "b32" if mods["dtype"] == "f16" else mods["dtype"]
    if rtype == "wide":  # .wide results: twice the source width
        t = mods["type"]
        return t[0] + str(2 * int(t[1:]))
    if rtype == "src":  # a mixed-precision source: .srctype when written, else .type
        return mods.get("srctype") or mods["type"]
    return mods[rtype[1:]] if rtype.startswith("$") else rtype


def operand_space(operand, mods) -> str:
    """The state space of an address operand: ``""`` means generic."""
    space = operand.space
    if space.startswith("="):
        return space[1:]
    return mods.get(space, "") if space else ""


# ---------------------------------------------------------------------------------------------
# Coercion of one call's operands
# ---------------------------------------------------------------------------------------------


def _dtype_of(value):
    return getattr(value, "dtype", None)


def _is_writable(value) -> bool:
    # A destination must be an lvalue: a buffer element or a local scalar (both BufferLoad).
    return type(value).__name__ == "BufferLoad"


def _coerce(entry, operand, value, mods, index, flags):
    kind = operand.kind
    where = f"{_label(entry)}: operand '{operand.name}'"
    if kind == "imm":
        if isinstance(value, IntImm):
            value = value.value
        if not operand.choices and str(_dtype_of(value)).startswith(("int", "uint")):
            return value  # e.g. a loop variable that unrolling makes constant before codegen
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"{where} is an immediate in the instruction text and needs a "
                             f"compile-time integer, got {type(value).__name__}")
        if operand.choices and str(value) not in operand.choices:
            raise ValueError(f"{where} must be one of {', '.join(operand.choices)}, got {value}")
        return IntImm("int32", value)
    if kind == "tmem":
        if isinstance(value, int) and not isinstance(value, bool):
            return IntImm("uint32", value)
        if _dtype_of(value) not in ("uint32", "int32"):
            raise ValueError(f"{where} is a tensor-memory address and must be a uint32, got "
                             f"{_dtype_of(value) or type(value).__name__}")
        return value
    if kind == "addr":
        space = operand_space(operand, mods)
        if _is_addr(value):  # T.ptx.addr(base, offset): check the base, keep the offset
            base, offset = value.args
            base = _coerce(entry, operand, base, mods, index, flags)
            return Call(str(base.dtype), "tirx.ptx.addr", [base, offset])
        dtype = _dtype_of(value)
        if space.startswith("shared"):
            if dtype == "handle":
                return cuda.cvta_generic_to_shared(value)
            if dtype == "uint32":
                return value  # already a shared-window address
            raise ValueError(f"{where} is a {space} address: pass a pointer (T.address_of(...)) "
                             f"or a uint32 shared address, got {dtype or type(value).__name__}")
        if dtype in ("handle", "uint64", "int64"):
            return value
        raise ValueError(f"{where} is a {space or 'generic'} address: pass a pointer or a "
                         f"uint64, got {dtype or type(value).__name__}")
    # A register operand.
    ptx_type = operand_type(operand, mods)
    if ptx_type == "ptr":  # a pointer passed as a 64-bit register (mapa's pointer shape)
        if _dtype_of(value) != "handle":
            raise ValueError(f"{where} is a pointer: pass T.address_of(...) or a handle, got "
                             f"{_dtype_of(value) or type(value).__name__}")
        return value
    dtype = PTX_DTYPE.get(ptx_type, "uint32")
    if not isinstance(value, (bool, int, float)):
        _check_width(where, ptx_type, value)
    if operand.rw != "r":
        if not _is_writable(value):
            raise ValueError(f"{where} is a destination and must be a writable scalar or "
                             f"buffer element (e.g. `d: T.{dtype}`), got "
                             f"{type(value).__name__}")
        return value
    if ptx_type == "pred":
        flags.append(f"p{index}")
        if isinstance(value, (bool, int)):
            return IntImm("bool", int(bool(value)))
        return value
    if isinstance(value, bool):
        return IntImm(dtype, int(value))
    if isinstance(value, int):
        if dtype.startswith("float"):
            return FloatImm(dtype, float(value))
        return IntImm(dtype, value)
    if isinstance(value, float):
        if not dtype.startswith(("float", "bfloat")):
            raise ValueError(f"{where} is .{ptx_type}; the float literal {value!r} would be "
                             f"truncated: write T.{dtype}(...) if that is meant")
        return FloatImm(dtype, value)
    return value


def _is_addr(value) -> bool:
    return isinstance(value, Call) and getattr(value.op, "name", "") == "tirx.ptx.addr"


def make_addr(base, byte_offset):
    """``T.ptx.addr(base, byte_offset)``: the memory operand ``[base+byte_offset]``.

    The offset is a compile-time integer written into the instruction text, so no address
    arithmetic is emitted. The Call (op ``tirx.ptx.addr``, the base's dtype) is accepted
    wherever a ``T.ptx`` instruction takes an address; ``ValueError`` for a non-constant
    offset.
    """
    if isinstance(byte_offset, IntImm):
        byte_offset = byte_offset.value
    if not isinstance(byte_offset, int) or isinstance(byte_offset, bool):
        raise TypeError(f"T.ptx.addr: the byte offset is written into the instruction and "
                         f"must be a compile-time integer, got {type(byte_offset).__name__}")
    dtype = _dtype_of(base)
    if dtype is None:
        raise TypeError(f"T.ptx.addr: the base must be a pointer or an integer address, got "
                         f"{type(base).__name__}")
    return Call(str(dtype), "tirx.ptx.addr", [base, IntImm("int32", byte_offset)])


def _label(entry: Instr) -> str:
    return entry.family if entry.key == entry.family else f"{entry.family} [{entry.key}]"


def ptx_bits(ptx_type: str) -> int:
    """The register width of a PTX type: ``.f16x2`` and ``.u16x2`` are 32 bits."""
    base, _, count = ptx_type.partition("x")
    bits = int("".join(ch for ch in base if ch.isdigit()) or 32)
    return bits * int(count) if count.isdigit() else bits


def _check_width(where, ptx_type, value):
    """A register operand's value must have the PTX type's width (and be a float for .f)."""
    dtype = _dtype_of(value)
    if dtype is None or ptx_type in ("pred", "b128"):
        return
    bits = ptx_bits(ptx_type)
    got = dtype_bits(dtype) if dtype not in ("handle", "") else 64
    is_float = dtype.startswith(("float", "bfloat"))
    if "x" in ptx_type:  # a packed pair (.f16x2, .u16x2): any value of the width
        is_float = ptx_type[0] in "fb"
    if got != bits or (ptx_type[0] == "f" and not is_float) or (
            ptx_type[0] in "us" and is_float):
        raise ValueError(f"{where} is .{ptx_type}, so its value must be a {bits}-bit "
                         f"{'float' if ptx_type[0] == 'f' else 'value'}, got {dtype}")


def _emit(entry: Instr, tokens, operands, guard=None):
    """The Call for ``entry`` with ``tokens`` (one per slot) and user ``operands``;
    ``guard`` is the ``pred=`` value (appended after the operands, flag ``pred``)."""
    missing = [s.name for s, t in zip(entry.slots, tokens) if not t and not s.optional]
    if missing:
        raise ValueError(f"{_label(entry)}: missing required modifier(s): "
                         f"{', '.join(missing)}")
    mods = _mods(entry, tokens)
    if entry.check is not None:
        error = entry.check(mods)
        if error:
            raise ValueError(f"{_label(entry)}: {error}")
    layout = lane_layout(entry, mods)
    need = sum(n for _, n in layout)
    if len(operands) != need:
        names = ", ".join(f"{op.name}[{n}]" if n != 1 else op.name for op, n in layout)
        raise ValueError(f"{_label(entry)} expects {need} operand(s) "
                         f"({names or 'none'}), got {len(operands)}")
    coerced, flags, pos = [], [], 0
    for operand, lanes in layout:
        sunk = 0
        for _ in range(lanes):
            value = operands[pos]
            if value is SINK:
                if not operand.sinkable:
                    raise ValueError(f"{_label(entry)}: operand '{operand.name}' is not "
                                     "sinkable here, so it cannot take T.ptx.SINK")
                flags.append(f"s{pos}")
                sunk += 1
            else:
                coerced.append(_coerce(entry, operand, value, mods, pos, flags))
            pos += 1
        if sunk and sunk == lanes:
            raise ValueError(f"{_label(entry)}: operand '{operand.name}': at least one lane "
                             "must be a real register, not T.ptx.SINK")
    if guard is not None:
        coerced.append(_coerce_guard(_label(entry), guard))
        flags.append("pred")
    args = [*coerced, *(t or "" for t in tokens), ",".join(flags)]
    return Call("", entry.op_name, args)


# ---------------------------------------------------------------------------------------------
# Spelling: attribute chains and exact strings
# ---------------------------------------------------------------------------------------------


def _fill(entry, filled, token):
    for i, slot in enumerate(entry.slots):
        if filled[i] is None and token in slot.choices:
            return (*filled[:i], token, *filled[i + 1:])
    return None


def _narrow(cands, token, family):
    out = []
    for entry, filled in cands:
        new = _fill(entry, filled, token)
        if new is not None:
            out.append((entry, new))
    if out:
        return out
    open_slots = {}
    for entry, filled in cands:
        for slot, tok in zip(entry.slots, filled):
            if tok is None:
                open_slots.setdefault(slot.name, [])
                for choice in slot.choices:
                    if choice not in open_slots[slot.name]:
                        open_slots[slot.name].append(choice)
    valid = "; ".join(f"{name}: {', '.join(ch)}" for name, ch in open_slots.items())
    raise PTXModifierError(f"'{token}' is not a valid modifier for ptx.{family} here; "
                           f"valid modifiers: {valid or '(none left)'}")


class PTXInstruction:
    """``T.ptx.<family>.<modifier>...``: a family with some modifier slots filled."""

    __slots__ = ("_cands", "_family")

    def __init__(self, family, cands):
        self._family = family
        self._cands = tuple(cands)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return PTXInstruction(self._family, _narrow(self._cands, unescape_token(name),
                                                    self._family))

    def __call__(self, *args, pred=None):
        """Build the call; ``pred=`` guards it (``@p <instruction>``: it runs only where the
        value is non-zero; destinations keep their value where it does not)."""
        split = len(args)
        while split > 0 and isinstance(args[split - 1], (str, StringImm)):
            split -= 1
        trailing = [a.value if isinstance(a, StringImm) else a for a in args[split:]]
        operands = args[:split]
        cands = self._cands
        if trailing:  # the printed form: tokens in slot order, then the marker
            *tokens, marker = trailing
            operands, printed_guard = split_guard(operands, marker)
            if printed_guard is not None:
                if pred is not None:
                    raise ValueError(f"ptx.{self._family}: the guard is given twice (a "
                                     "'pred' marker and pred=)")
                pred = printed_guard
            operands = expand_sinks(operands, marker)
            for tok in tokens:
                if tok:
                    cands = _narrow(cands, tok, self._family)
            cands = [(e, f) for e, f in cands if len(e.slots) == len(tokens)] or cands
        hits, errors = [], []
        for entry, filled in cands:
            try:
                hits.append(_emit(entry, filled, operands, pred))
            except ValueError as err:
                errors.append(err)
        if len(hits) >= 1:
            # Shapes of one family differ in operand count or required modifiers; when two
            # accept the same call the first (the table's base shape) is taken.
            return hits[0]
        if len(errors) == 1:
            raise errors[0]
        raise ValueError(f"no ptx.{self._family} shape matches this call:\n  "
                         + "\n  ".join(str(e) for e in dict.fromkeys(map(str, errors))))

    def __dir__(self):
        return sorted({escape_token(c) for e, f in self._cands
                       for s, t in zip(e.slots, f) if t is None for c in s.choices})

    def __repr__(self):
        _entry, filled = self._cands[0]
        return "<T.ptx." + ".".join([self._family, *(t for t in filled if t)]) + ">"


class PTXNamespace:
    """``T.ptx``: the table-driven PTX dialect (see :mod:`tvm.tirx.ptx`)."""

    def __init__(self, entries=None):
        self._by_family = {}
        for entry in entries if entries is not None else ENTRIES:
            self._by_family.setdefault(entry.family, []).append(entry)

    @staticmethod
    def pred(value):
        """``T.ptx.pred(x)``: mark ``x`` as a ``.pred`` operand. The table already knows which
        operands are predicates, so this is accepted for compatibility and returns ``x``."""
        return value

    #: ``T.ptx.SINK``: the ISA's ``_`` for a lane the kernel does not need.
    SINK = SINK

    @staticmethod
    def addr(base, byte_offset):
        """``T.ptx.addr(ptr, 16)``: an address operand with an immediate byte offset, rendered
        ``[%n+16]`` (see :func:`make_addr`)."""
        return make_addr(base, byte_offset)

    def families(self):
        """The family names (``mbarrier``, ``cp``, ``tcgen05``...)."""
        return sorted(self._by_family)

    def _chain(self, family):
        entries = self._by_family.get(family)
        if entries is None:
            return None
        return PTXInstruction(family, [(e, (None,) * len(e.slots)) for e in entries])

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        chain = self._chain(unescape_token(name))
        if chain is None:
            raise PTXModifierError(f"'{name}' is not a ptx instruction family; known "
                                   f"families: {', '.join(self.families())}")
        return chain

    def __getitem__(self, text):
        """``T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"]``."""
        parts = str(text).split(".")
        for cut in range(len(parts), 0, -1):  # longest family first: elect.sync -> elect_sync
            chain = self._chain("_".join(parts[:cut]))
            if chain is not None:
                break
        else:
            raise PTXModifierError(f"{text!r} does not start with a ptx instruction family; "
                                   f"known families: {', '.join(self.families())}")
        for token in parts[cut:]:
            chain = PTXInstruction(chain._family, _narrow(chain._cands, token, chain._family))
        return chain

    def __dir__(self):
        return self.families()

    def __repr__(self):
        return f"<T.ptx: {len(self._by_family)} instruction families>"


# ---------------------------------------------------------------------------------------------
# From a Call back to its table entry
# ---------------------------------------------------------------------------------------------


def _string(arg):
    return arg.value if isinstance(arg, StringImm) else None


def call_guard(call):
    """The ``pred=`` value of a ``tirx.ptx.*`` Call, or None when it is unguarded."""
    args = list(call.args)
    marker = _string(args[-1]) if args else None
    if marker is None or "pred" not in marker_flags(marker):
        return None
    n_strings = 0
    for arg in reversed(args):
        if _string(arg) is None:
            break
        n_strings += 1
    return args[len(args) - n_strings - 1]


def guarded(call, pred):
    """``call`` (a ``tirx.ptx.*`` Call without a guard) with ``pred=pred`` added: the same
    call as writing ``pred=`` when it was built."""
    entry, _mods_of_call, _ = resolve(call)
    if call_guard(call) is not None:
        raise ValueError(f"this {call.op.name} call is already guarded (pred=)")
    args = list(call.args)
    n_tail = len(entry.slots) + 1
    marker = _string(args[-1])
    flags = [*marker_flags(marker), "pred"]
    new_args = [*args[:-n_tail], _coerce_guard(_label(entry), pred), *args[-n_tail:-1],
                StringImm(",".join(flags))]
    return Call(call.dtype if call.type_annotation is None else call.type_annotation,
                call.op, new_args)


def resolve(call):
    """``(entry, mods, operand_args)`` of a ``tirx.ptx.*`` Call (``operand_args`` without a
    ``pred=`` guard: see :func:`call_guard`); ValueError if it matches none."""
    name = getattr(call.op, "name", "")
    if not name.startswith("tirx.ptx."):
        raise ValueError(f"{name or call.op!r} is not a T.ptx call")
    family = name[len("tirx.ptx."):]
    args = list(call.args)
    for entry in ENTRIES:
        if entry.family != family:
            continue
        n_slots = len(entry.slots)
        if len(args) < n_slots + 1:
            continue
        tokens = [_string(a) for a in args[len(args) - n_slots - 1:-1]]
        if any(t is None for t in tokens) or _string(args[-1]) is None:
            continue
        if any(t and t not in slot.choices for slot, t in zip(entry.slots, tokens)):
            continue
        if any(not t and not slot.optional for slot, t in zip(entry.slots, tokens)):
            continue
        mods = _mods(entry, tokens)
        operands, _guard = split_guard(args[:len(args) - n_slots - 1], _string(args[-1]))
        operands = expand_sinks(operands, _string(args[-1]))
        if sum(n for _, n in lane_layout(entry, mods)) != len(operands):
            continue
        try:  # shapes differing only in operand kinds (tcgen05.mma ss/ts) need the kinds
            _emit(entry, tokens, operands)
        except ValueError:
            continue
        return entry, mods, operands
    raise ValueError(f"this {name} call matches no shape of the PTX table: {call}")


def required_arch_of(entry, mods) -> str:
    """The lowest ``sm_XX`` arch that supports an instruction with the chosen modifiers.

    Parameters
    ----------
    entry : Instr
        The PTX table row the call matched.
    mods : dict
        Slot name -> the token the call chose.

    Returns
    -------
    str
        The strictest of the row's ``arch``, its tokens' ``token_arch`` and its ``combo_arch``
        rules that ``mods`` trigger (see :func:`max_arch`).
    """
    archs = [entry.arch] + [entry.token_arch[t] for t in mods.values() if t in entry.token_arch]
    return max_arch(archs + entry.combo_archs(mods))


def required_ptx_of(entry, mods) -> str:
    """The lowest PTX ISA version that supports an instruction with the chosen modifiers.

    Parameters
    ----------
    entry : Instr
        The PTX table row the call matched.
    mods : dict
        Slot name -> the token the call chose.

    Returns
    -------
    str
        The highest of the row's ``ptx`` and its tokens' ``token_ptx`` (``"8.6"``).
    """
    versions = [entry.ptx] + [entry.token_ptx[t] for t in mods.values() if t in entry.token_ptx]
    return max(versions, key=lambda v: tuple(int(x) for x in v.split(".")))


def register_ops():
    """Register one Op per family, ``tirx.ptx.<family>``, with effect kind Opaque, and the
    pure ``tirx.ptx.addr`` (an address with an immediate offset)."""
    register_op("tirx.ptx.addr", family="ptx")
    register_op_attr("tirx.ptx.addr", "TCallEffectKind", CallEffectKind.Pure)
    for family in sorted({e.family for e in ENTRIES}):
        register_op(f"tirx.ptx.{family}", family="ptx")
        register_op_attr(f"tirx.ptx.{family}", "TCallEffectKind", CallEffectKind.Opaque)
        register_op_attr(f"tirx.ptx.{family}", "TDeviceIntrinsicNamespace", "ptx")
        register_op_attr(f"tirx.ptx.{family}", "TIRxOpCategory", "device_intrin")
