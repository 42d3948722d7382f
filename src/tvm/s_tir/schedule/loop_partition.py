"""``loop_partition``: split a loop's range into consecutive pieces, each its own loop.

TVM 0.27's ``LoopPartition``: the factors are piece lengths (one may be ``None``: the rest of
the extent; without one, a last piece covers what the factors leave). The loop is replaced by
an opaque block ``<block>_<loop>_common`` holding, per piece ``i``, an opaque block
``<block>_<loop><i>_partition`` around a loop ``<loop><i>`` over ``[start, end)``, whose body
is a copy of the loop body with fresh variables. In the copy, a block bound directly to the
loop variable gets the piece as that iter var's domain, and its read and write regions of a
buffer it accesses at plain iter vars become those iter vars' domains; every block of the
copy is renamed ``<name>_<loop><i>``.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ir.expr import Range
from ...tirx import expr as E
from ...tirx.generic import const
from ...tirx.stmt import For, ForKind, SBlock, SBlockRealize, SeqStmt
from ...tirx.stmt_functor import StmtExprMutator, StmtExprVisitor, substitute
from .base import ExprRV, LoopRV
from .state import replace_stmts

__all__ = ["LoopPartitionPrimitives"]


def _first_block_name(stmt):
    while not isinstance(stmt, SBlockRealize):
        stmt = stmt.body
    return stmt.block.name_hint


class _AccessIndices(StmtExprVisitor):
    """Per buffer name, the iter-var names of its first access at plain variables."""

    def __init__(self):
        self.table = {}

    def _note(self, buffer, indices):
        if buffer.name not in self.table and all(isinstance(i, E.Var) for i in indices):
            self.table[buffer.name] = [i.name for i in indices]

    def visit_buffer_store_(self, op):
        """Note the store's buffer, then its value and indices."""
        self._note(op.buffer, op.indices)
        super().visit_buffer_store_(op)

    def visit_buffer_load_(self, op):
        """Note the load's buffer."""
        self._note(op.buffer, op.indices)
        super().visit_buffer_load_(op)


class _PieceMutator(StmtExprMutator):
    """TVM's ``BlockMutator``: fresh variables, the piece's domain and regions, new names."""

    def __init__(self, loop_var, start, end):
        self.loop_var, self.start, self.end = loop_var, start, end
        self.index = -1

    def visit_sblock_realize_(self, op):
        """Note which iter var is bound to the piece's loop variable."""
        for i, value in enumerate(op.iter_values):
            if value is self.loop_var:
                self.index = i
                break
        return super().visit_sblock_realize_(op)

    def visit_sblock_(self, op):
        """Rename the block; give the bound iter var the piece's domain and regions."""
        blk = super().visit_sblock_(op)
        suffix = f"_{self.loop_var.name}"
        if not blk.iter_vars or self.index == -1:
            return blk.replace(name_hint=blk.name_hint + suffix)
        target = blk.iter_vars[self.index].var
        self.index = -1
        ivs, vmap = [], {}
        for iv in blk.iter_vars:
            var = E.Var(iv.var.name, iv.var.dtype)
            vmap[iv.var] = var
            dom = iv.dom
            if iv.var is target:
                dt = iv.var.dtype
                lo, hi = _cast(self.start, dt), _cast(self.end, dt)
                dom = Range.from_min_extent(lo, Analyzer().simplify(hi - lo))
            ivs.append(iv.replace(var=var, dom=dom))
        blk = blk.replace(iter_vars=tuple(ivs), name_hint=blk.name_hint + suffix)
        doms = {iv.var.name: iv.dom for iv in ivs}
        finder = _AccessIndices()
        finder.visit_stmt(blk.body)

        def regions(items):
            out = []
            for r in items:
                names = finder.table.get(r.buffer.name)
                if names is None:
                    out.append(r)
                    continue
                ranges = [doms.get(n) for n in names]
                if any(x is None for x in ranges):
                    out.append(r)
                    continue
                out.append(r.replace(region=tuple(ranges)))
            return tuple(out)

        blk = blk.replace(writes=regions(blk.writes), reads=regions(blk.reads))
        return substitute(blk, vmap)

    def visit_for_(self, op):
        """A nested loop gets a fresh variable of the same name."""
        new = super().visit_for_(op)
        var = E.Var(op.loop_var.name, op.loop_var.dtype)
        return new.replace(loop_var=var, body=substitute(new.body, {op.loop_var: var}))


def _bits(dtype):
    """The bit width of an integer dtype (``"int64"`` -> 64)."""
    return int(str(dtype).lstrip("uint") or 32)


def _cast(value, dtype):
    return const(value.value, dtype) if isinstance(value, E.IntImm) else E.Cast(dtype, value)


class LoopPartitionPrimitives:
    """Mixin: ``loop_partition``."""

    def loop_partition(self, loop, factors, preserve_unit_iters: bool = True) -> list:
        """Partition ``loop`` into consecutive pieces of the given lengths.

        As TVM 0.27 (see the module docstring for the blocks it creates).

        Parameters
        ----------
        loop : LoopRV
            The loop to partition (constant min and extent, no annotation or thread binding).
        factors : list of int, ExprRV or None
            The pieces' lengths; at most one ``None`` (the rest of the extent).
        preserve_unit_iters : bool
            Accepted as TVM does (TVM 0.27 does not use it either).

        Returns
        -------
        list of LoopRV
            The loops of the pieces.

        Raises
        ------
        ScheduleError
            If the loop is annotated, thread-bound or of symbolic range, a constant factor is
            not positive, more than one factor is ``None``, or the factors reach the extent.
        """
        prim = "loop_partition"
        func_name, path = self._loop(loop, prim)
        node = path[-1]
        if node.annotations or node.thread_binding is not None \
                or node.kind == ForKind.THREAD_BINDING:
            raise self._error(
                prim, "The primitive can't be applied because the loop "
                f"{node.loop_var.name} has annotation or thread binding", [node])
        if not isinstance(node.min, E.IntImm) or not isinstance(node.extent, E.IntImm):
            raise self._error(
                prim, f"Detected dynamic shape in either min or extent of a loop "
                f"{node.loop_var.name}", [node])
        values, bits, infer = [], _bits(node.loop_var.dtype), None
        for i, f in enumerate(factors):
            if isinstance(f, ExprRV):
                f = self.get(f)
            if f is None:
                if infer is not None:
                    raise self._error(prim, "Only one factor can be specified as -1 or none",
                                      [node])
                infer = i
                values.append(None)
                continue
            if isinstance(f, E.IntImm):
                bits = max(bits, _bits(f.dtype))
                f = f.value
            if not isinstance(f, int):
                raise TypeError(f"{prim}: factors must be int, IntImm, ExprRV or None, got {f!r}")
            if f <= 0:
                raise self._error(
                    prim, "All the constant factors are required to be positive. However, the "
                    f"factor at position {i} is {f}", [node])
            values.append(f)
        extent = node.extent.value
        total = sum(v for v in values if v is not None)
        if total >= extent:
            raise self._error(
                prim, "The sum of factors is larger than or equal to the extent of loop "
                f"{node.loop_var.name}", [node])
        if infer is not None:
            values[infer] = extent - total
        ends = []
        for v in values:
            ends.append(v + (ends[-1] if ends else 0))
        if infer is None:
            ends.append(extent)
        dtype = f"int{bits}"
        block_name = f"{_first_block_name(node.body)}_{node.loop_var.name}"
        start = node.min.value
        parts, loop_vars = [], []
        for i, end in enumerate(ends):
            var = E.Var(f"{node.loop_var.name}{i}", dtype)
            body = substitute(node.body, {node.loop_var: var})
            lo, hi = const(start, dtype), const(end, dtype)
            body = _PieceMutator(var, lo, hi).visit_stmt(body)
            piece = For(var, lo, const(end - start, dtype), ForKind.SERIAL, body)
            parts.append(SBlockRealize([], const(end > 0, "bool"),
                                       SBlock([], [], [], f"{block_name}{i}_partition", piece)))
            loop_vars.append(var)
            start = end
        common = SBlockRealize([], const(True, "bool"), SBlock(
            [], [], [], f"{block_name}_common", SeqStmt(parts) if len(parts) > 1 else parts[0]))
        body = self.mod[func_name].body
        self._commit(func_name, replace_stmts(body, {id(node): common}))
        rvs = [self._new_rv(LoopRV, func_name, v) for v in loop_vars]
        self._record(prim, kwargs={"loop": loop, "factors": list(factors),
                                   "preserve_unit_iters": preserve_unit_iters}, outputs=rvs)
        return rvs
