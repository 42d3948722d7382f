"""The declarative form of the ``T.ptx`` instruction table, and the architecture rules.

One :class:`Instr` describes one PTX *syntax shape*: a family (``mbarrier``), the ordered
modifier slots that can follow the mnemonic, the operand list, and the minimum GPU
architecture and PTX ISA version. The table itself (:mod:`.table`) is written with
:func:`instr`, whose two mini-languages are

* **slots**: ``"action=init space?=shared|shared::cta type=b64"``: space-separated
  ``name[?]=choice|choice``; ``?`` marks an optional slot. Slot order is PTX text order, and
  it is also the order in which modifiers print as trailing string arguments.
* **operands**: ``"d:$type/w addr:@space"``: space-separated ``name:kind[*lanes][/w|/rw]``,
  where ``kind`` is

  - a PTX register type (``u32``, ``b64``, ``f32``, ``pred``...) or ``$slot`` (the type named
    by that modifier slot, e.g. ``$type``);
  - ``@slot`` / ``@=space``: a memory address whose state space is given by that slot
    (``@space``) or fixed (``@=shared::cta``); with no space it is a generic address;
  - ``tmem``: a tensor-memory address (a ``uint32``);
  - ``imm`` or ``imm=4,8,16``: an immediate baked into the instruction text;
  - ``_``: the sink symbol, and ``=text`` a fixed operand (``=128``): written in the
    instruction text, taking no argument.

  ``*lanes`` makes a register group ``{a, b, ...}``: a number, ``*slot`` (the digits of the
  slot's token: ``v4`` -> 4, ``3d`` -> 3) or ``*name`` of a function in :data:`LANES`.
  A trailing ``~`` marks lanes that may be ``T.ptx.SINK`` (the ISA's ``_``).
  ``?slot`` after the kind makes the operand present only when that slot is filled (the
  ``L2::cache_hint`` policy operand). ``[`` / ``]`` around operands group them in one
  bracket (``[tensorMap, {c0, c1}]``); ``|`` joins two destinations (``d|p``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "LANES",
    "Instr",
    "Operand",
    "Slot",
    "arch_satisfies",
    "instr",
    "max_arch",
    "parse_arch",
]


@dataclass(frozen=True)
class Slot:
    """One modifier position: ``name``, its allowed tokens, and whether it may be empty."""

    name: str
    choices: tuple
    optional: bool


@dataclass(frozen=True)
class Operand:
    """One PTX operand (possibly a register group of several lanes)."""

    name: str
    kind: str  # "reg", "addr", "tmem", "imm", "sink"
    rtype: str = ""  # PTX register type or "$slot"; "" for addresses
    space: str = ""  # "@slot", "=fixed" or "" (generic) for addresses
    lanes: object = 1  # int, "slot:<name>" or "fn:<name>"
    rw: str = "r"  # "r", "w" or "rw"
    when: str = ""  # slot name that must be filled for the operand to be present
    choices: tuple = ()  # immediate's allowed values
    open_bracket: bool = False
    close_bracket: bool = False
    pipe: bool = False  # joined to the next operand with "|"
    sinkable: bool = False  # a lane may be T.ptx.SINK (the ISA's "_")


@dataclass(frozen=True)
class Instr:
    """One PTX instruction shape of a family (see the module docstring)."""

    key: str
    family: str
    slots: tuple
    operands: tuple
    arch: str
    ptx: str
    token_arch: dict = field(default_factory=dict)
    token_ptx: dict = field(default_factory=dict)
    memory: bool = False  # orders other memory accesses (a "memory" clobber)
    check: object = None  # mods -> error message or None: rules across slots
    doc: str = ""
    #: ((condition, arch), ...): ``condition`` maps slot names to the tokens that trigger the
    #: requirement, all slots at once (``{"rnd": ("rn", "rz"), "satfinite": ("satfinite",)}``).
    combo_arch: tuple = ()

    @property
    def op_name(self) -> str:
        """The name of the family's Op (``tirx.ptx.<family>``)."""
        return f"tirx.ptx.{self.family}"

    @property
    def ptx_name(self) -> str:
        """The PTX mnemonic (``cvt``, ``elect.sync``, ``cvt.pack``)."""
        return self.mnemonic()

    @property
    def cert_arch(self) -> str:
        """The arch every spelling of this shape assembles for: the strictest of its base
        ``arch``, the ``token_arch`` of its tokens and its ``combo_arch`` rules."""
        return max_arch([self.arch, *self.token_arch.values(),
                         *(arch for _, arch in self.combo_arch)])

    def combo_archs(self, mods: dict) -> list:
        """The ``combo_arch`` requirements that the modifier map ``mods`` triggers."""
        return [arch for cond, arch in self.combo_arch
                if all(mods.get(slot, "") in toks for slot, toks in cond.items())]

    def mnemonic(self) -> str:
        """The PTX opcode's first part: ``elect_sync`` -> ``elect.sync`` (the few PTX names
        with an underscore of their own are listed in ``_MNEMONICS``)."""
        return _MNEMONICS.get(self.family) or self.family.replace("_", ".")


#: Families whose PTX name keeps an underscore.
_MNEMONICS = {"multimem_ld_reduce": "multimem.ld_reduce",
              "tensormap_cp_fenceproxy": "tensormap.cp_fenceproxy"}

#: Register-group sizes that depend on several modifiers. Each takes the modifier map
#: ``{slot name: token or ""}`` and returns the number of registers.
LANES = {}


def _lanes(name):
    def deco(fn):
        LANES[name] = fn
        return fn

    return deco


def _digits(token: str) -> int:
    found = re.search(r"\d+", token or "")
    return int(found.group()) if found else 1


@_lanes("ldmatrix")
def _ldmatrix_regs(mods):
    # One 32-bit register per 8x8 b16 matrix; a 16x16 b8 matrix (.m16n16) takes two.
    return _digits(mods["num"]) * (2 if mods.get("shape") == "m16n16" else 1)


@_lanes("spcompress_data")
def _spcompress_data(mods):
    # Two 32-bit registers of source data per .num step.
    return 2 * _digits(mods["num"])


@_lanes("spcompress_meta")
def _spcompress_meta(mods):
    # The metadata: .num indices of .idxsize bits, packed into .elemsize-bit units (rounded up).
    num, idx, elem = _digits(mods["num"]), _digits(mods["idxsize"]), _digits(mods["elemsize"])
    return (num * idx + elem - 1) // elem


@_lanes("tma_coords")
def _tma_coords(mods):
    # .tile::gather4 / .tile::scatter4 (always .2d) take five: a column and four rows.
    if mods.get("load_mode") in ("tile::gather4", "tile::scatter4"):
        return 5
    return _digits(mods["dim"])


@_lanes("im2col_offsets")
def _im2col_offsets(mods):
    # .im2col on an N-d tensor takes N-2 16-bit offsets (ISA 9.7.9.25.5.1).
    return _digits(mods["dim"]) - 2


@_lanes("disable_lanes")
def _disable_lanes(mods):
    # tcgen05.mma's disable-output-lane vector: 4 words for cta_group::1, 8 for ::2.
    return 8 if mods.get("cta_group") == "cta_group::2" else 4


@_lanes("mma_sp_a")
def _mma_sp_a(mods):
    # A sparse A fragment holds half of the dense one.
    m, _, k = _mnk(mods["shape"])
    return max(1, m * k * _BITS[mods["atype"]] // (2 * 32 * 32))


@_lanes("tcgen05_ldst")
def _tcgen05_regs(mods):
    # 32x32b, 16x64b and 16x32bx2 give one register per repetition, 16x128b two, 16x256b four.
    per = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}[mods["shape"]]
    return per * _digits(mods["num"])


def _mnk(shape):
    m, n, k = (int(x) for x in re.match(r"m(\d+)n(\d+)k(\d+)", shape).groups())
    return m, n, k


_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "f32": 32,
         "f64": 64, "s32": 32, "s4": 4, "u4": 4}


@_lanes("wgmma_d")
def _wgmma_d(mods):
    # m64nNk*: 64*N accumulators over 128 threads, packed two f16 per register.
    _, n, _ = _mnk(mods["shape"])
    return n // 2 if mods["dtype"] in ("f32", "s32") else n // 4


@_lanes("wgmma_a")
def _wgmma_a(mods):
    return 4  # the A fragment of m64nNkK in registers is always four 32-bit registers


@_lanes("mma_a")
def _mma_a(mods):
    m, _, k = _mnk(mods["shape"])
    return max(1, m * k * _BITS[mods["atype"]] // (32 * 32))


@_lanes("mma_b")
def _mma_b(mods):
    _, n, k = _mnk(mods["shape"])
    return max(1, n * k * _BITS[mods["btype"]] // (32 * 32))


@_lanes("mma_c")
def _mma_c(mods):
    m, n, _ = _mnk(mods["shape"])
    bits = _BITS[mods["ctype"]]
    return max(1, m * n * bits // (32 * 32))


_SLOT_RE = re.compile(r"^(\w+)(\?)?=(.+)$")
_OPERAND_RE = re.compile(
    r"^(\[)?(\w+):([^*/?\]|~]+)(?:\*(\w+))?(?:\?(\w+))?(?:/(w|rw))?(~)?(\])?(\|)?$")


def _parse_slots(text: str) -> tuple:
    slots = []
    for part in text.split():
        m = _SLOT_RE.match(part)
        if m is None:
            raise ValueError(f"bad slot spec {part!r}")
        slots.append(Slot(m.group(1), tuple(m.group(3).split("|")), bool(m.group(2))))
    return tuple(slots)


def _parse_operands(text: str, slot_names) -> tuple:
    out = []
    for part in text.split():
        m = _OPERAND_RE.match(part)
        if m is None:
            raise ValueError(f"bad operand spec {part!r}")
        opn, name, kind, lanes, when, rw, sink, cls, pipe = m.groups()
        fields = {"name": name, "rw": rw or "r", "when": when or "",
                  "open_bracket": bool(opn), "close_bracket": bool(cls), "pipe": bool(pipe),
                  "sinkable": bool(sink)}
        if lanes:
            if lanes.isdigit():
                fields["lanes"] = int(lanes)
            elif lanes in slot_names:
                fields["lanes"] = f"slot:{lanes}"
            elif lanes in LANES:
                fields["lanes"] = f"fn:{lanes}"
            else:
                raise ValueError(f"operand {part!r}: unknown lane count {lanes!r}")
        if kind.startswith("@"):
            fields.update(kind="addr", space=kind[1:])
        elif kind == "tmem":
            fields.update(kind="tmem")
        elif kind == "_" or kind.startswith("="):
            fields.update(kind="sink", choices=(kind.lstrip("="),))
        elif kind.startswith("imm"):
            fields.update(kind="imm", choices=tuple(kind[4:].split(",")) if "=" in kind else ())
        else:
            fields.update(kind="reg", rtype=kind)
        if fields["kind"] == "reg" and kind.startswith("$") and kind[1:] not in slot_names:
            raise ValueError(f"operand {part!r}: no slot {kind[1:]!r}")
        out.append(Operand(**fields))
    return tuple(out)


def instr(key, family, slots, operands="", *, arch, ptx, token_arch=None, token_ptx=None,
          memory=False, check=None, doc="", combo_arch=()):
    """Build one :class:`Instr` from the two mini-languages of the module docstring."""
    parsed_slots = _parse_slots(slots)
    names = {s.name for s in parsed_slots}
    # token_arch may be a shared dict naming tokens this shape lacks; only offered ones count.
    offered = {c for s in parsed_slots for c in s.choices}
    token_arch = {t: a for t, a in (token_arch or {}).items() if t in offered}
    combos = []
    for cond, need in combo_arch:
        unknown = set(cond) - names
        if unknown:
            raise ValueError(f"{key}: combo_arch names no slot {sorted(unknown)}")
        combos.append(({k: tuple(v.split("|")) for k, v in cond.items()}, need))
    return Instr(key, family, parsed_slots, _parse_operands(operands, names), arch, ptx,
                 dict(token_arch), dict(token_ptx or {}), memory, check, doc, tuple(combos))


# ---------------------------------------------------------------------------------------------
# Architectures
# ---------------------------------------------------------------------------------------------

#: Arch-specific ("a") feature sets that one requirement admits: tcgen05 written for sm_100a
#: also assembles for the other Blackwell datacenter chips of the same family.
_A_FAMILIES = {
    90: (90,),
    100: (100, 101, 103, 110),
    101: (101, 110),
    103: (103,),
    120: (120, 121),
}

_ARCH_RE = re.compile(r"^sm_(\d+)([af]?)$")


def parse_arch(arch: str) -> tuple:
    """``"sm_90a"`` -> ``(90, "a")``; ``ValueError`` for anything that is not ``sm_<N>[a|f]``."""
    text = str(arch).strip()
    m = _ARCH_RE.match(text)
    if m is None:
        raise ValueError(f"{arch!r} is not a CUDA architecture name like 'sm_90a' or 'sm_100a'")
    return int(m.group(1)), m.group(2)


def arch_satisfies(target: str, required: str) -> bool:
    """Whether code for ``target`` may use a feature that needs ``required``.

    A plain ``sm_N`` requirement admits every target ``sm_M`` (any suffix) with ``M >= N``.
    An arch-specific ``sm_Na`` requirement admits only the ``a``/``f`` targets of that
    family (sm_90a: sm_90a only; sm_100a: sm_100a, sm_101a, sm_103a, sm_110a).
    """
    t_num, t_suffix = parse_arch(target)
    r_num, r_suffix = parse_arch(required)
    if not r_suffix:
        return t_num >= r_num
    if not t_suffix:
        return False
    return t_num in _A_FAMILIES.get(r_num, (r_num,))


def max_arch(archs) -> str:
    """The strictest of several requirements: the highest number, arch-specific ones first."""
    best = None
    for arch in archs:
        num, suffix = parse_arch(arch)
        key = (1 if suffix else 0, num)
        if best is None or key > best[0]:
            best = (key, arch)
    return best[1] if best else "sm_50"
