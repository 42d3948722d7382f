"""``Tx.copy_async`` variant ``tmem<->local`` (priority 10, warpgroup scope): Blackwell tensor
memory <-> registers with ``tcgen05.ld`` / ``tcgen05.st`` (``.32x32b``, sm_100a).

``Tx.wg.copy_async(frag[:, :], tmem[0:128, c:c + n])`` loads, ``Tx.wg.copy_async(tmem[...],
frag[:, :])`` stores. ``tmem`` is a ``scope="tmem"`` buffer declared with
``allocated_addr=`` (the address ``tcgen05.alloc`` wrote) and a layout with ``TLane`` /
``TCol`` axes; ``frag`` is a register buffer whose layout gives thread ``t`` of the warpgroup
row ``t`` of the tile and puts column ``k`` in its register ``k``
(``TileLayout(S[(128, n):(1 @ tid_in_wg, 1)])``). With ``.32x32b`` warp ``w`` of the
warpgroup reads TMEM lanes ``32 w .. 32 w + 31``, one 32-bit column per register: the
variant issues ``.x{k}`` instructions (``k`` a power of two up to 128) until the ``n`` columns
are moved, from the address ``allocated_addr + ((row0 + 32 w) << 16) + col``. The registers
move through ``uint32`` words (``T.reinterpret`` to and from the element type).

The caller waits: ``T.ptx.tcgen05.wait__ld.sync.aligned()`` after a load before reading the
registers, ``wait::st`` after a store. The dtype must be 32-bit. Not supported yet: the
``.16x64b`` / ``.16x128b`` / ``.16x256b`` shapes, ``.pack::16b`` / 16-bit elements, and the
``smem->tmem`` variant (``tcgen05.cp`` with shared-memory matrix descriptors).
"""

from __future__ import annotations

from .....arith import Analyzer
from .....runtime.data_type import DataType
from .....tirx.buffer import decl_buffer
from .....tirx.expr import Cast, IntImm
from .....tirx.function import PrimFunc
from .....tirx.op import reinterpret
from .....tirx.operator.tile_primitive import fail, predicate, register_dispatch
from .....tirx.ptx import ptx
from .....tirx.stmt import (
    AllocBuffer,
    BufferLoad,
    BufferRegion,
    BufferStore,
    DeclBuffer,
    Evaluate,
    SeqStmt,
)
from .._arch import arch_mismatch
from .._common import WARP_SIZE, all_threads_active, const_int, scope_thread_index
from ..copy.ld_stmatrix import _Fragment

__all__ = ["TMEM_LANES", "plan_tmem_copy"]

#: TMEM lanes one warpgroup covers with ``.32x32b``.
TMEM_LANES = 128
#: The largest ``.num`` of ``.32x32b``.
MAX_NUM = 128


def _tmem_axes(buf):
    layout = buf.layout
    if layout is None or not hasattr(layout, "shard"):
        fail(f"tmem buffer {buf.name} needs a TileLayout with TLane / TCol axes")
    axes = {}
    for it in layout.shard:
        axes.setdefault(it.axis.name, []).append(it)
    if set(axes) - {"TLane", "TCol"}:
        fail(f"tmem buffer {buf.name}: layout axes {sorted(axes)} (TLane / TCol expected)")
    return layout


def _tmem_coord(buf, row, col):
    """``(lane, column)`` of element ``(row, col)`` of a 2-D tmem buffer."""
    out = buf.layout.apply(row, col, shape=list(buf.shape))
    return out.get("TLane", 0), out.get("TCol", 0)


class TMEMPlan:
    """Direction, the operands, columns ``n`` and the start lane/column."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def plan_tmem_copy(call, ctx) -> TMEMPlan:
    """Check a tmem <-> register copy (module docstring)."""
    if len(call.args) < 2:
        fail("copy_async needs a destination and a source")
    dst, src = call.args[0], call.args[1]
    if not isinstance(dst, BufferRegion) or not isinstance(src, BufferRegion):
        fail("copy_async operands must be buffer regions")
    scopes = (dst.buffer.scope(), src.buffer.scope())
    if scopes == ("local", "tmem"):
        direction, tmem, frag = "ld", src, dst
    elif scopes == ("tmem", "local"):
        direction, tmem, frag = "st", dst, src
    else:
        fail(f"tmem<->local copies registers <-> tensor memory; this copy is {scopes[1]} -> "
             f"{scopes[0]}")
    tbuf, fbuf = tmem.buffer, frag.buffer
    if tbuf.dtype != fbuf.dtype:
        fail(f"copy_async from {src.buffer.dtype} to {dst.buffer.dtype}: no conversion")
    if DataType(tbuf.dtype).bits != 32:
        fail(f"dtype {tbuf.dtype}: only 32-bit elements are supported yet (.pack::16b is not)")
    if tbuf.allocated_addr is None:
        fail(f"tmem buffer {tbuf.name} has no allocated_addr")
    if len(tbuf.shape) != 2 or len(tmem.region) != 2:
        fail(f"tmem buffer {tbuf.name} must be 2-D (lanes, columns)")
    _tmem_axes(tbuf)
    rows = const_int(tmem.region[0].extent, "tmem rows")
    cols = const_int(tmem.region[1].extent, "tmem columns")
    if rows != TMEM_LANES:
        fail(f"the tmem region has {rows} rows; .32x32b at warpgroup scope moves {TMEM_LANES}")
    frag_shape = [const_int(s, "register extent") for s in fbuf.shape]
    if frag_shape != [rows, cols] or any(
            not (isinstance(r.min, IntImm) and r.min.value == 0) for r in frag.region):
        fail(f"the register buffer {fbuf.name} must be the whole ({rows}, {cols}) tile")
    layout = _Fragment(fbuf, "tid_in_wg")
    for t in range(rows):
        for k in range(cols):
            if layout.place(t * cols + k) != (t, k):
                fail(f"register buffer {fbuf.name}: element ({t}, {k}) is not in register {k} "
                     f"of thread {t} (.32x32b gives each thread one row)")
    row0, col0 = tmem.region[0].min, tmem.region[1].min
    lane0, colu = _tmem_coord(tbuf, row0, col0)
    lane_end, col_end = _tmem_coord(tbuf, row0 + rows - 1, col0 + cols - 1)
    analyzer = Analyzer()
    if not analyzer.can_prove(lane_end - lane0 == rows - 1) or \
            not analyzer.can_prove(col_end - colu == cols - 1):
        fail(f"tmem buffer {tbuf.name}: the region is not {rows} consecutive lanes x {cols} "
             "consecutive columns")
    if not analyzer.can_prove(lane0 % WARP_SIZE == 0):
        fail(f"the tmem region starts at lane {lane0}; each warp reads a 32-lane quarter")
    return TMEMPlan(direction=direction, tmem=tmem, frag=frag, cols=cols, lane0=lane0,
                    col0=colu)


def _applicable(call, ctx):
    if ctx.scope_kind != "warpgroup":
        return False, f"tcgen05.ld/st .32x32b run at warpgroup scope, got {ctx.scope_kind}"
    ok, why = all_threads_active(ctx)
    if not ok:
        return ok, why
    why = arch_mismatch(ctx, "tcgen05.ld/st", "sm_100a")
    if why:
        return False, why
    plan_tmem_copy(call, ctx)
    return True, None


def _chunks(cols: int):
    out, k = [], 0
    while k < cols:
        n = MAX_NUM
        while n > cols - k:
            n //= 2
        out.append((k, n))
        k += n
    return out


@register_dispatch("copy_async", "cuda", variant="tmem<->local", priority=10,
                   when=[predicate("tmem_local_applicable", _applicable)])
def copy_async_tmem_local(call, ctx):
    """Tensor memory <-> registers with tcgen05.ld / tcgen05.st (module docstring)."""
    plan = plan_tmem_copy(call, ctx)
    tbuf, fbuf = plan.tmem.buffer, plan.frag.buffer
    dtype = fbuf.dtype
    regs = fbuf.local()
    words = decl_buffer((plan.cols,), "uint32", "tmem_words", scope="local")
    stmts = [DeclBuffer(regs), AllocBuffer(words)]
    warp = scope_thread_index(ctx) // WARP_SIZE
    lane = (plan.lane0 + warp * WARP_SIZE) * 65536  # the lane goes to bits 16..31
    base = Analyzer().simplify(_u32(tbuf.allocated_addr[0]) + _u32(lane) + _u32(plan.col0))

    def reg(k):
        return BufferLoad(regs, [IntImm("int32", k)])

    def word(k):
        return BufferLoad(words, [IntImm("int32", k)])

    if plan.direction == "st":
        for k in range(plan.cols):
            stmts.append(BufferStore(words, reinterpret("uint32", reg(k)), [IntImm("int32", k)]))
    for k0, n in _chunks(plan.cols):
        addr = base + IntImm("uint32", k0) if k0 else base
        if plan.direction == "ld":
            chain = f"tcgen05.ld.sync.aligned.32x32b.x{n}.b32"
            stmts.append(Evaluate(ptx[chain](*[word(k0 + i) for i in range(n)], addr)))
        else:
            chain = f"tcgen05.st.sync.aligned.32x32b.x{n}.b32"
            stmts.append(Evaluate(ptx[chain](addr, *[word(k0 + i) for i in range(n)])))
    if plan.direction == "ld":
        for k in range(plan.cols):
            stmts.append(BufferStore(regs, reinterpret(dtype, word(k)), [IntImm("int32", k)]))
    return PrimFunc([], SeqStmt(stmts))


def _u32(value):
    if isinstance(value, int):
        return IntImm("uint32", value)
    return value if value.dtype == "uint32" else Cast("uint32", value)
