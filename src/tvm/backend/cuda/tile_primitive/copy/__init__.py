"""CUDA variants of ``Tx.copy`` (synchronous copies between global, shared and registers).

Registered for target ``cuda``, tried in this order:

* ``vec_16b`` / ``vec_32b`` / ``vec_64b`` / ``vec_128b`` (priority 20, "vec_forced"): only
  when the call names them (``dispatch="vec_128b"``); one thread moves exactly one vector of
  that many bits with one ``ld``/``st`` pair;
* ``vec_auto`` (priority 10): the region's elements, flattened row-major, are cut into
  vectors of the widest width (16, 8, 4, 2 or 1 bytes, at least one element) that the
  contiguity of both operands, the alignment of their first elements and strides and the
  scope's thread count allow; vector ``f * threads + t`` goes to thread ``t`` in step ``f``
  (consecutive threads touch consecutive vectors, so global accesses coalesce). Each step
  computes element offsets, pointers with the ``tvm_builtin_pointer_offset`` helper
  (``T.cuda.func_call``), and moves the vector through ``uint32`` registers with
  ``T.ptx.ld``/``T.ptx.st`` (shared addresses through ``T.cuda.cvta_generic_to_shared``).
  A register (``local``) operand is packed into / unpacked from the words element by element;
* ``fallback`` (priority 0, in :mod:`.fallback`): the first active thread of the scope
  copies the tile element by element (a ``UserWarning`` says a slow copy was picked).

``ldstmatrix`` (priority 10, in :mod:`.ld_stmatrix`) moves register fragments laid out over
threads to and from shared memory with ``ldmatrix`` / ``stmatrix``.

All three take thread, warp, warpgroup and CTA scope. Operands need the default row-major
layout; a register operand is supported at thread scope only (a register tile spread over a
warp needs a layout with thread axes: not supported yet). The generic loop variant
(priority -100) stays below them.
"""

from __future__ import annotations

from .....arith import Analyzer
from .....ir.expr import PrimExpr
from .....tirx.buffer import decl_buffer
from .....tirx.cuda_ops import cuda
from .....tirx.expr import Cast, IntImm, Var
from .....tirx.function import PrimFunc
from .....tirx.op import reinterpret
from .....tirx.operator.tile_primitive import fail, predicate, register_dispatch
from .....tirx.ptx import ptx
from .....tirx.stmt import (
    AllocBuffer,
    Bind,
    BufferLoad,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    SeqStmt,
)
from .._common import (
    Operand,
    all_threads_active,
    provably_multiple,
    scope_thread_index,
    scope_threads,
)

__all__ = ["FORCED_WIDTHS", "POINTER_OFFSET_SOURCE", "VECTOR_BYTES", "plan_vector_copy"]

#: Vector widths vec_auto tries, widest first (bytes).
VECTOR_BYTES = (16, 8, 4, 2, 1)

#: The forced-width variants: name -> bytes.
FORCED_WIDTHS = {"vec_128b": 16, "vec_64b": 8, "vec_32b": 4, "vec_16b": 2}

#: The CUDA helper that offsets a typed pointer by a number of elements (0.27's text).
POINTER_OFFSET_SOURCE = (
    "\ntemplate <typename T>\n"
    "__forceinline__ __device__ T* tvm_builtin_pointer_offset(T* ptr, int offset) {\n"
    "    return ptr + offset;\n"
    "}\n"
)

_SCOPES = ("thread", "warp", "warpgroup", "cta")


def _ptx_form(num_bytes: int):
    """``(vector token, lanes, register dtype, PTX type)`` moving ``num_bytes``."""
    return {
        16: ("v4", 4, "uint32", "u32"),
        8: ("v2", 2, "uint32", "u32"),
        4: ("", 1, "uint32", "u32"),
        2: ("", 1, "uint16", "u16"),
        1: ("", 1, "uint8", "u8"),
    }[num_bytes]


def _chain(op: str, space: str, num_bytes: int) -> str:
    vec, _, _, ty = _ptx_form(num_bytes)
    return ".".join(t for t in (op, space, vec, ty) if t)


def _pointer_offset(ptr, offset) -> PrimExpr:
    return cuda.func_call("tvm_builtin_pointer_offset", ptr, offset,
                          source_code=POINTER_OFFSET_SOURCE, return_type="handle")


def _zero_ptr(buffer):
    return buffer.ptr_to([IntImm("int32", 0)] * len(buffer.shape))


def _operands(call):
    if len(call.args) < 2:
        fail("copy needs a destination and a source")
    dst = Operand(call.args[0], "destination")
    src = Operand(call.args[1], "source")
    if dst.buffer.dtype != src.buffer.dtype:
        fail(f"copy from {src.buffer.dtype} to {dst.buffer.dtype}: use Tx.cast to convert")
    if [dst.extents[k] for k in dst.dims] != [src.extents[k] for k in src.dims]:
        fail(f"the destination covers {[dst.extents[k] for k in dst.dims]} elements, the source "
             f"{[src.extents[k] for k in src.dims]}")
    return dst, src


def _scope_ok(call, ctx):
    if ctx.scope_kind not in _SCOPES:
        return False, f"scope {ctx.scope_kind!r} is not one of {', '.join(_SCOPES)}"
    return True, None


def _valid_operands(call, ctx):
    dst, src = _operands(call)
    if ctx.scope_kind != "thread" and "local" in (dst.kind, src.kind):
        return False, (f"a register (local) operand at {ctx.scope_kind} scope needs a layout "
                       "with thread axes, which is not supported yet")
    return True, None


# --- vec_auto --------------------------------------------------------------------------------
def plan_vector_copy(dst: Operand, src: Operand, threads: int, widths=VECTOR_BYTES):
    """The widest vector (bytes) for copying ``src`` to ``dst`` with ``threads`` threads.

    Returns ``(num_bytes, elements per vector, steps)``, or raises ``DispatchFail`` with the
    reason each width was refused.
    """
    eb = dst.elem_bytes
    reasons = []
    for num_bytes in widths:
        if num_bytes < eb:
            break
        vec = num_bytes // eb
        why = None
        if dst.run % vec or src.run % vec:
            why = (f"the contiguous innermost stretch ({src.run} elements of the source, "
                   f"{dst.run} of the destination) is not a multiple of {vec}")
        elif not all(provably_multiple(op.base, vec) for op in (dst, src)):
            why = f"the first element is not aligned to {num_bytes} bytes"
        elif not all(op.strides[k] % vec == 0 for op in (dst, src)
                     for k in range(len(op.shape) - op.run_dims) if op.extents[k] != 1):
            why = f"an outer stride is not a multiple of {vec} elements (misaligned rows)"
        elif (dst.count // vec) % threads:
            why = (f"{dst.count // vec} vectors of {num_bytes} bytes do not divide over "
                   f"{threads} threads")
        if why is None:
            return num_bytes, vec, dst.count // vec // threads
        reasons.append(f"{num_bytes}B: {why}")
    fail("no vector width applies (" + "; ".join(reasons) + ")")
    return None


def _vec_auto_applicable(call, ctx):
    ok, why = _scope_ok(call, ctx)
    if not ok:
        return ok, why
    ok, why = all_threads_active(ctx)
    if not ok:
        return ok, why
    ok, why = _valid_operands(call, ctx)
    if not ok:
        return ok, why
    dst, src = _operands(call)
    plan_vector_copy(dst, src, scope_threads(ctx))
    return True, None


def _bits_as(dtype: str, value):
    """``value`` reinterpreted as ``dtype`` (same width); itself when already that type."""
    return value if value.dtype == dtype else reinterpret(dtype, value)


class _Side:
    """How one operand is addressed in the emitted code.

    A register (``local``) operand is read and written element by element: the vector moves
    through ``uint32`` (``uint16``/``uint8`` for 2/1-byte vectors) words, and each element is
    packed into / unpacked from its word with shifts and ``T.reinterpret``, which nvcc turns
    into plain register moves.
    """

    def __init__(self, op: Operand, num_bytes: int, tag: str):
        self.op, self.num_bytes, self.tag = op, num_bytes, tag
        _, self.lanes, self.reg_dtype, _ = _ptx_form(num_bytes)
        self.local = op.kind == "local"
        self.word_bits = num_bytes // self.lanes * 8
        self.elem_bits = op.elem_bytes * 8
        self.uint = f"uint{self.elem_bits}"
        self.dtype = op.buffer.dtype

    def _elem(self, offset, k):
        return self.op.buffer, [Analyzer().simplify(offset + k)]

    def unpack(self, offset, words) -> list:
        """Stores of the loaded ``words`` into the register operand's vector at ``offset``."""
        out = []
        eb, wb = self.elem_bits, self.word_bits
        if eb <= wb:
            per = wb // eb
            for i, w in enumerate(words):
                for p in range(per):
                    part = w if per == 1 else Cast(self.uint, w >> IntImm(w.dtype, p * eb) if p else w)
                    buf, idx = self._elem(offset, i * per + p)
                    out.append(BufferStore(buf, _bits_as(self.dtype, part), idx))
        else:
            per = eb // wb
            for e in range(len(words) // per):
                value = None
                for q in range(per):
                    piece = Cast(self.uint, words[e * per + q])
                    if q:
                        piece = piece << IntImm(self.uint, q * wb)
                    value = piece if value is None else value | piece
                buf, idx = self._elem(offset, e)
                out.append(BufferStore(buf, _bits_as(self.dtype, value), idx))
        return out

    def pack(self, offset) -> list:
        """The words holding the register operand's vector at ``offset``."""
        eb, wb = self.elem_bits, self.word_bits
        words = []
        if eb <= wb:
            per = wb // eb
            for i in range(self.lanes):
                word = None
                for p in range(per):
                    buf, idx = self._elem(offset, i * per + p)
                    bits = _bits_as(self.uint, BufferLoad(buf, idx))
                    piece = bits if per == 1 else Cast(self.reg_dtype, bits)
                    if p:
                        piece = piece << IntImm(self.reg_dtype, p * eb)
                    word = piece if word is None else word | piece
                words.append(word)
        else:
            per = eb // wb
            for i in range(self.lanes):
                buf, idx = self._elem(offset, i // per)
                bits = _bits_as(self.uint, BufferLoad(buf, idx))
                q = i % per
                if q:
                    bits = bits >> IntImm(self.uint, q * wb)
                words.append(Cast(self.reg_dtype, bits))
        return words

    def address(self, offset, body: list, name: str):
        """Emit the pointer computation; the address operand of the ld/st."""
        scalar = decl_buffer((1,), "int32", name, scope="local")
        body.append(AllocBuffer(scalar))
        body.append(BufferStore(scalar, offset, [IntImm("int32", 0)]))
        ptr = Var(f"{self.tag}_ptr", "handle")
        off = BufferLoad(scalar, [IntImm("int32", 0)])
        return ptr, Bind(ptr, _pointer_offset(_zero_ptr(self.op.buffer), off))


def _move(dst: _Side, src: _Side, dst_off, src_off, tmp, body: list, async_chain=None):
    """Emit the pointer computations and the ld/st of one vector.

    As 0.27 orders them: the element offsets (global side first), then the pointers (shared
    side first), then the load and the store.
    """
    sides = [(k, side, off) for k, side, off in (("d", dst, dst_off), ("s", src, src_off))
             if not side.local]
    ptrs = {}
    for key, side, off in sorted(sides, key=lambda t: t[1].op.kind != "global"):
        name = {"global": "g_lin", "shared": "s_off"}[side.op.kind]
        if side.tag not in ("g", "s"):
            name = f"{side.tag}_off"
        ptrs[key] = side.address(off, body, name)
    for key, side, _ in sorted(sides, key=lambda t: t[1].op.kind != "shared"):
        body.append(ptrs[key][1])

    def addr(key, side):
        ptr = ptrs[key][0]
        return cuda.cvta_generic_to_shared(ptr) if side.op.kind == "shared" else ptr

    if async_chain is not None:  # cp.async: global -> shared without registers
        body.append(Evaluate(ptx[async_chain](addr("d", dst), addr("s", src), dst.num_bytes)))
        return
    ld = _chain("ld", src.op.kind, src.num_bytes)
    st = _chain("st", dst.op.kind, dst.num_bytes)
    if src.local:
        body.append(Evaluate(ptx[st](addr("d", dst), *src.pack(src_off))))
        return
    regs = [BufferLoad(tmp, [IntImm("int32", i)]) for i in range(tmp.shape[0].value)]
    body.append(Evaluate(ptx[ld](*regs, addr("s", src))))
    if dst.local:
        body.extend(dst.unpack(dst_off, regs))
    else:
        body.append(Evaluate(ptx[st](addr("d", dst), *regs)))


def _tags(dst: Operand, src: Operand):
    """Names of the two pointers: ``g``/``s`` for a global/shared pair as 0.27 writes them."""
    names = {"global": "g", "shared": "s", "local": "r"}
    a, b = names[dst.kind], names[src.kind]
    if a == b:
        return a + "dst", b + "src"
    return a, b


def _emit_vector_copy(dst: Operand, src: Operand, num_bytes: int, vec: int, steps: int,
                      threads: int, tid, async_chain=None,
                      loop_kind=ForKind.SERIAL) -> PrimFunc:
    stmts: list = []
    dtag, stag = _tags(dst, src)
    dside = _Side(dst, num_bytes, dtag)
    sside = _Side(src, num_bytes, stag)
    tmp = None
    if not sside.local and async_chain is None:
        _, lanes, reg_dtype, _ = _ptx_form(num_bytes)
        tmp = decl_buffer((lanes,), reg_dtype, "tmp", scope="local")
        stmts.append(AllocBuffer(tmp))
    f = Var("f", "int32")
    flat = f * (threads * vec) + tid * vec if steps > 1 else tid * vec
    if threads == 1:
        flat = f * vec if steps > 1 else IntImm("int32", 0)
    body: list = []
    _move(dside, sside, dst.offset_of(flat), src.offset_of(flat), tmp, body, async_chain)
    loop_body = SeqStmt(body) if len(body) > 1 else body[0]
    if steps > 1:
        stmts.append(For(f, IntImm("int32", 0), IntImm("int32", steps), loop_kind, loop_body))
    else:
        stmts.append(loop_body)
    return PrimFunc([], SeqStmt(stmts) if len(stmts) > 1 else stmts[0])


@register_dispatch("copy", "cuda", variant="vec_auto", priority=10,
                   when=[predicate("vec_auto_applicable", _vec_auto_applicable)])
def copy_vec_auto(call, ctx):
    """Vectorized copy over the scope's threads, widest vector first (module docstring)."""
    dst, src = _operands(call)
    threads = scope_threads(ctx)
    num_bytes, vec, steps = plan_vector_copy(dst, src, threads)
    return _emit_vector_copy(dst, src, num_bytes, vec, steps, threads, scope_thread_index(ctx))


# --- vec_forced ------------------------------------------------------------------------------
def _forced_applicable(call, ctx, *, variant, num_bytes):
    if call.dispatch != variant:
        return False, f"requires explicit dispatch={variant!r}"
    if ctx.scope_kind != "thread":
        return False, (f"{variant} moves one vector from one thread: thread scope, got "
                       f"{ctx.scope_kind}")
    dst, src = _operands(call)
    bits = dst.elem_bytes * 8
    if num_bytes % dst.elem_bytes:
        return False, f"{variant} is not a whole number of {dst.buffer.dtype} elements"
    vec = num_bytes // dst.elem_bytes
    for op in (dst, src):
        if op.count != vec:
            return False, (f"the {op.what} region has {op.count} elements, {variant} moves "
                           f"exactly {vec} of {bits} bits")
        if op.run % vec:
            return False, (f"the {op.what} region is not contiguous in memory "
                           "(non-contiguous innermost dimension)")
        if not provably_multiple(op.base, vec):
            return False, (f"the {op.what} region start is not aligned to {num_bytes} "
                           "bytes (misaligned)")
    return True, None


def _register_forced(variant: str, num_bytes: int):
    @register_dispatch("copy", "cuda", variant=variant, priority=20,
                       when=[predicate(f"{variant}_applicable", _forced_applicable,
                                       variant=variant, num_bytes=num_bytes)])
    def copy_vec_forced(call, ctx):
        """One thread moves exactly one vector of the variant's width."""
        dst, src = _operands(call)
        stmts: list = []
        dside = _Side(dst, num_bytes, "d")
        sside = _Side(src, num_bytes, "s")
        ld = _chain("ld", src.kind, num_bytes)
        st = _chain("st", dst.kind, num_bytes)

        def addr(side):
            ptr = side.op.buffer.ptr_to(side.op.mins)
            return cuda.cvta_generic_to_shared(ptr) if side.op.kind == "shared" else ptr

        if sside.local:
            if dside.local:
                stmts.extend(dside.unpack(dst.base, sside.pack(src.base)))
            else:
                stmts.append(Evaluate(ptx[st](addr(dside), *sside.pack(src.base))))
        else:
            _, lanes, reg_dtype, _ = _ptx_form(num_bytes)
            tmp = decl_buffer((lanes,), reg_dtype, "tmp", scope="local")
            regs = [BufferLoad(tmp, [IntImm("int32", i)]) for i in range(lanes)]
            stmts.append(AllocBuffer(tmp))
            stmts.append(Evaluate(ptx[ld](*regs, addr(sside))))
            if dside.local:
                stmts.extend(dside.unpack(dst.base, regs))
            else:
                stmts.append(Evaluate(ptx[st](addr(dside), *regs)))
        return PrimFunc([], SeqStmt(stmts) if len(stmts) > 1 else stmts[0])

    copy_vec_forced.__name__ = f"copy_{variant}"
    return copy_vec_forced


for _variant, _bytes in FORCED_WIDTHS.items():
    _register_forced(_variant, _bytes)
del _variant, _bytes


from . import fallback, ld_stmatrix  # noqa: F401  (register these variants)
