"""CUDA variant of ``Tx.gemm``: ``mma.m16n8k*`` (priority 10), warp-level ``mma.sync``.

``Tx.warp.gemm(D, A, B, C, transpose_A, transpose_B, alpha, beta)`` computes
``D = A @ B (+ C)`` over register fragments of one warp with ``mma.sync.aligned.m16n8k16`` (or
``m16n8k8``) ``.row.col.f32.{f16,bf16}.{f16,bf16}.f32``:

* ``D``/``C``: ``(16*Mt, 8*Nt)`` float32 ``local`` buffers with the accumulator layout
  :func:`mma_accumulator_layout`; ``A``: ``(16*Mt, k*Kt)`` (``(k*Kt, 16*Mt)`` with
  ``transpose_A``) float16/bfloat16 with :func:`mma_a_layout`; ``B``: ``(k*Kt, 8*Nt)``
  (``(8*Nt, k*Kt)`` with ``transpose_B``) with :func:`mma_b_layout`. ``k`` is the
  instruction's K, 16 or 8, read off the operand layouts (each fragment layout is the
  single-instruction fragment tiled over the operand, ``TileLayout.tile_to``). These are the
  register maps of PTX ISA 9.7.14.5.8 (``lane = 4*g + t``; D: row ``g + 8*r``, column
  ``2*t + c``; A: row ``g + 8*r``, column ``2*t + p + 8*h``; B: row ``2*t + p + 8*h``,
  column ``g``); a transposed operand holds the same registers with its logical axes
  swapped, so the instruction stays ``.row.col``.
* ``beta`` 0 (``D = A @ B``: D is zeroed first) or 1 (``D = A @ B + C``: C is copied into D
  first unless it is D itself); ``alpha`` must be 1 (``mma`` has no scale).

The variant addresses the registers directly: D through its per-thread view
(``Buffer.local``), A and B through ``uint32`` views of their registers (two 16-bit elements
per ``b32`` operand), each register's index read off the operand's layout at lane 0. The
fragments are typically filled from shared memory with ``ldmatrix`` (``T.ptx.ldmatrix``: x4
for a 16x16 A tile, x2 for a 16x8 B tile, ``.trans`` for a row-major B), or element by element.
Operands must be whole buffers. Not supported yet: tf32/fp8/int8 inputs, f16 accumulation,
sub-regions of fragment buffers.
"""

from __future__ import annotations

from ....tirx.buffer import decl_buffer
from ....tirx.expr import FloatImm, IntImm
from ....tirx.function import PrimFunc
from ....tirx.layout import S, TileLayout, laneid
from ....tirx.layout.recognize import equivalent
from ....tirx.operator.tile_primitive import fail, predicate, register_dispatch
from ....tirx.ptx import ptx
from ....tirx.stmt import BufferRegion, BufferStore, DeclBuffer, Evaluate, SeqStmt
from ._common import all_threads_active, const_int, memory_kind

__all__ = ["mma_a_layout", "mma_accumulator_layout", "mma_b_layout"]

_IN_DTYPES = {"float16": "f16", "bfloat16": "bf16"}


def _d_base():
    # (16, 8): rows (r: 2, g: 8 lanes/4), cols (t: 4 lanes, c: 2); register = 2*r + c
    return TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])


def _a_base(k: int):
    # (16, 8) per k8 half: same map as D; k16 stacks two halves along K (register 4*h + ...)
    base = TileLayout(S[(2, 8, 4, 2):(2, 4 @ laneid, 1 @ laneid, 1)])
    return base if k == 8 else base.tile_to([16, 16], [16, 8])


def _b_base(k: int):
    # (8, 8) per k8 half: rows (t: 4 lanes, p: 2), cols (g: 8 lanes/4); register = 2*h + p
    base = TileLayout(S[(4, 2, 8):(1 @ laneid, 1, 4 @ laneid)])
    return base if k == 8 else base.tile_to([16, 8], [8, 8])


def _transposed(layout, shape):
    grouped, seps = layout.group(list(shape))
    return grouped.permute_by_groups(seps, [1, 0])


def _check_tiles(what, **dims):
    for name, (value, unit) in dims.items():
        if value <= 0 or value % unit:
            raise ValueError(f"{what}: {name}={value} must be a positive multiple of {unit}")


def mma_accumulator_layout(M: int, N: int) -> TileLayout:
    """The layout of an ``(M, N)`` float32 accumulator of ``m16n8`` tiles (M % 16, N % 8)."""
    _check_tiles("mma_accumulator_layout", M=(M, 16), N=(N, 8))
    return _d_base().tile_to([M, N], [16, 8])


def mma_a_layout(M: int, K: int, k: int = 16, transpose: bool = False) -> TileLayout:
    """The layout of an ``(M, K)`` A fragment (``(K, M)`` when ``transpose``) for ``m16n8k{k}``."""
    if k not in (8, 16):
        raise ValueError(f"mma_a_layout: k must be 8 or 16, got {k}")
    _check_tiles("mma_a_layout", M=(M, 16), K=(K, k))
    layout = _a_base(k).tile_to([M, K], [16, k])
    return _transposed(layout, (M, K)) if transpose else layout


def mma_b_layout(K: int, N: int, k: int = 16, transpose: bool = False) -> TileLayout:
    """The layout of a ``(K, N)`` B fragment (``(N, K)`` when ``transpose``) for ``m16n8k{k}``."""
    if k not in (8, 16):
        raise ValueError(f"mma_b_layout: k must be 8 or 16, got {k}")
    _check_tiles("mma_b_layout", K=(K, k), N=(N, 8))
    layout = _b_base(k).tile_to([K, N], [k, 8])
    return _transposed(layout, (K, N)) if transpose else layout


def _flag(value, what) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, IntImm):
        return bool(value.value)
    fail(f"{what} must be a constant bool, got {value}")
    return False


def _number(value, what) -> float:
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, (IntImm, FloatImm)):
        return float(value.value)
    fail(f"{what} must be a constant, got {value}")
    return 0.0


class _Plan:
    """The checked geometry of one gemm call."""

    def __init__(self, call, ctx):
        if ctx.scope_kind != "warp":
            fail(f"mma.sync is a warp instruction: call it at warp scope (Tx.warp.gemm), got "
                 f"{ctx.scope_kind} scope")
        ok, why = all_threads_active(ctx)
        if not ok:
            fail(why)
        args = list(call.args)
        if len(args) != 8:
            fail(f"gemm takes D, A, B, C, transpose_A, transpose_B, alpha, beta; got "
                 f"{len(args)} arguments")
        regions = args[:4]
        for name, region in zip("DABC", regions):
            if not isinstance(region, BufferRegion):
                fail(f"operand {name} must be a buffer region")
            buf = region.buffer
            if memory_kind(buf) != "local":
                fail(f"operand {name} ({buf.name}) must be a register fragment (local), not "
                     f"{buf.scope() or 'global'} memory")
            full = all(const_int(r.min, "region start") == 0
                       and const_int(r.extent, "region extent") == const_int(s, "extent")
                       for r, s in zip(region.region, buf.shape))
            if not full:
                fail(f"operand {name} ({buf.name}) must be the whole fragment buffer; "
                     "sub-regions are not supported yet")
            if len(buf.shape) != 2:
                fail(f"operand {name} ({buf.name}) must be 2-D, got shape {list(buf.shape)}")
        self.D, self.A, self.B, self.C = (r.buffer for r in regions)
        self.trans_a = _flag(args[4], "transpose_A")
        self.trans_b = _flag(args[5], "transpose_B")
        alpha, beta = _number(args[6], "alpha"), _number(args[7], "beta")
        if alpha != 1.0:
            fail(f"alpha={alpha:g}: mma.sync has no scale (alpha must be 1)")
        if beta not in (0.0, 1.0):
            fail(f"beta={beta:g}: mma.sync accumulates 1*C only (beta must be 0 or 1)")
        self.beta = beta
        in_dtype = str(self.A.dtype)
        if in_dtype not in _IN_DTYPES or str(self.B.dtype) != in_dtype:
            fail(f"A and B must both be float16 or bfloat16, got {self.A.dtype} and "
                 f"{self.B.dtype}")
        for name, buf in (("C", self.C), ("D", self.D)):
            if str(buf.dtype) != "float32":
                fail(f"{name} ({buf.name}) must be float32 (f16 accumulation is not supported "
                     f"yet), got {buf.dtype}")
        self.ptx_in = _IN_DTYPES[in_dtype]
        shape = [[const_int(s, "extent") for s in b.shape] for b in (self.D, self.A, self.B)]
        (M, N), a_shape, b_shape = shape
        K = a_shape[0] if self.trans_a else a_shape[1]
        a_m = a_shape[1] if self.trans_a else a_shape[0]
        b_k, b_n = (b_shape[1], b_shape[0]) if self.trans_b else b_shape
        if (a_m, b_n) != (M, N) or b_k != K:
            fail(f"shapes do not match: D {M}x{N}, A gives M={a_m} K={K}, B gives K={b_k} "
                 f"N={b_n}")
        if M % 16 or N % 8 or K % 8:
            fail(f"M={M} must be a multiple of 16, N={N} of 8 and K={K} of 8")
        if [const_int(s, "extent") for s in self.C.shape] != [M, N]:
            fail(f"C must be {M}x{N} like D")
        self.M, self.N, self.K = M, N, K
        acc = mma_accumulator_layout(M, N)
        for name, buf in (("D", self.D), ("C", self.C)):
            if buf.layout is None or not equivalent(buf.layout, acc):
                fail(f"{name} ({buf.name}) must have the m16n8 accumulator layout "
                     f"mma_accumulator_layout({M}, {N}) = {acc}")
        self.k = None
        for k in (16, 8):
            if K % k:
                continue
            a_ok = self.A.layout is not None and equivalent(
                self.A.layout, mma_a_layout(M, K, k, self.trans_a))
            b_ok = self.B.layout is not None and equivalent(
                self.B.layout, mma_b_layout(K, N, k, self.trans_b))
            if a_ok and b_ok:
                self.k = k
                break
        if self.k is None:
            fail(f"A ({self.A.name}) and B ({self.B.name}) must have the m16n8k16 or m16n8k8 "
                 f"fragment layouts (mma_a_layout({M}, {K}, k, {self.trans_a}), "
                 f"mma_b_layout({K}, {N}, k, {self.trans_b}))")

    # register index of a logical element, for lane 0
    def _reg(self, buf, row, col):
        shape = [const_int(s, "extent") for s in buf.shape]
        out = buf.layout.apply(row, col, shape=shape)
        value = out["m"]
        return value.value if isinstance(value, IntImm) else int(value)

    def d_regs(self, mt, nt):
        return [self._reg(self.D, 16 * mt + 8 * r, 8 * nt + c) for r in (0, 1) for c in (0, 1)]

    def c_regs(self, mt, nt):
        return [self._reg(self.C, 16 * mt + 8 * r, 8 * nt + c) for r in (0, 1) for c in (0, 1)]

    def a_words(self, mt, kt):
        regs = []
        for h in range(self.k // 8):
            for r in (0, 1):
                row, col = 16 * mt + 8 * r, self.k * kt + 8 * h
                regs.append(self._reg(self.A, *((col, row) if self.trans_a else (row, col))))
        return self._words(regs, "A")

    def b_words(self, kt, nt):
        regs = []
        for h in range(self.k // 8):
            row, col = self.k * kt + 8 * h, 8 * nt
            regs.append(self._reg(self.B, *((col, row) if self.trans_b else (row, col))))
        return self._words(regs, "B")

    @staticmethod
    def _words(regs, name):
        if any(r % 2 for r in regs):
            fail(f"the {name} fragment's element pairs are not 32-bit aligned in its registers")
        return [r // 2 for r in regs]


def _applicable(call, ctx):
    _Plan(call, ctx)
    return True, None


def _storage(buf) -> int:
    return const_int(buf.layout.storage().size(), "fragment registers")


@register_dispatch("gemm", "cuda", variant="mma.m16n8k*", priority=10,
                   when=[predicate("mma_applicable", _applicable)])
def gemm_mma(call, ctx):
    """``D = A @ B (+ C)`` with warp-level ``mma.sync`` (module docstring)."""
    plan = _Plan(call, ctx)
    d_local = decl_buffer((_storage(plan.D),), "float32", "d_local", data=plan.D.data,
                          scope="local")
    views = [d_local]
    c_local = d_local
    if not (plan.C is plan.D or plan.C.data is plan.D.data):
        c_local = decl_buffer((_storage(plan.C),), "float32", "c_local", data=plan.C.data,
                              scope="local")
        views.append(c_local)
    a_words = decl_buffer((_storage(plan.A) // 2,), "uint32", "a_words", data=plan.A.data,
                          scope="local")
    b_words = decl_buffer((_storage(plan.B) // 2,), "uint32", "b_words", data=plan.B.data,
                          scope="local")
    views += [a_words, b_words]
    body = []
    mt_n, nt_n, kt_n = plan.M // 16, plan.N // 8, plan.K // plan.k
    # initialise D: zero (beta 0) or a copy of C (beta 1, C not D)
    if plan.beta == 0.0 or c_local is not d_local:
        for mt in range(mt_n):
            for nt in range(nt_n):
                for d, c in zip(plan.d_regs(mt, nt), plan.c_regs(mt, nt)):
                    value = (FloatImm("float32", 0.0) if plan.beta == 0.0
                             else c_local[IntImm("int32", c)])
                    body.append(BufferStore(d_local, value, [IntImm("int32", d)]))
    instr = ptx[f"mma.sync.aligned.m16n8k{plan.k}.row.col.f32.{plan.ptx_in}.{plan.ptx_in}.f32"]
    for mt in range(mt_n):
        for nt in range(nt_n):
            d = [d_local[IntImm("int32", r)] for r in plan.d_regs(mt, nt)]
            for kt in range(kt_n):
                a = [a_words[IntImm("int32", w)] for w in plan.a_words(mt, kt)]
                b = [b_words[IntImm("int32", w)] for w in plan.b_words(kt, nt)]
                body.append(Evaluate(instr(*d, *a, *b, *d)))
    return PrimFunc([], SeqStmt([DeclBuffer(view) for view in views] + body))
