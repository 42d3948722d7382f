"""Shared helpers of the CUDA tile-primitive variants: scope threads, operand geometry.

Everything here either returns a fact about the call or rejects it with
:func:`~tvm.tirx.operator.tile_primitive.fail`, whose reason ends up in the dispatcher's
table when no variant applies.
"""

from __future__ import annotations

import math

from ....arith import Analyzer
from ....ir.expr import PrimExpr
from ....runtime.data_type import DataType
from ....tirx.expr import IntImm
from ....tirx.operator.tile_primitive import fail
from ....tirx.stmt import BufferRegion

__all__ = [
    "SCOPE_THREADS",
    "WARP_SIZE",
    "Operand",
    "all_threads_active",
    "const_int",
    "first_active_thread",
    "memory_kind",
    "provably_multiple",
    "scope_thread_index",
]

WARP_SIZE = 32

#: Threads per scope instance, for the scopes whose size does not depend on the kernel.
SCOPE_THREADS = {"thread": 1, "warp": WARP_SIZE, "warpgroup": 4 * WARP_SIZE}


def const_int(value, what: str) -> int:
    """``value`` as a Python int, or reject (``what`` names it in the reason)."""
    if isinstance(value, int):
        return value
    if isinstance(value, IntImm):
        return value.value
    fail(f"{what} {value} is not a constant")
    return 0


def memory_kind(buffer) -> str:
    """``"global"``, ``"shared"`` (``shared``/``shared.dyn``) or ``"local"``; else reject."""
    scope = buffer.scope() or "global"
    if scope == "global":
        return "global"
    if scope.startswith("shared"):
        return "shared"
    if scope == "local":
        return "local"
    fail(f"buffer {buffer.name} is in memory scope {scope!r}; only global, shared and local "
         "are supported")
    return ""


def _launch_var(ctx, key):
    iv = (getattr(ctx, "launch_params", None) or {}).get(key)
    if iv is None:
        return None, None
    ext = None
    if iv.dom is not None and isinstance(iv.dom.extent, IntImm):
        ext = iv.dom.extent.value
    return iv.var, ext


def _cta_threads(ctx) -> int:
    intra = dict(getattr(ctx, "intra", None) or {})
    lanes = intra.get("laneid")
    warps = intra.get("warpid")
    if lanes is None or warps is None:
        fail("the CTA's thread count is unknown: define T.thread_id([n]) (or T.warp_id and "
             "T.lane_id) in the kernel")
    return const_int(lanes[0], "lane extent") * const_int(warps[0], "warp extent")


def scope_threads(ctx) -> int:
    """The number of threads of one instance of the call's scope."""
    kind = ctx.scope_kind
    if kind in SCOPE_THREADS:
        return SCOPE_THREADS[kind]
    if kind == "cta":
        tid, ext = _launch_var(ctx, "thread_id")
        if tid is not None and ext is not None:
            return ext
        _, warps = _launch_var(ctx, "warp_id")
        if warps is not None:
            return warps * WARP_SIZE
        return _cta_threads(ctx)
    fail(f"scope {kind!r} is not supported (thread, warp, warpgroup, cta)")
    return 0


def scope_thread_index(ctx) -> PrimExpr:
    """The index of the executing thread inside its scope instance (0 at thread scope).

    Built from the kernel's scope ids: ``T.lane_id`` / ``T.thread_id % 32`` for a warp,
    ``T.thread_id_in_wg`` / ``T.warp_id_in_wg * 32 + lane`` / ``T.thread_id % 128`` for a
    warpgroup, ``T.thread_id`` / ``T.warp_id * 32 + lane`` for a CTA.
    """
    kind = ctx.scope_kind
    if kind == "thread":
        return IntImm("int32", 0)
    tid, _ = _launch_var(ctx, "thread_id")
    lane, _ = _launch_var(ctx, "lane_id")
    warp, _ = _launch_var(ctx, "warp_id")
    if kind == "warp":
        if lane is not None:
            return lane
        if tid is not None:
            return tid % WARP_SIZE
    elif kind == "warpgroup":
        tid_wg, _ = _launch_var(ctx, "thread_id_in_wg")
        if tid_wg is not None:
            return tid_wg
        wid_wg, _ = _launch_var(ctx, "warp_id_in_wg")
        if wid_wg is not None and lane is not None:
            return wid_wg * WARP_SIZE + lane
        if tid is not None:
            return tid % (4 * WARP_SIZE)
        if warp is not None and lane is not None:
            return (warp % 4) * WARP_SIZE + lane
    elif kind == "cta":
        if tid is not None:
            return tid
        if warp is not None and lane is not None:
            return warp * WARP_SIZE + lane
    fail(f"{kind} scope needs the thread index: define T.thread_id([n]) (or T.warp_id and "
         "T.lane_id) in the kernel")
    return None


def all_threads_active(ctx) -> tuple:
    """Predicate: every thread of the scope instance reaches the call (no narrowing ``if``)."""
    kind = ctx.scope_kind
    if kind == "thread":
        return True, None
    intra = dict(getattr(ctx, "intra", None) or {})
    if not intra:
        return False, "the active thread set is unknown (no T.thread_id / T.warp_id in the kernel)"
    lanes = intra.get("laneid")
    if lanes is None or const_int(lanes[0], "lane extent") != WARP_SIZE:
        return False, f"not all {WARP_SIZE} lanes of the {kind} are active"
    warp_axis = {"warpgroup": "wid_in_wg", "cta": "warpid"}.get(kind)
    if warp_axis is not None:
        warps = intra.get(warp_axis)
        want = 4 if kind == "warpgroup" else None
        if kind == "cta":
            _, n = _launch_var(ctx, "warp_id")
            _, ext = _launch_var(ctx, "thread_id")
            want = n if n is not None else (None if ext is None else -(-ext // WARP_SIZE))
        if warps is None or (want is not None and const_int(warps[0], "warp extent") != want):
            return False, f"not all warps of the {kind} are active"
    return True, None


def first_active_thread(ctx) -> int:
    """The scope-local index of the first active thread (from the ``intra`` offsets)."""
    if ctx.scope_kind == "thread":
        return 0
    intra = dict(getattr(ctx, "intra", None) or {})
    if "laneid" not in intra:
        fail("the active thread set is unknown (no T.thread_id / T.warp_id in the kernel)")
    first = const_int(intra["laneid"][1], "lane offset")
    warp_axis = {"warpgroup": "wid_in_wg", "cta": "warpid"}.get(ctx.scope_kind)
    if warp_axis in intra:
        first += WARP_SIZE * const_int(intra[warp_axis][1], "warp offset")
    return first


def provably_multiple(expr, factor: int, analyzer: Analyzer | None = None) -> bool:
    """Whether ``expr`` is a multiple of ``factor`` for every value of its variables."""
    if factor == 1:
        return True
    if isinstance(expr, int):
        return expr % factor == 0
    if isinstance(expr, IntImm):
        return expr.value % factor == 0
    analyzer = analyzer or Analyzer()
    return bool(analyzer.can_prove(expr % factor == 0))


def _row_major_layout(buffer) -> bool:
    layout = buffer.layout
    if layout is None:
        return True
    shard = getattr(layout, "shard", None)
    if shard is None or len(getattr(layout, "replica", ()) or ()) or dict(layout.offset or {}):
        return False
    stride = 1
    for it in reversed(list(shard)):
        if it.axis.name != "m" or not isinstance(it.stride, (int, IntImm)):
            return False
        if const_int(it.stride, "stride") != stride and const_int(it.extent, "extent") != 1:
            return False
        stride *= const_int(it.extent, "extent")
    return stride == math.prod(const_int(s, "buffer extent") for s in buffer.shape)


class Operand:
    """One buffer-region operand of a copy: where its elements are, in element offsets.

    ``dims`` are the region's dimensions of extent > 1; ``run`` is the length of the longest
    trailing stretch of the region that is contiguous in memory; ``base`` the flat element
    offset of the region's first element (buffer ``elem_offset`` included); ``strides`` the
    buffer's element strides.
    """

    def __init__(self, region, what: str):
        if not isinstance(region, BufferRegion):
            fail(f"the {what} must be a buffer region, got {type(region).__name__}")
        self.region = region
        self.buffer = buf = region.buffer
        self.what = what
        self.kind = memory_kind(buf)
        dtype = DataType(buf.dtype)
        if dtype.bits % 8 or dtype.lanes != 1:
            fail(f"{what} {buf.name} has dtype {buf.dtype}; only whole-byte scalar dtypes are "
                 "supported")
        self.elem_bytes = dtype.bits // 8
        if not _row_major_layout(buf):
            fail(f"{what} {buf.name} has the layout {buf.layout}: only the default row-major "
                 "layout is supported yet")
        shape = [const_int(s, f"{what} {buf.name} extent") for s in buf.shape]
        if buf.strides:
            strides = [const_int(s, f"{what} {buf.name} stride") for s in buf.strides]
        else:
            strides = [math.prod(shape[k + 1:]) for k in range(len(shape))]
        self.shape, self.strides = shape, strides
        self.extents = [const_int(r.extent, f"{what} {buf.name} region extent")
                        for r in region.region]
        self.mins = [r.min for r in region.region]
        self.dims = [k for k, e in enumerate(self.extents) if e != 1]
        self.count = math.prod(self.extents)
        base = buf.elem_offset if buf.elem_offset is not None else 0
        for m, s in zip(self.mins, strides):
            base = base + m * s
        self.base = base
        # the contiguous trailing stretch: going outward, a dimension joins it while its
        # stride is the span of the inner ones and every inner dimension is taken whole
        run, expect, whole = 1, 1, True
        self.run_dims = 0
        for k in reversed(range(len(shape))):
            if self.extents[k] == 1:
                self.run_dims += 1
                whole = whole and shape[k] == 1
                continue
            if not whole or strides[k] != expect:
                break
            run *= self.extents[k]
            self.run_dims += 1
            whole = self.extents[k] == shape[k]
            expect = strides[k] * shape[k]
        self.run = run

    def offset_of(self, flat):
        """The element offset (from the buffer's start) of element ``flat`` of the region,
        ``flat`` counted row-major over the region."""
        if self.run == self.count:
            return _add(self.base, flat)
        offset = self.base
        rest = flat // self.run
        for k in reversed(range(len(self.shape) - self.run_dims)):
            ext = self.extents[k]
            if ext == 1:
                continue
            idx = rest % ext
            rest = rest // ext
            offset = _add(offset, idx * self.strides[k])
        return _add(offset, flat % self.run)


def _add(a, b):
    if isinstance(a, int) and a == 0:
        return b
    if isinstance(a, IntImm) and a.value == 0:
        return b
    return a + b
