"""Block analysis for the default schedules: which loops of a block are spatial or reductions."""

from __future__ import annotations

from ...tirx.expr import IntImm, Var
from ...tirx.stmt import IterVar
from ...tirx.stmt_functor import post_order_visit

__all__ = ["IterInfo", "SBlockInfo", "normalize_prim_func"]


class IterInfo:
    """One loop above a block: ``kind`` is ``"S"`` (spatial), ``"R"`` (reduction) or ``"O"``.

    A loop is spatial when its variable appears only in the bindings of spatial block
    iterators, a reduction when only in reduction ones, ``"O"`` otherwise (both, or opaque).
    """

    def __init__(self, kind, var, dom, loop_rv):
        self.kind = kind
        self.var = var
        self.dom = dom
        self.loop_rv = loop_rv

    @property
    def extent(self):
        """The loop's extent as an ``int`` when constant, else the PrimExpr."""
        return self.dom.value if isinstance(self.dom, IntImm) else self.dom

    def __repr__(self):
        return f"Iter({self.kind}, {self.extent})"


class SBlockInfo:
    """A block of the root scope with its loops (:class:`IterInfo`, outermost first)."""

    def __init__(self, name, iters, block_rv, reduction_block=False):
        self.name = name
        self.iters = iters
        self.block_rv = block_rv
        self.reduction_block = reduction_block

    def dom(self):
        """The extents of the block's loops."""
        return [i.extent for i in self.iters]

    def dom_kind(self) -> str:
        """The kinds of the block's loops as a string such as ``"SSR"``."""
        return "".join(i.kind for i in self.iters)

    def is_injective(self) -> bool:
        """Whether every loop is spatial (or opaque)."""
        return all(k in "SO" for k in self.dom_kind())

    def is_elementwise(self, sch) -> bool:
        """Whether the block reads each buffer at exactly the indices it writes."""
        block = sch.get(self.block_rv)
        if self.reduction_block or len(block.writes) != 1:
            return False
        out = block.writes[0].region
        for read in block.reads:
            if len(read.region) != len(out):
                return False
            for r, w in zip(read.region, out):
                if not (r.min.same_as(w.min) or str(r.min) == str(w.min)):
                    return False
                if not (isinstance(r.extent, IntImm) and r.extent.value == 1):
                    return False
        return True

    def is_reduction(self) -> bool:
        """Whether the block has a reduction iterator."""
        return self.reduction_block

    def __repr__(self):
        return f"SBlockInfo({self.name}, {self.dom_kind()})"


def _vars_in(expr):
    found = set()

    def visit(node):
        if isinstance(node, Var):
            found.add(id(node))

    post_order_visit(expr, visit)
    return found


def normalize_prim_func(sch):
    """The :class:`SBlockInfo` of each block in the root scope of ``sch``'s function.

    Returns ``None`` when the function has no root block or a block nests other blocks
    (already blockized / opaque kernels), which the default rules do not schedule.
    """
    try:
        root = sch.get_sblock("root")
    except Exception:  # noqa: BLE001 - a function without a root block
        return None
    infos = []
    for block_rv in sch.get_child_blocks(root):
        realize = sch._block(block_rv, "normalize_prim_func")[1][-1]
        block = realize.block
        if sch.get_child_blocks(block_rv):
            return None
        spatial_vars, reduce_vars = set(), set()
        for iv, value in zip(block.iter_vars, realize.iter_values):
            used = _vars_in(value)
            if iv.iter_type == IterVar.DataPar:
                spatial_vars |= used
            elif iv.iter_type == IterVar.CommReduce:
                reduce_vars |= used
            else:
                spatial_vars |= used
                reduce_vars |= used
        iters = []
        for loop_rv in sch.get_loops(block_rv):
            loop = sch.get(loop_rv)
            var = loop.loop_var
            in_s, in_r = id(var) in spatial_vars, id(var) in reduce_vars
            kind = "S" if in_s and not in_r else "R" if in_r and not in_s else (
                "S" if not in_s and not in_r else "O")
            iters.append(IterInfo(kind, var, loop.extent, loop_rv))
        is_red = any(iv.iter_type == IterVar.CommReduce for iv in block.iter_vars)
        infos.append(SBlockInfo(block.name_hint, iters, block_rv, is_red))
    return infos
