"""Layout factories: TMEM datapaths, tcgen05 register fragments, warpgroup-local tiles,
shared-memory MMA operands (swizzled), and Trainium partition/free layouts.

The TMEM and tcgen05 facts come from the PTX ISA (tcgen05 data-path layouts and the
``tcgen05.ld/st`` shape/num table).
"""

from __future__ import annotations

import enum
import re

from ...runtime import DataType
from . import _core as C
from .axis import Axis, R, S
from .layout import ComposeLayout, Iter, TileLayout

__all__ = [
    "SwizzleMode",
    "mma_shared_layout",
    "tcgen05_atom_layout",
    "tmem_datapath_layout",
    "tmem_mma_operand_layout",
    "trainium_layout",
    "wg_local_layout",
]


# --- TMEM data paths ------------------------------------------------------------------------
#: Rows per CTA of each tcgen05 data-path layout letter (PTX ISA, tcgen05 data paths).
TMEM_DATAPATH_ROWS = {"A": 128, "B": 64, "C": 64, "D": 128, "E": 64, "F": 64, "G": 32}


def tmem_datapath_layout(datapath, rows, cols, sub_slab=0) -> TileLayout:
    """The TMEM layout a tcgen05 MMA data path writes for a ``(rows, cols)`` accumulator.

    * ``A``/``D`` (M=256 pair / M=128): row ``r`` is TMEM lane ``r``.
    * ``B``/``E`` (M=128 pair dense / M=64 .ws): 64 rows; column half ``h`` goes to lanes
      ``64 * h + r`` and column ``c mod cols/2``.
    * ``C``/``F`` (M=128 pair sparse / M=64): row ``r`` is lane
      ``32 * (r // 16) + 16 * sub_slab + r % 16``.
    * ``G`` (M=32 .ws): column quarter ``q`` goes to lanes ``32 * q + r``.
    """
    if datapath not in TMEM_DATAPATH_ROWS:
        raise ValueError(f"tmem_datapath_layout: unknown datapath {datapath!r}; supported: "
                         f"{sorted(TMEM_DATAPATH_ROWS)}")
    if rows != TMEM_DATAPATH_ROWS[datapath]:
        raise ValueError(f"tmem_datapath_layout: datapath={datapath!r} expects "
                         f"rows={TMEM_DATAPATH_ROWS[datapath]}, got {rows}")
    if sub_slab not in (0, 1):
        raise ValueError(f"tmem_datapath_layout: sub_slab must be 0 or 1, got {sub_slab}")
    lane, col = Axis.get("TLane"), Axis.get("TCol")
    if datapath in ("C", "F"):
        spec = S[(4, 16, cols):(32 @ lane, 1 @ lane, 1 @ col)]
        return TileLayout(spec + (16 @ lane) if sub_slab else spec)
    if sub_slab:
        raise ValueError(f"tmem_datapath_layout: datapath={datapath!r} spans both 16-lane "
                         "sub-slabs of each warp; sub_slab must be 0")
    if datapath in ("A", "D"):
        return TileLayout(S[(rows, cols):(1 @ lane, 1 @ col)])
    parts = 2 if datapath in ("B", "E") else 4
    if cols % parts:
        raise ValueError(f"tmem_datapath_layout: datapath={datapath!r} needs cols divisible "
                         f"by {parts}, got {cols}")
    return TileLayout(S[(rows, parts, cols // parts):(1 @ lane, (128 // parts) @ lane,
                                                      1 @ col)])


def mma_datapath_letter(M, cta_group, ws=False, sparse=False) -> str:
    """The data-path letter of a tcgen05.mma with instruction ``M`` and ``cta_group``."""
    if sparse:
        raise ValueError(f"alloc_tcgen05_mma_AB: sparse A (Layout C) is not supported yet "
                         f"(M={M}, cta_group={cta_group})")
    if ws and (cta_group, M) != (1, 64):
        raise ValueError(f"alloc_tcgen05_mma_AB: ws=True only valid for cta_group=1, M=64 "
                         f"(Layout E); got M={M}, cta_group={cta_group}")
    table = {(1, 128): "D", (1, 64): "E" if ws else "F", (2, 256): "A", (2, 128): "B"}
    letter = table.get((cta_group, M))
    if letter is None:
        raise ValueError(f"alloc_tcgen05_mma_AB: no supported datapath for M={M}, "
                         f"cta_group={cta_group}, ws={ws} (supported: cta1 M in {{64,128}}, "
                         "cta2 M in {128,256})")
    return letter


def tmem_mma_operand_layout(operand, shape, dtype, *, M, cta_group, ws=False, sparse=False,
                            group=None) -> TileLayout:
    """The canonical TMEM layout of a tcgen05 MMA operand: ``"A"`` (A in TMEM) or ``"D"``
    (the accumulator), for instruction ``M`` and ``cta_group`` (rows per CTA =
    ``M // cta_group``). ``group=(s, 2, n)`` lays a flat ``(m, N)`` accumulator of a folded
    data path (B/E) out as ``(m, s, 2, n)``."""
    del dtype  # the layout is in 32-bit TMEM cells either way
    lane, col = Axis.get("TLane"), Axis.get("TCol")
    letter = mma_datapath_letter(M, cta_group, ws, sparse)
    rows = M // cta_group
    ext = [int(s) for s in shape]

    def check_rows(m):
        if m != rows:
            raise ValueError(f"alloc_mma_{operand}: M={M}, cta_group={cta_group} expects "
                             f"per-CTA rows {rows}, got {m} (shape {ext})")

    folded = letter in ("B", "E")
    if operand == "D":
        if group is not None:
            if len(ext) != 2:
                raise ValueError(f"alloc_tcgen05_mma_D group= requires 2D (m,N), got {ext}")
            parts = [int(g) for g in group]
            if len(parts) != 3 or parts[1] != 2:
                raise ValueError(f"alloc_tcgen05_mma_D group must be (s,2,n), got {group}")
            m, n_total = ext
            s, _, n = parts
            if s * 2 * n != n_total:
                raise ValueError(f"alloc_tcgen05_mma_D group {group} product != N={n_total}")
            if not folded:
                raise ValueError(f"alloc_tcgen05_mma_D group= only for Layout B/E, "
                                 f"got {letter}")
            check_rows(m)
            spec = S[(m, s, 2, n):(1 @ lane, n @ col, 64 @ lane, 1 @ col)]
        elif len(ext) == 2:
            check_rows(ext[0])
            return tmem_datapath_layout(letter, ext[0], ext[1]).canonicalize()
        elif folded and len(ext) == 3 and ext[0] == 2:
            check_rows(ext[1])
            spec = S[(2, ext[1], ext[2]):(64 @ lane, 1 @ lane, 1 @ col)]
        elif folded and len(ext) == 3 and ext[1] == 2:
            check_rows(ext[0])
            spec = S[(ext[0], 2, ext[2]):(1 @ lane, 64 @ lane, 1 @ col)]
        elif folded and len(ext) == 4 and ext[2] == 2:
            m, s, _, n = ext
            check_rows(m)
            spec = S[(m, s, 2, n):(1 @ lane, n @ col, 64 @ lane, 1 @ col)]
        else:
            raise ValueError(f"alloc_tcgen05_mma_D: unsupported D shape {ext} for datapath "
                             f"{letter}")
        return TileLayout(spec).canonicalize()
    if operand != "A":
        raise ValueError(f"tmem_mma_operand_layout: operand must be 'A' or 'D', "
                         f"got {operand!r}")
    if letter in ("A", "D", "F"):
        if len(ext) != 2:
            raise ValueError(f"alloc_tcgen05_mma_A: datapath {letter} identity needs 2D "
                             f"(m,K), got {ext}")
        check_rows(ext[0])
        spec = S[(ext[0], ext[1]):(1 @ lane, 1 @ col)]
    elif len(ext) == 3 and ext[0] == 2:  # bank-batched A for the folded data paths
        check_rows(ext[1])
        spec = S[(2, ext[1], ext[2]):(64 @ lane, 1 @ lane, 1 @ col)]
    elif letter == "B" and len(ext) == 2:  # A replicated into both lane halves
        check_rows(ext[0])
        spec = S[(ext[0], ext[1]):(1 @ lane, 1 @ col)] + R[2:64 @ lane]
    else:
        raise ValueError(f"alloc_tcgen05_mma_A: datapath {letter} needs a bank-batched "
                         f"(2,{rows},K) A{' or a (64,K) replica' if letter == 'B' else ''}, "
                         f"got {ext}")
    return TileLayout(spec).canonicalize()


def wg_local_layout(cols, rows=128) -> TileLayout:
    """A warpgroup register tile: thread ``tid_in_wg`` owns row ``tid_in_wg`` (``cols``
    contiguous local elements)."""
    return TileLayout(S[(rows, cols):(1 @ Axis.get("tid_in_wg"), 1)])


# --- tcgen05.ld / tcgen05.st register fragments ---------------------------------------------
#: Allowed ``.num`` repetitions per ``.shape`` (PTX ISA, tcgen05 shape/num table).
TCGEN05_NUM = {
    "32x32b": (1, 2, 4, 8, 16, 32, 64, 128),
    "16x64b": (1, 2, 4, 8, 16, 32, 64, 128),
    "16x128b": (1, 2, 4, 8, 16, 32, 64),
    "16x256b": (1, 2, 4, 8, 16, 32),
}
#: 32-bit columns one repetition of each shape covers per warp.
TCGEN05_COLS_PER_REP = {"32x32b": 1, "16x64b": 2, "16x128b": 4, "16x256b": 8}


def _fragment_bits(shape, reps):
    """(row iters, col iters), outer to inner, in 32-bit register units, for one warp's
    16-row slab of a ``.16x*b`` shape; each entry is ``(extent, stride, axis name)``.

    Lane ``l`` and register ``r`` of a warp hold (PTX ISA tcgen05 matrix fragments):
    16x64b: row = l//4 + 8*(l%2), col = (l//2)%2 + 2*r;
    16x128b: row = l//4 + 8*(r%2), col = l%4 + 4*(r//2);
    16x256b: row = l//4 + 8*((r//2)%2), col = r%2 + 2*(l%4) + 8*(r//4).
    """
    if shape == "16x64b":
        rows = [(2, 1, "laneid"), (8, 4, "laneid")]
        cols = [(reps, 1, "m"), (2, 2, "laneid")]
        regs = reps
    elif shape == "16x128b":
        rows = [(2, 1, "m"), (8, 4, "laneid")]
        cols = [(reps, 2, "m"), (4, 1, "laneid")]
        regs = 2 * reps
    else:
        rows = [(2, 2, "m"), (8, 4, "laneid")]
        cols = [(reps, 4, "m"), (4, 1, "laneid"), (2, 1, "m")]
        regs = 4 * reps
    return rows, cols, regs


def tcgen05_atom_layout(instr_shape, tensor_shape, dtype) -> TileLayout:
    """The warpgroup register layout of a ``tcgen05.ld/st.<instr_shape>.x<rep>`` fragment of
    ``tensor_shape = (rows, cols)`` elements; ``rep`` follows from ``cols``.

    ``.32x32b`` gives one row per thread (128 rows; 64 rows is the fp32 image of a
    data-path-B accumulator, folded as (128, N/2)). ``.16x*b`` covers 64 rows, or 128 rows
    as two issues with the second slab in the next registers. 16-bit dtypes pack two
    elements per 32-bit register.
    """
    if instr_shape not in TCGEN05_NUM:
        raise ValueError(f"tcgen05_atom_layout instr_shape must be one of "
                         f"{list(TCGEN05_NUM)}, got {instr_shape!r}")
    bits = DataType(dtype).bits
    if bits not in (16, 32):
        raise ValueError(f"tcgen05_atom_layout dtype must be a 32-bit or 16-bit type, "
                         f"got {dtype} ({bits} bits)")
    if len(tensor_shape) != 2:
        raise ValueError(f"tcgen05_atom_layout tensor_shape must be 2-D (rows, cols), "
                         f"got {tensor_shape!r}")
    rows, cols = (int(v) for v in tensor_shape)
    if rows not in (64, 128):
        raise ValueError(f"tcgen05_atom_layout {instr_shape!r} expects rows in (64, 128), "
                         f"got {rows}")
    tid = Axis.get("tid_in_wg")
    if instr_shape == "32x32b" and rows == 64:
        if bits != 32:
            raise ValueError("tcgen05_atom_layout: 32x32b with 64 rows is the datapath B "
                             f"readback image and is fp32-only, got {dtype} ({bits} bits)")
        if cols % 2 or cols // 2 not in TCGEN05_NUM["32x32b"]:
            raise ValueError(f"tcgen05_atom_layout: 32x32b (64, N) datapath B image needs "
                             f"an even N with N/2 in {TCGEN05_NUM['32x32b']}, got N={cols}")
        return TileLayout.from_iters(
            [Iter(64, 1, tid), Iter(2, 64, tid), Iter(cols // 2, 1, "m")], [], {})
    pack = 32 // bits
    per_rep = TCGEN05_COLS_PER_REP[instr_shape] * pack
    if cols % per_rep:
        raise ValueError(f"tcgen05_atom_layout cols={cols} not divisible by the per-rep "
                         f"column factor {per_rep} for instr_shape={instr_shape!r} "
                         f"dtype={dtype}")
    reps = cols // per_rep
    if reps not in TCGEN05_NUM[instr_shape]:
        raise ValueError(f"tcgen05_atom_layout inferred rep={reps} (from cols={cols}) is not "
                         f"in the supported set for {instr_shape}: {TCGEN05_NUM[instr_shape]}")
    if instr_shape == "32x32b":
        return TileLayout.from_iters([Iter(rows, 1, tid), Iter(cols, 1, "m")], [], {})
    row_bits, col_bits, regs = _fragment_bits(instr_shape, reps)
    warp = [(4, 1, "wid_in_wg")]
    if rows == 128:  # a second 16-row slab per warp, held in the next `regs` registers
        warp.append((2, regs, "m"))

    def widen(iters):  # 32-bit register strides -> element strides
        return [(e, s * pack if a == "m" else s, a) for e, s, a in iters]

    iters = widen(warp + row_bits + col_bits)
    if pack > 1:
        iters.append((pack, 1, "m"))
    return TileLayout.from_iters([Iter(e, s, a) for e, s, a in iters], [], {})


# --- shared-memory MMA operands -------------------------------------------------------------
class SwizzleMode(enum.IntEnum):
    """Shared-memory swizzle of a TMA/MMA operand."""

    SWIZZLE_NONE = 0
    SWIZZLE_32B_ATOM = 1
    SWIZZLE_64B_ATOM = 2
    SWIZZLE_128B_ATOM = 3


_SWIZZLE_BYTES = {SwizzleMode.SWIZZLE_NONE: 16, SwizzleMode.SWIZZLE_32B_ATOM: 32,
                  SwizzleMode.SWIZZLE_64B_ATOM: 64, SwizzleMode.SWIZZLE_128B_ATOM: 128}


def mma_shared_layout(dtype, swizzle_mode, shape):
    """The shared-memory layout of an MMA operand tile of ``shape`` (``(..., rows, cols)``).

    Each row is cut into lines of the swizzle width (16 bytes without swizzle); the lines
    of one column block are stacked over all rows, column blocks follow each other, and
    leading dims are outermost. With a swizzle this is wrapped in the byte-line
    ``ComposeLayout(bitlen(128 / bits) - 1, 1/2/3, 3, ...)``.
    """
    mode = SwizzleMode(int(swizzle_mode))
    bits = DataType(dtype).bits
    line = _SWIZZLE_BYTES[mode] * 8 // bits
    shape = [int(C.num(e)) for e in shape]
    if len(shape) < 2:
        raise ValueError(f"mma_shared_layout: shape must have rows and cols, got {shape}")
    *lead, rows, cols = shape
    if cols % line:
        raise ValueError(f"mma_shared_layout: cols={cols} is not a multiple of the "
                         f"{_SWIZZLE_BYTES[mode]}-byte line ({line} {dtype} elements)")
    tile = rows * cols
    lead_strides = []
    stride = tile
    for e in reversed(lead):
        lead_strides.append(stride)
        stride *= e
    extents = (*lead, rows, cols // line, line)
    strides = (*reversed(lead_strides), line, rows * line, 1)
    layout = TileLayout(S[extents:strides]).canonicalize()
    if mode == SwizzleMode.SWIZZLE_NONE:
        return layout
    per_element = (128 // bits).bit_length() - 1
    return ComposeLayout(per_element, int(mode), 3, layout)


# --- Trainium -------------------------------------------------------------------------------
def trainium_layout(annotation, shape, is_psum=False) -> TileLayout:
    """A Trainium layout: dims marked ``P`` go to partitions, ``F`` to the free axis (both
    row-major among their own dims). A single ``P`` dim above 128 keeps 128 partitions and
    moves the rest to the outermost free position."""
    if not re.fullmatch(r"[PF]*", annotation) or len(annotation) != len(shape):
        raise ValueError(f"trainium: annotation {annotation!r} must be P/F letters, one per "
                         f"dim of {tuple(shape)}")
    shape = [C.num(e) for e in shape]
    letters = list(annotation)
    p_dims = [i for i, c in enumerate(letters) if c == "P"]
    split_high = None
    if len(p_dims) == 1:
        p = shape[p_dims[0]]
        if not (C.prove(C.expr(p) <= 128) or C.divides(128, p)):
            raise ValueError(f"trainium: partition size {p} must be <= 128 or a multiple of 128")
        if C.less(128, p):
            split_high = (p_dims[0], C.div(p, 128))
            shape[p_dims[0]] = 128
    elif len(p_dims) > 1 and not C.prove(C.expr(C.product(shape[i] for i in p_dims)) <= 128):
        raise ValueError(f"trainium: {len(p_dims)} P dims exceed 128 partitions")

    def strides_for(letter, extra_outer=None):
        dims = [i for i, c in enumerate(letters) if c == letter]
        exts = ([extra_outer] if extra_outer is not None else []) + [shape[i] for i in dims]
        out, s = [], 1
        for e in reversed(exts):
            out.append(s)
            s = C.mul(s, e)
        out.reverse()
        return dims, out

    f_dims, f_strides = strides_for("F", split_high[1] if split_high else None)
    p_dims, p_strides = strides_for("P")
    stride_of = {}
    if split_high:
        high_stride, f_strides = f_strides[0], f_strides[1:]
    for i, s in zip(f_dims, f_strides):
        stride_of[i] = (s, Axis.get("F"))
    for i, s in zip(p_dims, p_strides):
        stride_of[i] = (s, Axis.get("P"))
    iters = []
    for i in range(len(letters)):
        if split_high and i == split_high[0]:
            iters.append(Iter(split_high[1], high_stride, "F"))
        s, axis = stride_of[i]
        iters.append(Iter(shape[i], s, axis))
    layout = TileLayout.from_iters(iters, [], {})
    return to_psum(layout) if is_psum else layout


def to_psum(layout) -> TileLayout:
    """Split ``F`` iters into PSUM banks of ``kPSUMMaxElemPerBank`` elements (``Bank``)."""
    bank_size = TileLayout.kPSUMMaxElemPerBank
    bank, free = Axis.get("Bank"), Axis.get("F")
    shard = []
    for it in layout.shard:
        e, s = C.num(it.extent), C.num(it.stride)
        if it.axis is not free:
            shard.append(it)
        elif C.divides(bank_size, s):
            shard.append(Iter(e, C.div(s, bank_size), bank))
        elif C.divides(s, bank_size):
            per_bank = C.div(bank_size, s)
            if C.less(e, per_bank):
                shard.append(it)
            elif C.divides(per_bank, e):
                shard.append(Iter(C.div(e, per_bank), 1, bank))
                shard.append(Iter(per_bank, s, free))
            else:
                raise ValueError(f"layout {layout} can not be converted to a psum layout")
        else:
            raise ValueError(f"layout {layout} can not be converted to a psum layout")
    return TileLayout.from_iters(shard, [], {})
