"""CUDA variants of ``Tx.gemm_async(C, A, B)``: ``wgmma`` (Hopper) and ``tcgen05`` (Blackwell).

Both compute ``C (+)= A @ B^T`` with A ``(M, K)`` and B ``(N, K)`` tiles in shared memory,
K-major (K contiguous), each laid out by
``tvm.tirx.layout.mma_shared_layout(dtype, swizzle, shape)`` (no swizzle, 32-, 64- or
128-byte swizzle; the shape may have leading dims, e.g. pipeline stages, indexed with
extent 1). The tensor cores read them through 64-bit shared-memory matrix descriptors
(PTX ISA 9.7.15.5.1 / 9.7.16.4.1) that the variant computes from the buffer's address:

* start address ``>> 4``; the leading byte offset (no swizzle: between the two 8-column core
  matrices of a k16 step, ``rows * 16`` bytes; swizzled: unused, 16); the stride byte offset
  (between 8-row groups: ``8 * swizzle width``, 128 bytes without swizzle); the layout type
  (wgmma: 1/2/3 = 128/64/32-byte swizzle; tcgen05: 2/4/6 and bit 46 set);
* one instruction per K step of 16 (f16/bf16): within a swizzle line the start address moves
  by 32 bytes, past it to the next column block (``rows * line`` bytes further).

The swizzle is a function of the shared-memory address bits, so swizzled tiles must start
at a multiple of the swizzle atom (``8 * width``: 1024 bytes for 128B); allocate them with
``align=1024``. Completion is the caller's, as the name says:

* ``wgmma`` (``Tx.wg.gemm_async``, warpgroup scope, all 128 threads): ``C`` is the register
  accumulator of ``wgmma.mma_async.m64nNk16.f32``, a ``local`` float32 buffer, either the
  ``(64, N)`` tile with :func:`wgmma_accumulator_layout` or the thread's ``N / 2`` registers
  in instruction order (1-D); ``A`` has 64 rows, ``B`` ``N`` rows (8..256, a multiple of 8).
  Emits ``wgmma.fence``, the MMAs and ``wgmma.commit_group``; the caller waits with
  ``T.ptx.wgmma.wait_group(n)`` before reading ``C`` or overwriting the tiles (and fences
  the accumulators with ``T.cuda.wgmma.noop_barrier``).
* ``tcgen05`` (thread scope: one thread issues): ``C`` is a ``tmem`` buffer declared with
  ``allocated_addr`` and the datapath layout ``TileLayout(S[(128, n):(1@TLane, 1@TCol)])``
  (M = 128, ``cta_group::1``); float32 accumulation, N from B's rows (16..256, a multiple of
  16). Emits the ``tcgen05.mma.cta_group::1.kind::f16`` instructions with the instruction
  descriptor (PTX ISA 9.7.16.4.2); the caller commits (``tcgen05.commit...mbarrier``) and
  waits. ``cta_group=2`` (config, with optional ``mma_m=256``, ``mma_n=N`` checks): a CTA
  pair computes M = 256, N = 2 x B's rows: each CTA holds 128 rows of A, half of B's rows
  and 128 TMEM lanes of C at the same shared / TMEM offsets, and the even CTA's one thread
  issues ``tcgen05.mma.cta_group::2`` (the caller allocates TMEM with ``cta_group::2`` and
  commits with the multicast form to both CTAs). Compile-only here: it needs sm_100a, which
  no machine of this project has.

``accum`` (the call's flag after ``transA``/``transB``, default False) is True to add to C,
False to overwrite it (``scale-d`` / ``enable-input-d`` 0 on the first K step), or a boolean
PrimExpr (``k > 0`` in a K loop).

wgmma input kinds: f16 and bf16 (``k16``), tf32 (``float32`` tiles, ``k8``), fp8 e4m3 / e5m2
(``k32``); each instruction reads 32 bytes of K. ``transA`` / ``transB`` True make the
operand MN-major (16-bit inputs only, as PTX allows): the region is then ``(K, M)`` /
``(K, N)`` with M / N contiguous, in a swizzled ``mma_shared_layout`` of that shape; the
descriptor's leading offset is the stride between swizzle atoms along MN (a whole column
block, ``K rows x swizzle width`` bytes), its stride offset that between groups of 8 K rows,
and ``imm-trans-a`` / ``imm-trans-b`` are 1. ``tcgen05`` takes MN-major f16 / bf16
operands the same way (instruction-descriptor bits 15 / 16). Not supported yet: MN-major
operands without swizzle, non-16-bit tcgen05 operands (kind::tf32, kind::f8f6f4), int8, f16
accumulation, M = 64 tcgen05 tiles, block scaling, sparsity.
"""

from __future__ import annotations

from ....arith import Analyzer
from ....runtime.data_type import DataType
from ....tirx.expr import Cast, IntImm
from ....tirx.function import PrimFunc
from ....tirx.layout import R, S, TCol, TileLayout, TLane, tid_in_wg
from ....tirx.layout.factories import SwizzleMode, mma_shared_layout
from ....tirx.layout.recognize import equivalent
from ....tirx.operator.tile_primitive import fail, predicate, register_dispatch
from ....tirx.ptx import ptx
from ....tirx.stmt import BufferRegion, Evaluate, SeqStmt
from ._arch import arch_mismatch
from ._common import all_threads_active, const_int, memory_kind, provably_multiple

__all__ = ["sf_tmem_layout", "smem_matrix_descriptor", "tcgen05_instr_descriptor",
           "wgmma_accumulator_layout"]

#: wgmma input dtypes and their PTX names (tf32 reads float32 tiles)
_IN_DTYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "tf32",
              "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}
#: dtypes that may be MN-major (PTX: the transpose is for 16-bit inputs only)
_TRANSPOSABLE = ("float16", "bfloat16")
#: tcgen05 here: the kind::f16 dtypes
_TC05_DTYPES = {"float16": "f16", "bfloat16": "bf16"}
_SWIZZLE_WIDTH = {SwizzleMode.SWIZZLE_NONE: 16, SwizzleMode.SWIZZLE_32B_ATOM: 32,
                  SwizzleMode.SWIZZLE_64B_ATOM: 64, SwizzleMode.SWIZZLE_128B_ATOM: 128}
# descriptor layout-type field per swizzle mode
_WGMMA_LAYOUT = {SwizzleMode.SWIZZLE_NONE: 0, SwizzleMode.SWIZZLE_128B_ATOM: 1,
                 SwizzleMode.SWIZZLE_64B_ATOM: 2, SwizzleMode.SWIZZLE_32B_ATOM: 3}
_TCGEN05_LAYOUT = {SwizzleMode.SWIZZLE_NONE: 0, SwizzleMode.SWIZZLE_128B_ATOM: 2,
                   SwizzleMode.SWIZZLE_64B_ATOM: 4, SwizzleMode.SWIZZLE_32B_ATOM: 6}


def smem_matrix_descriptor(start_bytes, leading_bytes: int, stride_bytes: int, swizzle,
                           arch: str = "wgmma"):
    """The 64-bit shared-memory matrix descriptor (an int, or a uint64 PrimExpr when
    ``start_bytes`` is one: the 32-bit shared-window address of the tile).

    ``swizzle`` is a :class:`SwizzleMode`; ``arch`` ``"wgmma"`` (sm_90 encoding) or
    ``"tcgen05"`` (sm_100: layout type in bits 61-63, version bit 46).
    """
    mode = SwizzleMode(int(swizzle))
    for what, value in (("leading_bytes", leading_bytes), ("stride_bytes", stride_bytes)):
        if value % 16 or not 0 <= value >> 4 < 1 << 14:
            raise ValueError(f"smem_matrix_descriptor: {what} must be a multiple of 16 below "
                             f"256 KB, got {value}")
    high = ((stride_bytes >> 4) << 32) | ((leading_bytes >> 4) << 16)
    if arch == "wgmma":
        high |= _WGMMA_LAYOUT[mode] << 62
    elif arch == "tcgen05":
        high |= (_TCGEN05_LAYOUT[mode] << 61) | (1 << 46)
    else:
        raise ValueError(f"smem_matrix_descriptor: arch must be wgmma or tcgen05, got {arch!r}")
    if isinstance(start_bytes, int):
        return high | ((start_bytes & 0x3FFFF) >> 4)
    low = Cast("uint64", (start_bytes & IntImm("uint32", 0x3FFFF)) >> IntImm("uint32", 4))
    return IntImm("uint64", high) | low


def tcgen05_instr_descriptor(M: int, N: int, in_dtype: str, acc_dtype: str = "float32",
                             trans_a: bool = False, trans_b: bool = False) -> int:
    """The 32-bit ``kind::f16`` instruction descriptor (PTX ISA 9.7.16.4.2): D format in bits
    4-5 (1 = f32), A/B formats in 7-9 / 10-12 (0 = f16, 1 = bf16), A / B major-ness in bits
    15 / 16 (0 K-major, 1 MN-major: ``trans_a`` / ``trans_b``), ``N >> 3`` in 17-22,
    ``M >> 4`` in 24-28."""
    fmt = {"float16": 0, "bfloat16": 1}.get(in_dtype)
    if fmt is None or acc_dtype != "float32":
        raise ValueError(f"tcgen05_instr_descriptor: f16/bf16 inputs with float32 accumulation "
                         f"only, got {in_dtype} -> {acc_dtype}")
    return ((1 << 4) | (fmt << 7) | (fmt << 10) | (int(bool(trans_a)) << 15)
            | (int(bool(trans_b)) << 16) | ((N >> 3) << 17) | ((M >> 4) << 24))


def wgmma_accumulator_layout(N: int) -> TileLayout:
    """The ``(64, N)`` float32 accumulator of ``wgmma.m64nNk16`` over a warpgroup: thread
    ``t`` (warp ``w = t // 32``, lane ``l``) holds register ``4*j + 2*h + c`` at row
    ``16*w + 8*h + l // 4``, column ``8*j + 2*(l % 4) + c``."""
    if N % 8 or not 8 <= N <= 256:
        raise ValueError(f"wgmma_accumulator_layout: N={N} must be a multiple of 8 in 8..256")
    return TileLayout(S[(4, 2, 8, N // 8, 4, 2):(32 @ tid_in_wg, 2, 4 @ tid_in_wg, 4,
                                                   1 @ tid_in_wg, 1)])


#: 8-bit scale factors per 32-bit TMEM column.
_SF_PER_COLUMN = 4


def sf_tmem_layout(rows: int, SF_K: int, sf_per_mma: int, sf_reuse: int = 1,
                   pipe_depth: int | None = None) -> TileLayout:
    """The TMEM layout of the 8-bit scale factors (SFA / SFB) of a block-scaled
    ``tcgen05.mma`` over ``rows`` rows and ``SF_K`` distinct scale factors per row.

    Rows go in chunks of 32: row ``32 c + r`` sits on lane ``r`` (and, as a replica, on lanes
    ``r + 32``, ``+ 64``, ``+ 96``: every lane quarter holds a copy), chunk ``c`` at column
    byte ``4 c``. Along K, the ``sf_per_mma`` factors one MMA reads are consecutive bytes of a
    column; the K groups of one chunk share the column's 4 bytes while they fit (``4 //
    sf_per_mma`` groups, halved until it divides the group count) and the rest move on by a
    whole chunk row of columns (``4 * rows / 32`` bytes). ``sf_reuse > 1`` appends an
    innermost stride-0 dimension (the buffer's last extent is ``SF_K * sf_reuse``: MMAs that
    reuse one group read the same bytes); ``pipe_depth`` prepends a stage dimension whose
    stride is one stage's span (the buffer is then ``(pipe_depth, rows, SF_K * sf_reuse)``).
    Offsets are in scale-factor bytes on the ``TCol`` axis. The block-scaled gemm that reads
    this layout is not supported yet (compile-side only: the layout, for allocation).
    """
    for name, value in (("rows", rows), ("SF_K", SF_K), ("sf_per_mma", sf_per_mma),
                        ("sf_reuse", sf_reuse)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"sf_tmem_layout: {name} must be a positive int, got {value!r}")
    if rows % 32:
        raise ValueError(f"sf_tmem_layout: rows={rows} must be a multiple of 32 (a lane chunk)")
    if sf_per_mma > _SF_PER_COLUMN or _SF_PER_COLUMN % sf_per_mma:
        raise ValueError(f"sf_tmem_layout: sf_per_mma={sf_per_mma} must divide "
                         f"{_SF_PER_COLUMN} (the bytes of a TMEM column)")
    if SF_K % sf_per_mma:
        raise ValueError(f"sf_tmem_layout: SF_K={SF_K} must be a multiple of "
                         f"sf_per_mma={sf_per_mma}")
    chunks, groups = rows // 32, SF_K // sf_per_mma
    pack = _SF_PER_COLUMN // sf_per_mma
    while pack > 1 and groups % pack:
        pack //= 2
    chunk_span = chunks * _SF_PER_COLUMN  # bytes of one chunk row of columns
    dims = [  # (extent, stride, axis), outer -> inner, per buffer dim
        (chunks, _SF_PER_COLUMN, TCol), (32, 1, TLane),
        (groups // pack, chunk_span, TCol), (pack, sf_per_mma, TCol), (sf_per_mma, 1, TCol)]
    if sf_reuse > 1:
        dims.append((sf_reuse, 0, TCol))
    if pipe_depth is not None:
        if isinstance(pipe_depth, bool) or not isinstance(pipe_depth, int) or pipe_depth < 1:
            raise ValueError(f"sf_tmem_layout: pipe_depth must be a positive int, got "
                             f"{pipe_depth!r}")
        dims.insert(0, (pipe_depth, chunk_span * (groups // pack), TCol))
    dims = [d for d in dims if d[0] != 1]
    extents = tuple(e for e, _, _ in dims)
    strides = tuple(st @ axis for _, st, axis in dims)
    return TileLayout(S[extents:strides] + R[4:32 @ TLane])


class _SmemOperand:
    """An MMA operand tile in shared memory (module docstring).

    ``major`` ``"K"``: the region is ``(MN rows, K columns)``, K contiguous; ``"MN"`` (a
    transposed operand): the region is ``(K rows, MN columns)``, MN contiguous. Either way the
    buffer is laid out by ``mma_shared_layout(dtype, swizzle, shape)`` over its own shape.
    ``mn`` / ``k`` are the region's extents along M (or N) and K.
    """

    def __init__(self, region, what: str, dtypes=None, major: str = "K"):
        dtypes = _IN_DTYPES if dtypes is None else dtypes
        if not isinstance(region, BufferRegion):
            fail(f"operand {what} must be a buffer region")
        buf = self.buffer = region.buffer
        self.what, self.major = what, major
        if memory_kind(buf) != "shared":
            fail(f"operand {what} ({buf.name}) must be in shared memory, not "
                 f"{buf.scope() or 'global'}")
        if str(buf.dtype) not in dtypes:
            fail(f"operand {what} ({buf.name}) has dtype {buf.dtype}; supported: "
                 f"{', '.join(dtypes)}")
        self.dtype = str(buf.dtype)
        self.elem_bytes = DataType(self.dtype).bits // 8
        self.k_step = 32 // self.elem_bytes  # one instruction reads 32 bytes of K
        shape = [const_int(s, f"{what} extent") for s in buf.shape]
        if len(shape) < 2:
            fail(f"operand {what} ({buf.name}) must have rows and columns")
        self.mode = None
        if buf.layout is not None:
            for mode in SwizzleMode:
                try:
                    want = mma_shared_layout(self.dtype, mode, shape)
                except ValueError:
                    continue
                if equivalent(buf.layout, want):
                    self.mode = mode
                    break
        if self.mode is None:
            fail(f"operand {what} ({buf.name}) must be laid out by mma_shared_layout(dtype, "
                 "swizzle, shape)")
        if major == "MN" and self.mode == SwizzleMode.SWIZZLE_NONE:
            fail(f"operand {what} ({buf.name}): an MN-major operand without swizzle is not "
                 "supported yet (use a 32/64/128-byte swizzle)")
        *lead, rows, cols = shape
        self.rows_total = rows
        self.line = _SWIZZLE_WIDTH[self.mode] // self.elem_bytes  # elements per line
        ranges = list(region.region)
        offset = IntImm("int32", 0)
        stride = rows * cols
        for k in reversed(range(len(lead))):
            if const_int(ranges[k].extent, f"{what} leading extent") != 1:
                fail(f"operand {what} ({buf.name}): leading dim {k} must be indexed with "
                     "extent 1")
            offset = offset + ranges[k].min * stride
            stride *= lead[k]
        self.lead_offset = offset  # elements
        self.row0 = ranges[-2].min
        self.col0 = ranges[-1].min
        n_rows = const_int(ranges[-2].extent, f"{what} row extent")
        n_cols = const_int(ranges[-1].extent, f"{what} column extent")
        self.width = _SWIZZLE_WIDTH[self.mode]
        if major == "K":
            self.mn, self.k, k0 = n_rows, n_cols, self.col0
            if not provably_multiple(self.row0, 8):
                fail(f"operand {what} ({buf.name}): the first row {self.row0} must be a "
                     "multiple of 8 (a core matrix)")
        else:
            self.mn, self.k, k0 = n_cols, n_rows, self.row0
            if not provably_multiple(self.col0, self.line):
                fail(f"operand {what} ({buf.name}): an MN-major region must start at a "
                     f"multiple of the {self.width}-byte line ({self.line} elements), got "
                     f"column {self.col0}")
        if not provably_multiple(k0, self.k_step) or self.k % self.k_step:
            fail(f"operand {what} ({buf.name}): the K range must start at a multiple of "
                 f"{self.k_step} and span a multiple of {self.k_step} ({self.dtype}: 32 bytes "
                 f"per instruction), got start {k0} extent {self.k}")

    def descriptor_args(self):
        """(leading byte offset, stride byte offset) of the descriptor."""
        if self.major == "MN":
            # leading: from one swizzle atom to the next along MN (a whole column block of
            # the layout); stride: from one group of 8 K rows to the next
            return self.rows_total * self.width, 8 * self.width
        if self.mode == SwizzleMode.SWIZZLE_NONE:
            return self.rows_total * 16, 128
        return 16, 8 * self.width

    def byte_offset(self, k: int, analyzer: Analyzer):
        """Unswizzled byte offset, from the buffer start, of the first element the K step at
        ``k`` (elements from the region's K start) reads."""
        if self.major == "MN":
            elems = (self.lead_offset + (self.col0 // self.line) * (self.rows_total * self.line)
                     + (self.row0 + k) * self.line)
        else:
            col = self.col0 + k
            elems = (self.lead_offset + (col // self.line) * (self.rows_total * self.line)
                     + self.row0 * self.line + col % self.line)
        return analyzer.simplify(elems * self.elem_bytes)

    def address(self):
        """The 32-bit shared-window address of the buffer's first element."""
        from ....tirx.cuda_ops import address_of, cuda  # same layer; a lazy import keeps the
        # tile-primitive package free of the T.cuda namespace until a gemm is lowered

        zeros = [IntImm("int32", 0)] * len(self.buffer.shape)
        return cuda.cvta_generic_to_shared(address_of(self.buffer[tuple(zeros)]))

    def descriptors(self, base, arch: str):
        """One descriptor per K step (32 bytes of K), for the tile at shared address
        ``base``."""
        analyzer = Analyzer()
        lbo, sbo = self.descriptor_args()
        out = []
        for k in range(0, self.k, self.k_step):
            off = self.byte_offset(k, analyzer)
            start = base + (Cast("uint32", off) if not isinstance(off, IntImm)
                            else IntImm("uint32", off.value))
            out.append(smem_matrix_descriptor(start, lbo, sbo, self.mode, arch))
        return out


def _flag(name, flag):
    if isinstance(flag, bool):
        return flag
    if isinstance(flag, IntImm):
        return bool(flag.value)
    fail(f"{name}={flag} must be a constant bool")
    return False


def _unpack(call):
    """``(C, A, B, transA, transB, accum)`` of ``gemm_async(C, A, B, transA, transB,
    accum)``."""
    args = list(call.args)
    if len(args) == 8:
        fail("block-scaled gemm_async (SFA/SFB) is not supported yet")
    if len(args) != 6:
        fail(f"gemm_async takes C, A, B, transA, transB, accum; got {len(args)} arguments")
    return (args[0], args[1], args[2], _flag("transA", args[3]), _flag("transB", args[4]),
            args[5])


def _accumulate_flag(accum):
    """``accum`` as the int32 scale-d / enable-input-d operand of the first K step."""
    if isinstance(accum, bool):
        return IntImm("int32", int(accum))
    if isinstance(accum, IntImm):
        return IntImm("int32", int(bool(accum.value)))
    return Cast("int32", accum)


# ---- wgmma ---------------------------------------------------------------------------------
class _WgmmaPlan:
    def __init__(self, call, ctx):
        why = arch_mismatch(ctx, "wgmma.mma_async", "sm_90a")
        if why:
            fail(why)
        if ctx.scope_kind != "warpgroup":
            fail(f"wgmma is a warpgroup instruction: call it at warpgroup scope "
                 f"(Tx.wg.gemm_async), got {ctx.scope_kind} scope")
        ok, why = all_threads_active(ctx)
        if not ok:
            fail(why)
        c_region, a_region, b_region, self.trans_a, self.trans_b, self.accum = _unpack(call)
        self.A = _SmemOperand(a_region, "A", major="MN" if self.trans_a else "K")
        self.B = _SmemOperand(b_region, "B", major="MN" if self.trans_b else "K")
        if self.A.dtype != self.B.dtype:
            fail(f"A and B must have one dtype, got {self.A.dtype} and {self.B.dtype}")
        if (self.trans_a or self.trans_b) and self.A.dtype not in _TRANSPOSABLE:
            fail(f"MN-major (transposed) operands need float16 or bfloat16 (PTX transposes "
                 f"16-bit inputs only), got {self.A.dtype}")
        if self.A.mn != 64:
            fail(f"wgmma tiles have M = 64: A must have 64 rows, got {self.A.mn}")
        self.N = self.B.mn
        if self.N % 8 or not 8 <= self.N <= 256:
            fail(f"N = {self.N} (B's rows) must be a multiple of 8 in 8..256")
        if self.A.k != self.B.k:
            fail(f"A and B must span the same K, got {self.A.k} and {self.B.k}")
        if not isinstance(c_region, BufferRegion) or memory_kind(c_region.buffer) != "local":
            fail("C must be a register (local) accumulator buffer")
        C = self.C = c_region.buffer
        if str(C.dtype) != "float32":
            fail(f"C ({C.name}) must be float32 (f16 accumulation is not supported yet), got "
                 f"{C.dtype}")
        shape = [const_int(s, "C extent") for s in C.shape]
        regs = self.N // 2
        if len(shape) == 1:
            if C.layout is not None and not equivalent(C.layout, TileLayout(S[(shape[0],):(1,)])):
                fail(f"a 1-D C ({C.name}) holds the thread's registers: default layout only")
            lo = c_region.region[0].min
            if const_int(c_region.region[0].extent, "C extent") != regs:
                fail(f"C must hold the thread's {regs} accumulators of m64n{self.N}, got "
                     f"{c_region.region[0].extent}")
            self.regs = [lo + i for i in range(regs)]
        elif shape == [64, self.N]:
            want = wgmma_accumulator_layout(self.N)
            if C.layout is None or not equivalent(C.layout, want):
                fail(f"C ({C.name}) must have wgmma_accumulator_layout({self.N}) = {want}")
            self.regs = []
            for j in range(self.N // 8):
                for h in (0, 1):
                    for c in (0, 1):
                        m = C.layout.apply(8 * h, 8 * j + c, shape=shape)["m"]
                        self.regs.append(m.value if isinstance(m, IntImm) else int(m))
        else:
            fail(f"C ({C.name}) must be (64, {self.N}) or the thread's {regs} registers, got "
                 f"shape {shape}")


def _wgmma_applicable(call, ctx):
    _WgmmaPlan(call, ctx)
    return True, None


@register_dispatch("gemm_async", "cuda", variant="wgmma", priority=10,
                   when=[predicate("wgmma_applicable", _wgmma_applicable)])
def gemm_async_wgmma(call, ctx):
    """``C (+)= A @ B^T`` with ``wgmma.mma_async`` from shared-memory descriptors."""
    from ....tirx.buffer import decl_buffer  # same layer
    from ....tirx.stmt import DeclBuffer

    plan = _WgmmaPlan(call, ctx)
    storage = plan.C
    if len(plan.C.shape) == 2:
        n = const_int(plan.C.layout.storage().size(), "accumulator registers")
        storage = decl_buffer((n,), "float32", "acc_local", data=plan.C.data, scope="local")
    acc = [storage[r if not isinstance(r, int) else IntImm("int32", r)] for r in plan.regs]
    a_base = plan.A.address()
    b_base = plan.B.address()
    a_desc = plan.A.descriptors(a_base, "wgmma")
    b_desc = plan.B.descriptors(b_base, "wgmma")
    ptx_in = _IN_DTYPES[plan.A.dtype]
    k_step = plan.A.k_step
    instr = ptx[f"wgmma.mma_async.sync.aligned.m64n{plan.N}k{k_step}.f32.{ptx_in}.{ptx_in}"]
    # scale-a, scale-b (1: no negation); the 16-bit forms also take the two transposes
    tail = [1, 1] + ([int(plan.trans_a), int(plan.trans_b)] if k_step == 16 else [])
    accum = _accumulate_flag(plan.accum)
    body = []
    if storage is not plan.C:
        body.append(DeclBuffer(storage))
    body.append(Evaluate(ptx.wgmma.fence.sync.aligned()))
    for step, (da, db) in enumerate(zip(a_desc, b_desc)):
        scale_d = accum if step == 0 else IntImm("int32", 1)
        body.append(Evaluate(instr(*acc, da, db, scale_d, *tail)))
    body.append(Evaluate(ptx.wgmma.commit_group.sync.aligned()))
    return PrimFunc([], SeqStmt(body))


# ---- tcgen05 -------------------------------------------------------------------------------
class _Tcgen05Plan:
    def __init__(self, call, ctx):
        why = arch_mismatch(ctx, "tcgen05.mma", "sm_100a")
        if why:
            fail(why)
        if ctx.scope_kind != "thread":
            fail(f"tcgen05.mma is issued by one thread: call it at thread scope "
                 f"(Tx.gemm_async under a one-thread branch), got {ctx.scope_kind} scope")
        c_region, a_region, b_region, self.trans_a, self.trans_b, self.accum = _unpack(call)
        # MN-major operands: the same descriptor offsets as wgmma's, bits 15 / 16 of the
        # instruction descriptor
        self.A = _SmemOperand(a_region, "A", _TC05_DTYPES, "MN" if self.trans_a else "K")
        self.B = _SmemOperand(b_region, "B", _TC05_DTYPES, "MN" if self.trans_b else "K")
        config = {k: getattr(v, "value", v) for k, v in dict(call.config or {}).items()}
        unknown = sorted(set(config) - {"cta_group", "mma_m", "mma_n"})
        if unknown:
            fail(f"tcgen05 gemm_async: config {unknown} is not supported yet (known: "
                 "cta_group, mma_m, mma_n)")
        self.cta_group = config.get("cta_group", 1)
        if self.cta_group not in (1, 2):
            fail(f"cta_group must be 1 or 2, got {self.cta_group!r}")
        if self.A.dtype != self.B.dtype:
            fail(f"A and B must have one dtype, got {self.A.dtype} and {self.B.dtype}")
        if self.A.mn != 128:
            fail(f"tcgen05 tiles have 128 rows of A per CTA here: A must have 128 rows, got "
                 f"{self.A.mn} (M = 64 is not supported yet)")
        # cta_group::2: the pair computes M = 256 (128 rows in each CTA's A and TMEM) and
        # N = 2 x the B rows each CTA holds
        self.M = 128 * self.cta_group
        self.N = self.B.mn * self.cta_group
        for key, have in (("mma_m", self.M), ("mma_n", self.N)):
            if config.get(key, have) != have:
                fail(f"{key}={config[key]} does not match the operands: cta_group="
                     f"{self.cta_group} with A ({self.A.mn} rows) and B ({self.B.mn} rows per "
                     f"CTA) gives {have}")
        if self.N % 16 or not 16 <= self.N <= 256:
            fail(f"N = {self.N} must be a multiple of 16 in 16..256")
        if self.A.k != self.B.k:
            fail(f"A and B must span the same K, got {self.A.k} and {self.B.k}")
        if not isinstance(c_region, BufferRegion) or c_region.buffer.scope() != "tmem":
            fail("C must be a tensor-memory (tmem) buffer")
        C = self.C = c_region.buffer
        if str(C.dtype) != "float32":
            fail(f"C ({C.name}) must be float32, got {C.dtype}")
        if C.allocated_addr is None:
            fail(f"C ({C.name}) must be declared with allocated_addr (the tcgen05.alloc result)")
        shape = [const_int(s, "C extent") for s in C.shape]
        if len(shape) != 2 or shape[0] != 128:
            fail(f"C ({C.name}) must be (128, n) (128 TMEM lanes), got {shape}")
        want = TileLayout(S[(128, shape[1]):(1 @ TLane, 1 @ TCol)])
        if C.layout is None or not equivalent(C.layout, want):
            fail(f"C ({C.name}) must have the datapath layout {want}")
        rows, cols = c_region.region
        if const_int(rows.min, "C row start") != 0 or const_int(rows.extent, "C rows") != 128:
            fail("C's region must cover the 128 lanes")
        if const_int(cols.extent, "C columns") != self.N:
            fail(f"C's region spans {cols.extent} columns, B gives N = {self.N}")
        self.col0 = cols.min


def _tcgen05_applicable(call, ctx):
    _Tcgen05Plan(call, ctx)
    return True, None


@register_dispatch("gemm_async", "cuda", variant="tcgen05", priority=5,
                   when=[predicate("tcgen05_applicable", _tcgen05_applicable)])
def gemm_async_tcgen05(call, ctx):
    """``C (+)= A @ B^T`` into tensor memory with ``tcgen05.mma`` (module docstring)."""
    plan = _Tcgen05Plan(call, ctx)
    a_desc = plan.A.descriptors(plan.A.address(), "tcgen05")
    b_desc = plan.B.descriptors(plan.B.address(), "tcgen05")
    idesc = IntImm("uint32", tcgen05_instr_descriptor(plan.M, plan.N, plan.A.dtype,
                                                      trans_a=plan.trans_a,
                                                      trans_b=plan.trans_b))
    addr = plan.C.allocated_addr[0]
    col0 = plan.col0
    if isinstance(col0, IntImm):
        taddr = addr if col0.value == 0 else addr + IntImm("uint32", col0.value)
    else:
        taddr = addr + Cast("uint32", col0)  # f32: one TMEM column per element
    instr = ptx[f"tcgen05.mma.cta_group::{plan.cta_group}.kind::f16"]
    accum = _accumulate_flag(plan.accum)
    body = []
    for step, (da, db) in enumerate(zip(a_desc, b_desc)):
        enable = accum if step == 0 else IntImm("int32", 1)
        body.append(Evaluate(instr(taddr, da, db, idesc, enable)))
    return PrimFunc([], SeqStmt(body) if len(body) > 1 else body[0])

