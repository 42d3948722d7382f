"""``fuse_reduction_epilogue``: fold an elementwise epilogue (bias, ReLU, clipping) into the
reduction block that produces its input.

The reduction ``temp[v] = temp[v] + f(v, k)`` (init ``temp[v] = 0``) and the epilogue
``D[v] = g(temp[v])`` become one block writing ``D``: its init is ``g(0)`` (simplified), its
update ``g(D[v] + f(v, k))`` where an addend ``temp[v] + b`` of ``g`` loses ``b`` (a bias is
added once, by the init: ``0 + b`` folds to ``b``). As in TVM, this is exact for a bias; for a non-linear ``g`` (ReLU,
clipping) ``g`` is applied after every reduction step, which changes the result (TVM documents
the same). The intermediate buffer stays allocated (other readers, if any, are not rewritten).

Preconditions (``ScheduleError``, blocks underlined): the first block has a reduction
iterator and writes one buffer, not an output of the scope; the epilogue is a complete block
whose body is one store reading that buffer, with as many spatial iterators as the reduction;
the reduction result is not scaled (``*``, ``/``, ``%``) in the epilogue.
"""

from __future__ import annotations

from ...arith import Analyzer
from ...ffi.structural import structural_equal
from ...tirx.expr import Add, Div, FloatImm, FloorDiv, FloorMod, IntImm, Mod, Mul
from ...tirx.generic import const
from ...tirx.stmt import BufferLoad, BufferRegion, BufferStore, IterVar
from ...tirx.stmt_functor import StmtExprMutator, post_order_visit, substitute
from .base import SBlockRV
from .lookup import enclosing_block
from .state import replace_stmts

__all__ = ["FuseEpiloguePrimitives"]


def _loads_of(expr, buffer):
    found = []
    post_order_visit(expr, lambda n: found.append(n) if isinstance(n, BufferLoad)
                     and n.buffer is buffer else None)
    return found


def _scales(expr, buffer):
    """Whether a ``*``, ``/`` or ``%`` has the reduction result in an operand."""
    hits = []

    def visit(node):
        if isinstance(node, (Mul, Div, Mod, FloorDiv, FloorMod)) and (
                _loads_of(node.a, buffer) or _loads_of(node.b, buffer)):
            hits.append(node)

    post_order_visit(expr, visit)
    return bool(hits)


class _ReplaceLoad(StmtExprMutator):
    """Loads of ``buffer`` become ``value``; with ``drop_addend``, ``load + b`` (``b`` not a
    load of ``keep``) becomes ``value`` alone (TVM's bias removal in the update)."""

    def __init__(self, buffer, value, drop_addend=False, keep=None, zero_add=False):
        self.buffer = buffer
        self.value = value
        self.drop_addend = drop_addend
        self.keep = keep
        self.zero_add = zero_add

    def visit_buffer_load_(self, op):
        if op.buffer is self.buffer:
            return self.value
        return super().visit_buffer_load_(op)

    def visit_add_(self, op):
        if self.drop_addend:
            for this, other in ((op.a, op.b), (op.b, op.a)):
                if _loads_of(this, self.buffer) and not (
                        isinstance(other, BufferLoad) and other.buffer is self.keep):
                    return self.visit_expr(this)
        new = super().visit_add_(op)
        if self.zero_add and isinstance(new, Add):
            # ``0 + bias`` of the init: the float addition of the identity folds away (the
            # arithmetic simplifier leaves float additions alone).
            for zero, other in ((new.a, new.b), (new.b, new.a)):
                if isinstance(zero, (FloatImm, IntImm)) and zero.value == 0:
                    return other
        return new


class _RenameBuffer(StmtExprMutator):
    def __init__(self, old, new):
        self.old = old
        self.new = new

    def visit_buffer_use(self, buffer):
        return self.new if buffer is self.old else buffer


class FuseEpiloguePrimitives:
    """Mixin: ``fuse_reduction_epilogue``."""

    def fuse_reduction_epilogue(self, reduction_block: SBlockRV | str,
                                epilogue_block: SBlockRV | str) -> None:
        """Fuse the elementwise ``epilogue_block`` (bias add, ReLU, clipping) into
        ``reduction_block`` (see the module docstring for the exact rewrite)."""
        prim = "fuse_reduction_epilogue"
        reduction_block = self._as_block(reduction_block)
        epilogue_block = self._as_block(epilogue_block)
        func_name, rpath = self._block(reduction_block, prim)
        efunc, epath = self._block(epilogue_block, prim)
        if efunc != func_name:
            raise ValueError(f"{prim}: the blocks are in different functions")
        rreal, ereal = rpath[-1], epath[-1]
        rblk, eblk = rreal.block, ereal.block
        if not any(iv.iter_type == IterVar.CommReduce for iv in rblk.iter_vars) or \
                rblk.init is None or len(rblk.writes) != 1:
            raise self._error(prim, f"The block {rblk.name_hint!r} is not a reduction block "
                              "(a reduction iterator, an init, one written buffer)", [rblk])
        temp = rblk.writes[0].buffer
        scope = enclosing_block(rpath)
        if scope is None or not any(b is temp for b in scope.alloc_buffers):
            raise self._error(prim, f"Cannot operate on an output block: the block "
                              f"{rblk.name_hint!r} writes {temp.name}, which its scope does "
                              "not allocate", [rblk])
        store = eblk.body
        spatial = [iv for iv in eblk.iter_vars if iv.iter_type == IterVar.DataPar]
        if (eblk.init is not None or len(spatial) != len(eblk.iter_vars)
                or not isinstance(store, BufferStore) or not _loads_of(store.value, temp)):
            raise self._error(
                prim, f"The epilogue block {eblk.name_hint!r} must be a complete block whose "
                f"body is one store reading {temp.name}", [eblk])
        if _scales(store.value, temp):
            raise self._error(
                prim, f"The epilogue block {eblk.name_hint!r} scales the reduction result "
                f"{temp.name} (by *, / or %); only add/min/max epilogues can be fused",
                [eblk])
        rdata = [iv.var for iv in rblk.iter_vars if iv.iter_type == IterVar.DataPar]
        if len(rdata) != len(spatial):
            raise self._error(
                prim, "The number of data parallel iter vars must be the same in the "
                f"reduction block {rblk.name_hint!r} and the epilogue block "
                f"{eblk.name_hint!r}", [rblk, eblk])
        vmap = {iv.var: v for iv, v in zip(spatial, rdata)}
        out = store.buffer
        out_indices = [substitute(i, vmap) for i in store.indices]
        expr = substitute(store.value, vmap)
        ana = Analyzer()
        init_value = _ReplaceLoad(temp, const(0, out.dtype), zero_add=True).visit_expr(expr)
        init_value = ana.simplify(init_value)
        init = BufferStore(out, init_value, out_indices)
        rstore = rblk.body
        if not isinstance(rstore, BufferStore) or rstore.buffer is not temp:
            raise self._error(prim, f"The reduction block {rblk.name_hint!r} must have one "
                              f"store to {temp.name} as its body", [rblk])
        update = _RenameBuffer(temp, out).visit_expr(rstore.value)
        new_value = _ReplaceLoad(temp, update, drop_addend=True, keep=temp).visit_expr(expr)
        body = BufferStore(out, new_value, rstore.indices)
        writes = [BufferRegion(out, tuple(w.region)) if w.buffer is temp else w
                  for w in rblk.writes]
        reads = []
        for r in list(eblk.reads) + list(rblk.reads):
            if r.buffer is temp:
                continue
            mapped = BufferRegion(r.buffer, tuple(
                type(rg).from_min_extent(substitute(rg.min, vmap), substitute(rg.extent, vmap))
                for rg in r.region))
            if not any(x.buffer is mapped.buffer and structural_equal(x, mapped)
                       for x in reads):
                reads.append(mapped)
        fused = rblk.replace(init=init, body=body, reads=tuple(reads), writes=tuple(writes))
        table = {id(ereal): None, id(rblk): fused}
        self._commit(func_name, replace_stmts(self.mod[func_name].body, table))
        self._record(prim, kwargs={"reduction_block": reduction_block,
                                   "epilogue_block": epilogue_block})
