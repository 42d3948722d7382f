"""``LowerWarpMemory``: turn ``warp``-scope buffers into per-thread registers plus shuffles.

A GPU has no warp memory. A buffer allocated in scope ``"warp"`` is striped over the lanes
of ``threadIdx.x`` (``width`` threads, at most the warp size): element ``i`` lives in lane
``(i // m) % width`` at local slot ``(i // (width * m)) * m + i % m``, where ``m`` is the
coefficient of ``threadIdx.x`` in the stores' indices (every store writes its own lane). The
pass then

* allocates ``size / width`` elements in scope ``"local"`` instead;
* rewrites each store to the local slot (``ValueError`` when a store writes another lane);
* rewrites each load to the local slot; when the lane is not the thread's own,
  it reads it from that lane: ``T.tvm_warp_shuffle(T.tvm_warp_activemask(), local[slot],
  lane, width, warp_size)``.

Before (``width`` = 32, ``m`` = 1)::

    tx = T.launch_thread("threadIdx.x", 32)
    W = T.alloc_buffer((32,), scope="warp")
    W[tx] = A[tx]
    B[tx] = W[(tx + 1) % 32]

After::

    W = T.alloc_buffer((1,), scope="local")
    W[0] = A[tx]
    B[tx] = T.tvm_warp_shuffle(T.tvm_warp_activemask(), W[0], (tx + 1) % 32, 32, 32)

Limits (``ValueError`` naming the buffer): the ``threadIdx.x`` extent and the buffer size must
be constants, the size a multiple of ``width * m``; shuffles across ``threadIdx.y`` are not
supported (as in TVM).
"""

from __future__ import annotations

from ...arith.analyzer import Analyzer
from ...ir.expr import Range
from ...ir.transform import PassInfo
from ...ir.type import PointerType, PrimType
from ..expr import IntImm, Var
from ..function import PrimFunc
from ..generic import floordiv, floormod
from ..op import tvm_warp_activemask, tvm_warp_shuffle
from ..stmt import AllocBuffer, AttrStmt, BufferLoad, BufferStore
from ..stmt_functor import StmtExprMutator, post_order_visit, substitute
from .common import PrimFuncPass

__all__ = ["LowerWarpMemory", "lower_warp_memory"]


def _thread_x(body):
    found = []

    def visit(node):
        if (isinstance(node, AttrStmt) and node.attr_key == "thread_extent"
                and node.node.thread_tag == "threadIdx.x"):
            found.append(node)

    post_order_visit(body, visit)
    return found[0] if found else None


def _warp_size(func: PrimFunc) -> int:
    target = func.get_attr("target")
    try:
        value = target.attrs.get("thread_warp_size") if target is not None else None
    except AttributeError:
        value = None
    return int(value) if value is not None else 32


class _WarpBuffer:
    """One warp buffer: its stripe coefficient ``m``, width and the local replacement."""

    def __init__(self, buf, m: int, width: int):
        self.buf = buf
        self.m = m
        self.width = width
        size = 1
        for extent in buf.shape:
            if not isinstance(extent, IntImm):
                raise ValueError(  # noqa: TRY004 - unsupported IR, not a wrong argument type
                    f"LowerWarpMemory: warp buffer {buf.name} has a symbolic size")
            size *= extent.value
        if size % (width * m):
            raise ValueError(
                f"LowerWarpMemory: warp buffer {buf.name} has {size} elements, not a multiple "
                f"of width * m = {width} * {m}"
            )
        data = Var(buf.data.name, PointerType(PrimType(buf.dtype), "local"))
        self.local = buf.replace(data=data, shape=(IntImm("int32", size // width),))


def _store_coefficients(body, warp_ids: set, tx: Var, analyzer: Analyzer) -> dict:
    coeffs: dict = {}

    def visit(node):
        if isinstance(node, BufferStore) and id(node.buffer.data) in warp_ids:
            if len(node.indices) != 1:
                raise ValueError(
                    f"LowerWarpMemory: warp buffer {node.buffer.name} must be flat; run "
                    "FlattenBuffer first"
                )
            index = node.indices[0]
            step = analyzer.simplify(substitute(index, {tx: tx + 1}) - index)
            if not isinstance(step, IntImm) or step.value <= 0:
                raise ValueError(
                    f"LowerWarpMemory: the store index {index} of warp buffer "
                    f"{node.buffer.name} is not a positive multiple of threadIdx.x plus terms "
                    "independent of it"
                )
            previous = coeffs.setdefault(id(node.buffer.data), step.value)
            if previous != step.value:
                raise ValueError(
                    f"LowerWarpMemory: stores to warp buffer {node.buffer.name} stride "
                    f"threadIdx.x by {previous} and {step.value}"
                )

    post_order_visit(body, visit)
    return coeffs


class _Rewriter(StmtExprMutator):
    def __init__(self, warp: dict, tx: Var, warp_size: int, analyzer: Analyzer):
        super().__init__()
        self.warp = warp  # id(data) -> _WarpBuffer
        self.tx = tx
        self.warp_size = warp_size
        self.analyzer = analyzer

    def visit_for_(self, op):
        self.analyzer.bind(op.loop_var, Range.from_min_extent(op.min, op.extent),
                           allow_override=True)
        return super().visit_for_(op)

    def visit_alloc_buffer_(self, op: AllocBuffer):
        info = self.warp.get(id(op.buffer.data))
        if info is None:
            return super().visit_alloc_buffer_(op)
        return AllocBuffer(info.local, annotations=op.annotations, span=op.span)

    def _split(self, info: _WarpBuffer, index):
        m, w = info.m, info.width
        slot = self.analyzer.simplify(floordiv(index, w * m) * m + floormod(index, m))
        lane = self.analyzer.simplify(floormod(floordiv(index, m), w))
        return slot, lane

    def visit_buffer_store_(self, op: BufferStore):
        info = self.warp.get(id(op.buffer.data))
        if info is None:
            return super().visit_buffer_store_(op)
        value = self.visit_expr(op.value)
        slot, lane = self._split(info, self.visit_expr(op.indices[0]))
        if not self.analyzer.can_prove_equal(lane, self.tx):
            raise ValueError(
                f"LowerWarpMemory: a store to warp buffer {info.buf.name} writes lane {lane}, "
                "not the thread's own lane (threadIdx.x)"
            )
        return BufferStore(info.local, value, [slot], span=op.span)

    def visit_buffer_load_(self, op: BufferLoad):
        info = self.warp.get(id(op.buffer.data))
        if info is None:
            return super().visit_buffer_load_(op)
        slot, lane = self._split(info, self.visit_expr(op.indices[0]))
        load = BufferLoad(info.local, [slot], span=op.span)
        if self.analyzer.can_prove_equal(lane, self.tx):
            return load
        return tvm_warp_shuffle(tvm_warp_activemask(), load, lane, info.width, self.warp_size)


def lower_warp_memory(func: PrimFunc) -> PrimFunc:
    """Apply :func:`LowerWarpMemory` to one PrimFunc."""
    warp_bufs = []
    post_order_visit(func.body, lambda n: warp_bufs.append(n.buffer)
                     if isinstance(n, AllocBuffer) and n.buffer.scope() == "warp" else None)
    if not warp_bufs:
        return func
    launch = _thread_x(func.body)
    if launch is None:
        raise ValueError(
            f"LowerWarpMemory: warp buffer {warp_bufs[0].name} is used outside a threadIdx.x "
            "launch"
        )
    tx, width = launch.node.var, launch.value
    warp_size = _warp_size(func)
    if not isinstance(width, IntImm) or width.value > warp_size:
        raise ValueError(
            f"LowerWarpMemory: the threadIdx.x extent {width} must be a constant no larger "
            f"than the warp size {warp_size}"
        )
    analyzer = Analyzer()
    analyzer.bind(tx, Range.from_min_extent(IntImm(tx.dtype, 0), width))
    coeffs = _store_coefficients(func.body, {id(b.data) for b in warp_bufs}, tx, analyzer)
    warp = {}
    for buf in warp_bufs:
        m = coeffs.get(id(buf.data))
        if m is None:
            raise ValueError(f"LowerWarpMemory: warp buffer {buf.name} is never stored to")
        warp[id(buf.data)] = _WarpBuffer(buf, m, width.value)
    body = _Rewriter(warp, tx, warp_size, analyzer).visit_stmt(func.body)
    return func.with_body(body)


def LowerWarpMemory():
    """Warp buffers -> local registers and warp shuffles (see module doc)."""
    return PrimFuncPass(lambda f, m, c: lower_warp_memory(f),
                        PassInfo(0, "tirx.LowerWarpMemory"))
