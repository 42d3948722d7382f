"""``Tx.copy_async`` variant ``dsmem`` (priority 10, one thread): shared memory of this CTA to
the same shared buffer of another CTA of the cluster (distributed shared memory).

``Tx.copy_async(dst_smem[r], src_smem[r], dispatch="dsmem", mbar=bar.ptr_to([0]),
remote_cta_id=k)`` copies with ``cp.async.bulk.shared::cluster.shared::cta
.mbarrier::complete_tx::bytes``: the destination address and the mbarrier are this CTA's
addresses of ``dst_smem`` / ``bar`` mapped into CTA ``k`` of the cluster with
``mapa.shared::cluster.u32``; the bytes complete on CTA ``k``'s barrier, which CTA ``k``
arms (``mbarrier.arrive.expect_tx``) and waits on.

Both operands are shared buffers with ``m``-axis ``TileLayout`` s (optionally swizzled) or
the default layout. The variant evaluates both layouts over the region and cuts the copy
into the longest runs that are contiguous on both sides; every run is one instruction of
``16 * k`` bytes at 16-byte aligned offsets (an unrolled loop when there are several). A
pair of layouts without such runs (e.g. row-major against column-major) is refused.

The instruction is emitted through a ``T.cuda.func_call`` helper (``mapa`` + ``cp.async.bulk``
in one inline-asm function) because the T.ptx table has no
``cp.async.bulk.shared::cluster.shared::cta`` entry yet. Not supported yet: symbolic region
starts, multicast.
"""

from __future__ import annotations

import math

from .....arith import Analyzer
from .....runtime.data_type import DataType
from .....tirx.buffer import decl_buffer
from .....tirx.cuda_ops import cuda
from .....tirx.expr import Cast, IntImm, Var
from .....tirx.function import PrimFunc
from .....tirx.operator.tile_primitive import fail, predicate, register_dispatch
from .....tirx.stmt import BufferRegion, DeclBuffer, Evaluate, For, ForKind, SeqStmt
from .._common import const_int, memory_kind
from ..copy.ld_stmatrix import _Shared

__all__ = ["DSMEM_COPY_SOURCE", "plan_dsmem"]

#: The device helper the variant calls (mapa + cp.async.bulk shared::cta -> shared::cluster).
DSMEM_COPY_SOURCE = (
    "\n__forceinline__ __device__ void tvm_builtin_dsmem_bulk_copy(uint32_t dst, uint32_t src,"
    " uint32_t bytes, uint32_t mbar, uint32_t cta) {\n"
    "  uint32_t remote_dst, remote_mbar;\n"
    '  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_dst) : "r"(dst), '
    '"r"(cta));\n'
    '  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_mbar) : "r"(mbar), '
    '"r"(cta));\n'
    '  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes '
    '[%0], [%1], %2, [%3];" :: "r"(remote_dst), "r"(src), "r"(bytes), "r"(remote_mbar) : '
    '"memory");\n'
    "}\n"
)
#: Most instructions the variant unrolls to.
MAX_COPIES = 1024


class _Side:
    """One operand: region flat index -> element offset in its buffer's memory."""

    def __init__(self, region: BufferRegion, what: str):
        buf = region.buffer
        self.buf, self.what = buf, what
        self.shared = _Shared(buf)
        self.shape = [const_int(s, f"{what} {buf.name} extent") for s in buf.shape]
        self.ext = [const_int(r.extent, f"{what} region extent") for r in region.region]
        mins = []
        for r in region.region:
            if not isinstance(r.min, IntImm):
                fail(f"{what} {buf.name}: region start {r.min} is symbolic: not supported yet")
            mins.append(r.min.value)
        self.mins = mins
        self.count = math.prod(self.ext)

    def offset(self, flat):
        """The element offset of region element ``flat`` (row-major over the region)."""
        buf_flat, inner, buf_inner = 0, 1, 1
        for k in reversed(range(len(self.shape))):
            idx = (flat // inner) % self.ext[k] if self.ext[k] > 1 else 0
            buf_flat = buf_flat + (idx + self.mins[k]) * buf_inner
            inner *= self.ext[k]
            buf_inner *= self.shape[k]
        return self.shared.offset(buf_flat)


class DSMEMPlan:
    """``run`` elements per instruction, ``copies`` instructions, the two sides."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def plan_dsmem(call) -> DSMEMPlan:
    """Cut the copy into equal runs contiguous on both sides (module docstring)."""
    if len(call.args) < 2:
        fail("copy_async needs a destination and a source")
    dst_r, src_r = call.args[0], call.args[1]
    if not isinstance(dst_r, BufferRegion) or not isinstance(src_r, BufferRegion):
        fail("copy_async operands must be buffer regions")
    kinds = (memory_kind(dst_r.buffer), memory_kind(src_r.buffer))
    if kinds != ("shared", "shared"):
        fail(f"dsmem copies shared -> shared (of another CTA); this copy is {kinds[1]} -> "
             f"{kinds[0]}")
    if dst_r.buffer.dtype != src_r.buffer.dtype:
        fail(f"copy_async from {src_r.buffer.dtype} to {dst_r.buffer.dtype}: dsmem does not "
             "convert")
    dst, src = _Side(dst_r, "destination"), _Side(src_r, "source")
    if [e for e in dst.ext if e != 1] != [e for e in src.ext if e != 1]:
        fail(f"the regions have different extents ({dst.ext} and {src.ext})")
    eb = DataType(dst.buf.dtype).bits // 8
    count = dst.count
    d_off = [dst.offset(f) for f in range(count)]
    s_off = [src.offset(f) for f in range(count)]
    # the longest run length that divides the copy and is contiguous on both sides everywhere
    best = None
    for run in sorted((r for r in range(1, count + 1) if count % r == 0), reverse=True):
        ok = all(d_off[c + i] == d_off[c] + i and s_off[c + i] == s_off[c] + i
                 for c in range(0, count, run) for i in range(1, run))
        if ok:
            best = run
            break
    run = best or 1
    if (run * eb) % 16:
        fail(f"the two layouts share contiguous runs of {run} elements ({run * eb} bytes); "
             "cp.async.bulk moves multiples of 16 bytes (incompatible layouts?)")
    for c in range(0, count, run):
        if (d_off[c] * eb) % 16 or (s_off[c] * eb) % 16:
            fail(f"run {c // run} starts at a shared offset that is not 16-byte aligned")
    copies = count // run
    if copies > MAX_COPIES:
        fail(f"the copy needs {copies} bulk copies (more than {MAX_COPIES})")
    return DSMEMPlan(dst=dst, src=src, run=run, copies=copies, bytes=run * eb)


def _applicable(call, ctx):
    if ctx.scope_kind != "thread":
        return False, f"dsmem copies are issued by one thread (thread scope), got {ctx.scope_kind}"
    config = dict(call.config or {})
    for key in ("mbar", "remote_cta_id"):
        if config.get(key) is None:
            return False, f"dsmem needs {key}="
    unknown = sorted(set(config) - {"mbar", "remote_cta_id"})
    if unknown:
        return False, f"unknown dsmem option(s) {unknown}"
    plan_dsmem(call)
    return True, None


@register_dispatch("copy_async", "cuda", variant="dsmem", priority=10,
                   when=[predicate("dsmem_applicable", _applicable)])
def copy_async_dsmem(call, ctx):
    """Shared -> another CTA's shared copy with cp.async.bulk (module docstring)."""
    plan = plan_dsmem(call)
    config = dict(call.config)
    analyzer = Analyzer()
    views = []
    for side, tag in ((plan.dst, "dst"), (plan.src, "src")):
        buf = side.buf
        views.append(decl_buffer((1,), buf.dtype, f"{buf.name}_{tag}", data=buf.data,
                                 scope=buf.scope()))
    c = Var("dsmem_i", "int32")
    index = c * plan.run if plan.copies > 1 else 0
    addrs = []
    for side, view in zip((plan.dst, plan.src), views):
        off = analyzer.simplify(IntImm("int32", 0) + side.offset(index) + side.shared.base)
        addrs.append(cuda.cvta_generic_to_shared(view.ptr_to([off])))
    mbar = cuda.cvta_generic_to_shared(config["mbar"])
    remote = config["remote_cta_id"]
    remote = IntImm("uint32", remote) if isinstance(remote, int) else remote
    body = Evaluate(cuda.func_call("tvm_builtin_dsmem_bulk_copy", addrs[0], addrs[1],
                                   IntImm("uint32", plan.bytes), mbar,
                                   remote if remote.dtype == "uint32" else
                                   Cast("uint32", remote),
                                   source_code=DSMEM_COPY_SOURCE))
    if plan.copies > 1:
        body = For(c, IntImm("int32", 0), IntImm("int32", plan.copies), ForKind.UNROLLED, body)
    return PrimFunc([], SeqStmt([DeclBuffer(v) for v in views] + [body]))
