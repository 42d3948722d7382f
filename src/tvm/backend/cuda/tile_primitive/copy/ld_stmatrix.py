"""``copy`` variant ``ldstmatrix`` (priority 10): register fragments <-> shared memory with
``ldmatrix`` / ``stmatrix`` (``.m8n8.b16``, ``.x1``/``.x2``/``.x4``, optionally ``.trans``).

One operand is a register buffer whose layout spreads it over the scope's threads (a
``TileLayout`` with a ``laneid`` axis at warp scope, ``tid_in_wg`` at warpgroup scope, ``tx``
at CTA scope, plus ``m`` iters for each thread's registers); the other a shared buffer with
a ``TileLayout`` of ``m`` iters, optionally under a ``ComposeLayout`` swizzle. Both regions
cover their whole buffers, which have the same shape, with a 16-bit dtype.

The variant evaluates both layouts for every thread and register and checks that each
32-bit register word (registers ``2j``, ``2j + 1``) of each warp is word ``j`` of an 8 x 8
``b16`` matrix in ``ldmatrix``'s fragment order: lane ``l`` holds row ``l // 4``, columns
``2 (l % 4)`` and ``2 (l % 4) + 1`` of a matrix whose rows are 16 contiguous, 16-byte
aligned bytes of shared memory (non-transposed), or column ``l // 4``, rows
``2 (l % 4)``, ``2 (l % 4) + 1`` (``.trans``). Words go four per instruction (``.x4``), the
rest ``.x2`` / ``.x1``; thread ``l`` of a warp gives the address of row ``l % 8`` of matrix
``l // 8`` of its instruction. The registers move through ``uint32`` words, packed /
unpacked with ``T.reinterpret``.

``stmatrix`` needs sm_90. Not supported yet: partial regions, 8-bit ``ldmatrix`` shapes
(``m16n16``/``m8n16``, sm_100), register layouts with replicas.
"""

from __future__ import annotations

import math

from .....arith import Analyzer
from .....runtime.data_type import DataType
from .....tirx.buffer import decl_buffer
from .....tirx.cuda_ops import cuda
from .....tirx.expr import Cast, IntImm
from .....tirx.function import PrimFunc
from .....tirx.layout import ComposeLayout, TileLayout
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
from .._arch import target_sm
from .._common import WARP_SIZE, all_threads_active, const_int, memory_kind, scope_thread_index

__all__ = ["LANE_AXES", "FragmentPlan", "plan_ldstmatrix"]

#: The thread axis of the register layout at each scope, and the scope's thread count.
LANE_AXES = {"warp": ("laneid", 32), "warpgroup": ("tid_in_wg", 128), "cta": ("tx", None)}


def _digits(layout: TileLayout, flat):
    """``[(digit, stride, axis name)]`` of the flat index ``flat`` (int or PrimExpr)."""
    out, inner = [], 1
    iters = list(layout.shard)
    exts = [const_int(it.extent, "layout extent") for it in iters]
    for it, ext in reversed(list(zip(iters, exts))):
        digit = (flat // inner) % ext if ext > 1 else 0
        out.append((digit, const_int(it.stride, "layout stride"), it.axis.name))
        inner *= ext
    return out


def _swizzle(layout: ComposeLayout, m):
    mask = (1 << layout.swizzle_len) - 1
    shift = layout.per_element + layout.atom_len
    if isinstance(m, int):
        return m ^ (((m >> shift) & mask) << layout.per_element)
    return m ^ (((m >> IntImm("int32", shift)) & IntImm("int32", mask))
                << IntImm("int32", layout.per_element))


class _Shared:
    """The shared operand: flat logical index -> element offset (swizzle included)."""

    def __init__(self, buf):
        layout = buf.layout
        self.swizzle = None
        if isinstance(layout, ComposeLayout):
            if not layout.swizzle_inner:
                fail(f"shared buffer {buf.name}: an outer swizzle is not supported")
            self.swizzle = layout
            layout = layout.tile_layout
        if layout is None:
            layout = TileLayout.from_iters([])  # replaced below by row-major digits
            self.row_major = True
        else:
            self.row_major = False
            if not isinstance(layout, TileLayout) or layout.replica or any(
                    it.axis.name != "m" for it in layout.shard):
                fail(f"shared buffer {buf.name}: layout {buf.layout} is not a memory layout")
        self.layout = layout
        self.base = buf.elem_offset if buf.elem_offset is not None else 0

    def offset(self, flat):
        if self.row_major:
            m = flat
        else:
            m = 0
            for digit, stride, _ in _digits(self.layout, flat):
                if not (isinstance(digit, int) and digit == 0):
                    m = m + digit * stride
        if self.swizzle is not None:
            m = _swizzle(self.swizzle, m)
        return m


class _Fragment:
    """The register operand: flat logical index <-> (thread, register)."""

    def __init__(self, buf, axis: str):
        layout = buf.layout
        if not isinstance(layout, TileLayout) or layout.replica:
            fail(f"register buffer {buf.name}: needs a TileLayout over threads without "
                 f"replicas, got {layout}")
        names = {it.axis.name for it in layout.shard}
        if axis not in names:
            fail(f"register buffer {buf.name}: its layout has no {axis} axis (got "
                 f"{sorted(names)})")
        if names - {axis, "m"}:
            fail(f"register buffer {buf.name}: layout axes {sorted(names - {axis, 'm'})} "
                 "are not supported")
        self.layout, self.axis = layout, axis
        self.size = math.prod(const_int(s, "register extent") for s in buf.shape)
        self.regs = 1 + sum(const_int(it.stride, "stride") * (const_int(it.extent, "extent") - 1)
                            for it in layout.shard if it.axis.name == "m")

    def place(self, flat: int):
        thread = reg = 0
        for digit, stride, name in _digits(self.layout, flat):
            if name == "m":
                reg += digit * stride
            else:
                thread += digit * stride
        return thread, reg

    def flat_of(self, thread, reg):
        """The flat logical index held by ``(thread, reg)`` (ints or PrimExprs), from the
        inverse digit map: each layout iter's digit is read off its axis value."""
        flat, inner = 0, 1
        for it in reversed(list(self.layout.shard)):
            ext = const_int(it.extent, "extent")
            stride = const_int(it.stride, "stride")
            value = reg if it.axis.name == "m" else thread
            if ext > 1:
                digit = (value // stride) % ext
                flat = flat + digit * inner
            inner *= ext
        return flat


class FragmentPlan:
    """What ``plan_ldstmatrix`` found: words per thread, ``.trans``, the threads."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def _operands(call, ctx):
    if len(call.args) < 2:
        fail("copy needs a destination and a source")
    dst, src = call.args[0], call.args[1]
    if not isinstance(dst, BufferRegion) or not isinstance(src, BufferRegion):
        fail("copy operands must be buffer regions")
    kinds = (memory_kind(dst.buffer), memory_kind(src.buffer))
    if kinds == ("local", "shared"):
        return "ld", src, dst
    if kinds == ("shared", "local"):
        return "st", dst, src
    fail(f"ldmatrix/stmatrix copy registers <-> shared; this copy is {kinds[1]} -> {kinds[0]}")
    return None


def _whole(region, what):
    buf = region.buffer
    for k, (r, n) in enumerate(zip(region.region, buf.shape)):
        if not (isinstance(r.min, IntImm) and r.min.value == 0) or \
                const_int(r.extent, f"{what} extent") != const_int(n, f"{what} shape"):
            fail(f"{what} {buf.name}: the region must cover the whole buffer (dimension {k} "
                 "is partial); partial regions are not supported yet")


def plan_ldstmatrix(call, ctx) -> FragmentPlan:
    """Check the operands against ldmatrix's fragment order (module docstring)."""
    direction, shared, regs = _operands(call, ctx)
    if ctx.scope_kind not in LANE_AXES:
        fail(f"scope {ctx.scope_kind}: ldmatrix/stmatrix run at warp, warpgroup or cta scope")
    sbuf, rbuf = shared.buffer, regs.buffer
    if sbuf.dtype != rbuf.dtype or DataType(sbuf.dtype).bits != 16:
        fail(f"ldmatrix/stmatrix move 16-bit elements; the operands are {rbuf.dtype} and "
             f"{sbuf.dtype}")
    if [const_int(s, "shape") for s in sbuf.shape] != [const_int(s, "shape")
                                                        for s in rbuf.shape]:
        fail(f"the shared buffer {sbuf.name} and the register buffer {rbuf.name} must have the "
             "same shape")
    _whole(shared, "shared operand")
    _whole(regs, "register operand")
    axis, threads = LANE_AXES[ctx.scope_kind]
    frag = _Fragment(rbuf, axis)
    smem = _Shared(sbuf)
    table = {}
    for flat in range(frag.size):
        table[frag.place(flat)] = smem.offset(flat)
    thread_set = sorted({t for t, _ in table})
    n_threads = len(thread_set)
    if threads is not None and n_threads != threads or thread_set != list(range(n_threads)) \
            or n_threads % WARP_SIZE:
        fail(f"the register layout spreads over {n_threads} threads; the {ctx.scope_kind} "
             f"needs all of its {threads or 'warps of'} threads, whole warps")
    regs_per_thread = frag.regs
    if len(table) != n_threads * regs_per_thread or regs_per_thread % 2:
        fail(f"each thread must hold an even number of registers densely ({len(table)} "
             f"elements over {n_threads} threads x {regs_per_thread} registers)")
    words = regs_per_thread // 2
    for trans in (False, True):
        if _matches(table, n_threads, words, trans):
            return FragmentPlan(direction=direction, shared=shared, regs=regs, frag=frag,
                                smem=smem, words=words, trans=trans, threads=n_threads)
    fail("the register fragment and the shared layout are not in ldmatrix order: each "
         "register pair must be a lane's part of an 8 x 8 matrix with 16-byte rows")
    return None


def _row_holder(lane: int, trans: bool):
    """``(lane holding the row's first word, half)`` for row ``lane`` of a matrix."""
    return (4 * lane, 0) if not trans else (lane // 2, lane % 2)


def _matches(table, n_threads, words, trans) -> bool:
    for w0 in range(0, n_threads, WARP_SIZE):
        for j in range(words):
            rows = []
            for r in range(8):
                lane, half = _row_holder(r, trans)
                start = table[(w0 + lane, 2 * j + half)]
                if not isinstance(start, int) or start % 8:
                    return False
                rows.append(start)
            for lane in range(WARP_SIZE):
                for h in range(2):
                    got = table[(w0 + lane, 2 * j + h)]
                    want = (rows[lane // 4] + 2 * (lane % 4) + h if not trans
                            else rows[2 * (lane % 4) + h] + lane // 4)
                    if got != want:
                        return False
    return True


def _applicable(call, ctx):
    if ctx.scope_kind not in LANE_AXES:
        return False, f"scope {ctx.scope_kind} is not warp, warpgroup or cta"
    ok, why = all_threads_active(ctx)
    if not ok:
        return ok, why
    plan = plan_ldstmatrix(call, ctx)
    if plan.direction == "st":
        sm = target_sm(ctx)
        if sm is not None and sm < 90:
            return False, f"stmatrix needs sm_90 or newer, the target is sm_{sm}"
    return True, None


def _chunks(words: int):
    out, j = [], 0
    while j < words:
        n = 4 if words - j >= 4 else (2 if words - j >= 2 else 1)
        out.append((j, n))
        j += n
    return out


@register_dispatch("copy", "cuda", variant="ldstmatrix", priority=10,
                   when=[predicate("ldstmatrix_applicable", _applicable)])
def copy_ldstmatrix(call, ctx):
    """Register fragment <-> shared copy with ldmatrix / stmatrix (module docstring)."""
    plan = plan_ldstmatrix(call, ctx)
    sbuf, rbuf = plan.shared.buffer, plan.regs.buffer
    dtype = sbuf.dtype
    tid = scope_thread_index(ctx)
    analyzer = Analyzer()
    view = decl_buffer((1,), dtype, f"{sbuf.name}_mat", data=sbuf.data, scope=sbuf.scope())
    regs = rbuf.local()
    words = decl_buffer((plan.words,), "uint32", "mat_words", scope="local")
    stmts = [DeclBuffer(view), DeclBuffer(regs), AllocBuffer(words)]

    def reg(k):
        return BufferLoad(regs, [IntImm("int32", k)])

    def word(j):
        return BufferLoad(words, [IntImm("int32", j)])

    if plan.direction == "st":
        for j in range(plan.words):
            lo = Cast("uint32", reinterpret("uint16", reg(2 * j)))
            hi = Cast("uint32", reinterpret("uint16", reg(2 * j + 1))) << IntImm("uint32", 16)
            stmts.append(BufferStore(words, lo | hi, [IntImm("int32", j)]))
    warp = tid // WARP_SIZE if plan.threads > WARP_SIZE else 0
    lane = tid % WARP_SIZE if plan.threads > WARP_SIZE else tid
    for j0, n in _chunks(plan.words):
        # this thread gives row (lane % 8) of matrix (lane // 8) % n of the instruction
        j = j0 + (lane // 8) % n if n > 1 else j0
        row = lane % 8
        holder = 4 * row if not plan.trans else row // 2
        half = 0 if not plan.trans else row % 2
        thread = holder if isinstance(warp, int) else warp * WARP_SIZE + holder
        flat = plan.frag.flat_of(thread, j * 2 + half)
        offset = analyzer.simplify(plan.smem.offset(flat) + plan.smem.base)
        addr = cuda.cvta_generic_to_shared(view.ptr_to([offset]))
        trans = ".trans" if plan.trans else ""
        name = "ldmatrix" if plan.direction == "ld" else "stmatrix"
        chain = f"{name}.sync.aligned.m8n8.x{n}{trans}.shared.b16"
        operands = [word(j0 + k) for k in range(n)]
        if plan.direction == "ld":
            stmts.append(Evaluate(ptx[chain](*operands, addr)))
        else:
            stmts.append(Evaluate(ptx[chain](addr, *operands)))
    if plan.direction == "ld":
        for j in range(plan.words):
            lo = reinterpret(dtype, Cast("uint16", word(j)))
            hi = reinterpret(dtype, Cast("uint16", word(j) >> IntImm("uint32", 16)))
            stmts.append(BufferStore(regs, lo, [IntImm("int32", 2 * j)]))
            stmts.append(BufferStore(regs, hi, [IntImm("int32", 2 * j + 1)]))
    return PrimFunc([], SeqStmt(stmts))
