"""Read/write region inference for SBlocks (what ``T.sblock`` does without ``T.reads``).

:func:`infer_sblock_regions` walks a block's body and collects, per buffer, the region touched:
an index that only uses block iteration variables gives a point (``A[v_i, v_k]``); an index
that uses loop variables of loops *inside* the block is relaxed over their ranges with interval
arithmetic (``A[v_i, 0:16]``). Accesses to one buffer are merged into their bounding box.
Buffers allocated inside the block are left out.

Limitations: interval arithmetic covers ``+``, ``-``, multiplication and floor division/modulo
by constants, ``min``/``max`` and casts; any other index that depends on an inner loop variable
makes that dimension the whole buffer extent (a safe over-approximation).
"""

from __future__ import annotations

from ..ffi.structural import structural_equal
from ..ir.expr import PrimExpr, Range
from ..tirx.expr import IntImm, Var
from ..tirx.expr_functor import post_order_visit
from ..tirx.generic import max as gmax
from ..tirx.generic import min as gmin
from ..tirx.stmt import (
    AllocBuffer,
    BufferLoad,
    BufferRegion,
    BufferStore,
    DeclBuffer,
    For,
    SBlock,
    SBlockRealize,
    Stmt,
)
from ..tirx.stmt_functor import StmtExprVisitor, substitute

__all__ = ["get_sblock_access_region", "get_sblock_read_write_region", "infer_sblock_regions"]


def _simplify(expr):
    try:
        # Lazy: the Analyzer is optional here (region texts are nicer when it is available).
        from ..arith import Analyzer
    except ImportError:  # pragma: no cover - arith not built yet
        return expr
    return Analyzer().simplify(expr)


def _is_const(e, value=None):
    return isinstance(e, IntImm) and (value is None or e.value == value)


def _uses(expr, relaxed) -> bool:
    if not relaxed:
        return False
    found = []

    def visit(node):
        if isinstance(node, Var) and id(node) in relaxed:
            found.append(node)

    post_order_visit(expr, visit)
    return bool(found)


def _bound(expr, relaxed):
    """``(lo, hi)`` inclusive bounds of ``expr`` over the relaxed vars, or ``None``."""
    name = type(expr).__name__
    if name == "Ramp" and _is_const(expr.stride) and expr.stride.value >= 0:
        # Lanes base, base + stride, ..., base + stride * (lanes - 1).
        base = _bound(expr.base, relaxed)
        if base is None:
            return None
        return base[0], base[1] + expr.stride * (int(expr.lanes) - 1)
    if name == "Broadcast":
        return _bound(expr.value, relaxed)
    if not _uses(expr, relaxed):
        return expr, expr
    if isinstance(expr, Var):
        lo, ext = relaxed[id(expr)]
        return lo, lo + ext - 1
    if name in ("Add", "Sub"):
        a, b = _bound(expr.a, relaxed), _bound(expr.b, relaxed)
        if a is None or b is None:
            return None
        if name == "Add":
            return a[0] + b[0], a[1] + b[1]
        return a[0] - b[1], a[1] - b[0]
    if name == "Mul":
        for x, c in ((expr.a, expr.b), (expr.b, expr.a)):
            if _is_const(c):
                r = _bound(x, relaxed)
                if r is None:
                    return None
                return (r[0] * c, r[1] * c) if c.value >= 0 else (r[1] * c, r[0] * c)
        return None
    if name == "FloorDiv" and _is_const(expr.b) and expr.b.value > 0:
        r = _bound(expr.a, relaxed)
        return None if r is None else (r[0] // expr.b, r[1] // expr.b)
    if name == "FloorMod" and _is_const(expr.b) and expr.b.value > 0:
        return IntImm(expr.dtype, 0), IntImm(expr.dtype, expr.b.value - 1)
    if name in ("Min", "Max"):
        a, b = _bound(expr.a, relaxed), _bound(expr.b, relaxed)
        if a is None or b is None:
            return None
        fn = type(expr)
        return fn(a[0], b[0]), fn(a[1], b[1])
    return None


class _Collector(StmtExprVisitor):
    def __init__(self):
        self.relaxed: dict = {}  # id(var) -> (min, extent)
        self.reads: list = []  # (buffer, [(lo, hi) or None per dim])
        self.writes: list = []
        self.local: set = set()  # ids of buffers allocated inside the block
        self.matched: dict = {}  # id(match buffer of the block) -> {"reads", "writes"} used
        self.keep: list = []

    def _record(self, table, buffer, indices):
        if id(buffer) in self.matched:
            # An access through a match buffer accesses its source region.
            self.matched[id(buffer)].add("writes" if table is self.writes else "reads")
            return
        if id(buffer) in self.local:
            return
        table.append((buffer, [_bound(i, self.relaxed) for i in indices]))

    def visit_buffer_load_(self, op: BufferLoad):
        # The loaded buffer first, then the loads inside its indices (TVM's read order).
        self._record(self.reads, op.buffer, op.indices)
        super().visit_buffer_load_(op)

    def visit_buffer_store_(self, op: BufferStore):
        self.visit_expr(op.value)
        for i in op.indices:
            self.visit_expr(i)
        self._record(self.writes, op.buffer, op.indices)

    def visit_for_(self, op: For):
        self.relaxed[id(op.loop_var)] = (op.min, op.extent)
        self.keep.append(op.loop_var)
        super().visit_for_(op)

    def visit_alloc_buffer_(self, op: AllocBuffer):
        self.local.add(id(op.buffer))
        self.keep.append(op.buffer)

    def visit_decl_buffer_(self, op: DeclBuffer):
        self.local.add(id(op.buffer))
        self.keep.append(op.buffer)

    def visit_sblock_realize_(self, op: SBlockRealize):
        # A nested block: use its regions with its iteration variables bound to the values.
        for v in op.iter_values:
            self.visit_expr(v)
        block = op.block
        for buf in block.alloc_buffers:
            self.local.add(id(buf))
            self.keep.append(buf)
        reads, writes = block.reads, block.writes
        if not reads and not writes:
            reads, writes = infer_sblock_regions(block)
        vmap = {iv.var: v for iv, v in zip(block.iter_vars, op.iter_values)}
        for table, regions in ((self.reads, reads), (self.writes, writes)):
            for region in regions:
                if id(region.buffer) in self.local:
                    continue
                dims = []
                for r in region.region:
                    lo = substitute(r.min, vmap) if vmap else r.min
                    hi = substitute(r.min + r.extent - 1, vmap) if vmap else r.min + r.extent - 1
                    blo, bhi = _bound(lo, self.relaxed), _bound(hi, self.relaxed)
                    dims.append(None if blo is None or bhi is None else (blo[0], bhi[1]))
                table.append((region.buffer, dims))


def _merge(entries):
    """Merge accesses per buffer (first-access order) into bounding boxes."""
    order, boxes = [], {}
    for buf, dims in entries:
        key = id(buf)
        if key not in boxes:
            order.append(buf)
            boxes[key] = list(dims)
            continue
        box = boxes[key]
        for d, new in enumerate(dims):
            old = box[d]
            if old is None or new is None:
                box[d] = None
                continue
            if _same_expr(old[0], new[0]) and _same_expr(old[1], new[1]):
                continue
            box[d] = (_simplify(gmin(old[0], new[0])), _simplify(gmax(old[1], new[1])))
    result = []
    for buf in order:
        ranges = []
        for d, dim in enumerate(boxes[id(buf)]):
            if dim is None:
                zero = IntImm(buf.shape[d].dtype, 0) if isinstance(buf.shape[d], PrimExpr) else 0
                ranges.append(Range.from_min_extent(zero, buf.shape[d]))
                continue
            lo, hi = dim
            if lo is hi:
                ranges.append(Range.from_min_extent(lo, IntImm(lo.dtype, 1)))
            else:
                lo = _simplify(lo)
                ranges.append(Range.from_min_extent(lo, _simplify(hi - lo + 1)))
        result.append(BufferRegion(buf, ranges))
    return result


def _same_expr(a, b):
    return a is b or structural_equal(a, b)


def infer_sblock_regions(block, exclude_written_from_reads=False):
    """Infer ``(reads, writes)`` lists of ``BufferRegion`` for an SBlock (or a statement).

    Parameters
    ----------
    block : SBlock or Stmt
        The block whose body (and ``init``) is scanned; a plain statement is scanned as is.
    exclude_written_from_reads : bool
        Leave buffers that are written out of ``reads`` (``te.create_prim_func`` does this
        for the accumulator of a reduction).
    """
    col = _Collector()
    if isinstance(block, SBlock):
        for buf in block.alloc_buffers:
            col.local.add(id(buf))
        for mb in block.match_buffers:
            col.matched[id(mb.buffer)] = set()
        if block.init is not None:
            col.visit_stmt(block.init)
        col.visit_stmt(block.body)
        for mb in block.match_buffers:
            # A match buffer stands for its source region: read and/or written as the body
            # uses it (read when it is only used opaquely).
            dims = [(r.min, r.min + r.extent - 1) for r in mb.source.region]
            roles = col.matched[id(mb.buffer)] or {"reads"}
            for role in ("reads", "writes"):
                if role in roles:
                    getattr(col, role).append((mb.source.buffer, list(dims)))
    elif isinstance(block, Stmt):
        col.visit_stmt(block)
    else:
        raise TypeError(f"infer_sblock_regions expects an SBlock or Stmt, got {type(block)}")
    writes = _merge(col.writes)
    reads = col.reads
    if exclude_written_from_reads:
        written = {id(r.buffer) for r in writes}
        reads = [entry for entry in reads if id(entry[0]) not in written]
    return _merge(reads), writes


def get_sblock_access_region(block, buffer_var_map=None):
    """``[reads, writes, opaque]`` regions of ``block`` (TVM's analysis name; opaque is empty).

    ``buffer_var_map`` is accepted for API compatibility; buffers are identified directly.
    """
    reads, writes = infer_sblock_regions(block)
    return [reads, writes, []]


def get_sblock_read_write_region(block, buffer_var_map=None):
    """``[reads, writes]`` regions of ``block``."""
    reads, writes = infer_sblock_regions(block)
    return [reads, writes]
