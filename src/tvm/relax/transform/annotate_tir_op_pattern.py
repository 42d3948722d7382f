"""``AnnotateTIROpPattern``: tag each PrimFunc with its fusion pattern (``op_pattern`` attr).

The kinds are TVM's ``OpPatternKind`` values:

=====  ==================  ============================================================
value  kind                a block of this kind
=====  ==================  ============================================================
0      kElemWise           reads inputs at the output index (others may broadcast)
1      kBroadcast          reads every input at a subsequence of the output index vars
2      kInjective          any other spatial (non-reduction) indexing
3      kCommReduce         a reduction (``T.init``) reading one input
4      kOutEWiseFusable    a reduction combining several inputs (matmul, conv)
8      kOpaque             anything else (no blocks, opaque calls)
=====  ==================  ============================================================

A PrimFunc's kind is the largest kind of its blocks, except that blocks before a reduction
(padding) do not count and a block after a reduction makes the whole kOutEWiseFusable (mean,
softmax), as TVM classifies them. PrimFuncs that already have ``op_pattern``
are left alone.

Before::

    @T.prim_func(private=True)
    def add(x: T.Buffer((2, 3), "float32"), y: T.Buffer((3,), "float32"), out: ...): ...

After::

    @T.prim_func(private=True)
    def add(...):
        T.func_attr({"op_pattern": 1, "tirx.noalias": True})
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ...tirx import expr as tir_expr
from ...tirx import stmt as tir_stmt
from ...tirx.function import PrimFunc
from ...tirx.stmt_functor import StmtVisitor, post_order_visit

__all__ = ["AnnotateTIROpPattern", "OpPatternKind"]


class OpPatternKind:
    """TVM's op pattern kinds (integers, ordered by how much they restrict fusion)."""

    kElemWise = 0
    kBroadcast = 1
    kInjective = 2
    kCommReduce = 3
    kOutEWiseFusable = 4
    kTuple = 7
    kOpaque = 8


def _block_kind(block):
    stores, loads = [], []

    def visit(node):
        if isinstance(node, tir_stmt.BufferStore):
            stores.append(node)
        elif isinstance(node, tir_stmt.BufferLoad):
            loads.append(node)
        elif isinstance(node, tir_expr.Call) and getattr(node.op, "name", "").startswith(
            "tirx.call_extern"
        ):
            loads.append(None)

    post_order_visit(block.body, visit)
    if None in loads or len(stores) != 1:
        return OpPatternKind.kOpaque
    store = stores[0]
    reduce_vars = [iv for iv in block.iter_vars if iv.iter_type == tir_stmt.IterVar.CommReduce]
    inputs = [ld for ld in loads if ld.buffer is not store.buffer]
    if block.init is not None or reduce_vars:
        buffers = {id(ld.buffer) for ld in inputs}
        return OpPatternKind.kOutEWiseFusable if len(buffers) > 1 else OpPatternKind.kCommReduce
    out_index = list(store.indices)
    same = [_index_equal(list(ld.indices), out_index) for ld in inputs]
    if not all(s or _is_subsequence(list(ld.indices), out_index) for s, ld in zip(same, inputs)):
        return OpPatternKind.kInjective
    # As TVM 0.27 classifies them: an input read at the output index makes the block
    # elementwise even when other inputs broadcast (x + y with y of shape (3,)); only
    # broadcasting reads (broadcast_to, z * v) make it a broadcast.
    if all(same) or any(same):
        return OpPatternKind.kElemWise
    return OpPatternKind.kBroadcast


def _index_equal(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _is_subsequence(index, out_index):
    """Every load index is a bare output index var, in order (constants allowed: a size-1
    broadcast dim reads index 0)."""
    pos = 0
    for item in index:
        if isinstance(item, tir_expr.IntImm):
            continue
        while pos < len(out_index) and out_index[pos] is not item:
            pos += 1
        if pos == len(out_index):
            return False
        pos += 1
    return True


def analyze_pattern(func: PrimFunc) -> int:
    """The op pattern kind of a PrimFunc (see the module docstring)."""
    finder = _BlocksPostOrder()
    finder.visit_stmt(func.body)
    blocks = finder.blocks
    if not blocks:
        return OpPatternKind.kOpaque
    kinds = [_block_kind(b) for b in blocks]
    if OpPatternKind.kOpaque in kinds:
        return OpPatternKind.kOpaque
    reductions = [i for i, k in enumerate(kinds) if k >= OpPatternKind.kCommReduce]
    if reductions:
        # Blocks before the reduction (e.g. padding) do not change the kind; a block after it
        # (a mean's division, softmax's normalization) makes it out-elementwise-fusable, as
        # in TVM.
        if reductions[-1] != len(kinds) - 1:
            return OpPatternKind.kOutEWiseFusable
        return max(kinds[i] for i in reductions)
    return max(kinds)


class _BlocksPostOrder(StmtVisitor):
    """The blocks with iterators, children first, each object once (as ``post_order_visit``
    lists them). Why not ``post_order_visit``: blocks are statements, so the expressions,
    most of the tree, need no visit."""

    def __init__(self):
        self.blocks = []
        self.seen = set()

    def visit_stmt(self, stmt):
        if id(stmt) in self.seen:
            return
        self.seen.add(id(stmt))
        super().visit_stmt(stmt)
        if isinstance(stmt, tir_stmt.SBlock) and stmt.iter_vars:
            self.blocks.append(stmt)


@module_pass(opt_level=0, name="AnnotateTIROpPattern")
class AnnotateTIROpPattern:
    """Set the ``op_pattern`` attribute of every PrimFunc that lacks one."""

    def transform_module(self, mod, ctx):
        """Give each PrimFunc that has no ``op_pattern`` attribute the pattern its body shows.

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            A copy with the annotated PrimFuncs; ``mod`` itself when every PrimFunc had one.
        """
        updates = {}
        for gvar, func in mod.functions.items():
            if not isinstance(func, PrimFunc):
                continue
            if func.attrs is not None and "op_pattern" in func.attrs:
                continue
            updates[gvar] = func.with_attr("op_pattern", analyze_pattern(func))
        if not updates:
            return mod
        new_mod = mod.clone()
        for gvar, func in updates.items():
            new_mod.update_func(gvar, func)
        return new_mod
