"""``tensorize``: replace a tile of computation by a tensor intrinsic's implementation.

``sch.tensorize(loop, "dot_16x4_vnni")`` blockizes the loop (as ``blockize``), checks that the
tile computes what the intrinsic's *description* computes, and replaces the tile's body by the
intrinsic's *implementation*, whose buffers become ``match_buffer`` views of the regions the
tile accesses (``A_1 = T.match_buffer(A[vi, vk_o * 4:vk_o * 4 + 4], (4,), "uint8")``).

The tile matches the description when (checked in this order, each failure a
``ScheduleError`` naming the first difference):

* both are a chain of loops (same extents) around one block whose body is one store;
* the blocks' iterators pair up with the same kinds and extents;
* the stored values have the same form, node by node; each description buffer stands for one
  tile buffer (of the same dtype), and each index of the description equals the tile's index
  minus the tile region's start (description dims align with the tile buffer's trailing
  dims; leading dims of the tile region have extent 1).

The tile's inner block may not have an ``init`` (descriptions have none); an ``init`` that
``blockize`` moved to the tile block stays there and runs before the intrinsic. Implementations
may not define local variables (every use gets the same variables), only buffers, which are
renewed per use. Loads and stores of the ``match_buffer`` views are lowered by
``LowerOpaqueBlock``; an intrinsic without strides needs a contiguous tile region (else the
lowering raises).
"""

from __future__ import annotations

from ...arith import Analyzer
from ...tirx.buffer import decl_buffer
from ...tirx.expr import FloatImm, IntImm, StringImm, Var
from ...tirx.stmt import (
    BufferLoad,
    BufferRegion,
    BufferStore,
    For,
    MatchBufferRegion,
    SBlockRealize,
)
from ...tirx.stmt_functor import StmtExprMutator, substitute
from .base import LoopRV, SBlockRV
from .state import replace_stmts

__all__ = ["TensorizePrimitives"]


class _Mismatch(Exception):
    """The tile differs from the description (the message says where)."""


def _tile_parts(stmt, what):
    """``(loops, realize)`` of a chain of loops around one block realize."""
    loops = []
    while isinstance(stmt, For):
        loops.append(stmt)
        stmt = stmt.body
    if not isinstance(stmt, SBlockRealize):
        raise _Mismatch(f"the {what} is not a chain of loops around one block "
                        f"(found {type(stmt).__name__})")
    if not isinstance(stmt.block.body, BufferStore):
        raise _Mismatch(f"the {what}'s block body is not one buffer store")
    if stmt.block.init is not None:
        raise _Mismatch(f"the {what}'s block has an init statement (run decompose_reduction "
                        "or blockize the loop above the reduction first)")
    return loops, stmt


class _Matcher:
    """Pairs description buffers/variables with tile ones while comparing two expressions."""

    def __init__(self, regions, ana):
        self.regions = regions  # id(tile buffer) -> BufferRegion the tile accesses
        self.ana = ana
        self.buffers = {}  # id(desc buffer) -> tile buffer
        self.vars = {}  # id(desc var) -> tile var

    def buffer(self, d, t):
        got = self.buffers.setdefault(id(d), t)
        if got is not t:
            raise _Mismatch(f"description buffer {d.name} stands for both {got.name} and "
                            f"{t.name}")
        if d.dtype != t.dtype:
            raise _Mismatch(f"description buffer {d.name} has dtype {d.dtype}, tile buffer "
                            f"{t.name} {t.dtype}")
        region = self.regions.get(id(t))
        if region is None:
            raise _Mismatch(f"the tile does not declare the region of {t.name} it accesses")
        return region

    def indices(self, d_buf, d_idx, t_buf, t_idx):
        region = self.buffer(d_buf, t_buf).region
        lead = len(t_idx) - len(d_idx)
        if lead < 0 or len(region) != len(t_idx):
            raise _Mismatch(f"{t_buf.name} has fewer dimensions than description buffer "
                            f"{d_buf.name}")
        for r in region[:lead]:
            if not self.ana.can_prove_equal(r.extent, 1):
                raise _Mismatch(f"the tile's region of {t_buf.name} spans more than one "
                                "element in a dimension the description does not have")
        for di, ti, r in zip(d_idx, t_idx[lead:], region[lead:]):
            offset = self.ana.simplify(ti - r.min)
            if isinstance(di, Var) and isinstance(offset, Var):
                self.var(di, offset)
                continue
            mapped = substitute(di, {v: self.vars[id(v)] for v in _vars(di)
                                     if id(v) in self.vars})
            if not self.ana.can_prove_equal(mapped, offset):
                raise _Mismatch(f"index {ti} of {t_buf.name} (offset {offset} in the tile) "
                                f"does not match description index {di}")

    def var(self, d, t):
        got = self.vars.setdefault(id(d), t)
        if got is not t:
            raise _Mismatch(f"description variable {d.name} stands for both {got.name} and "
                            f"{t.name}")

    def expr(self, d, t):
        if type(d) is not type(t):
            raise _Mismatch(f"{t} ({type(t).__name__}) does not match description {d} "
                            f"({type(d).__name__})")
        if str(getattr(d, "dtype", "")) != str(getattr(t, "dtype", "")):
            raise _Mismatch(f"{t} has dtype {t.dtype}, description {d} {d.dtype}")
        if isinstance(d, BufferLoad):
            self.indices(d.buffer, list(d.indices), t.buffer, list(t.indices))
            return
        if isinstance(d, Var):
            self.var(d, t)
            return
        if isinstance(d, (IntImm, FloatImm, StringImm)):
            if d.value != t.value:
                raise _Mismatch(f"constant {t} does not match description {d}")
            return
        if hasattr(d, "op") and hasattr(d, "args"):
            if d.op is not t.op and getattr(d.op, "name", None) != getattr(t.op, "name", 0):
                raise _Mismatch(f"call {t} does not match description {d}")
            if len(d.args) != len(t.args):
                raise _Mismatch(f"call {t} has another number of arguments than {d}")
            for a, b in zip(d.args, t.args):
                self.expr(a, b)
            return
        fields = [f for f in ("a", "b", "value", "condition", "true_value", "false_value")
                  if hasattr(d, f)]
        if not fields:
            raise _Mismatch(f"{type(d).__name__} expressions are not compared by tensorize")
        for f in fields:
            self.expr(getattr(d, f), getattr(t, f))


def _vars(expr):
    from ...tirx.stmt_functor import post_order_visit  # Lazy: only index matching walks.

    out = []
    post_order_visit(expr, lambda n: out.append(n) if isinstance(n, Var) else None)
    return out


class _RenameBuffers(StmtExprMutator):
    def __init__(self, table):
        self.table = table

    def visit_buffer_use(self, buffer):
        return self.table.get(id(buffer), buffer)


def _root_body(func):
    body = func.body
    if isinstance(body, SBlockRealize):
        body = body.block.body
    return body


class TensorizePrimitives:
    """Mixin: ``tensorize``."""

    def tensorize(self, block_or_loop, tensor_intrin, preserve_unit_iters: bool = True) -> None:
        """Replace the tile under ``block_or_loop`` by the tensor intrinsic ``tensor_intrin``
        (a registered name or a :class:`tvm.tirx.TensorIntrin`).

        A loop is blockized first (as ``blockize``); a block must be one whose body is the
        tile (e.g. what ``blockize`` returned).
        """
        from ...tirx.tensor_intrin import TensorIntrin  # Lazy: the table lives in tirx.

        prim = "tensorize"
        intrin = tensor_intrin
        if isinstance(tensor_intrin, str):
            intrin = TensorIntrin.get(tensor_intrin)
        if isinstance(block_or_loop, str):
            block_or_loop = self.get_sblock(block_or_loop)
        if isinstance(block_or_loop, LoopRV):
            before = len(self._trace)
            block = self.blockize(block_or_loop, preserve_unit_iters)
            while len(self._trace) > before:  # recorded as one Tensorize instruction
                self._trace.pop()
        elif isinstance(block_or_loop, SBlockRV):
            block = block_or_loop
        else:
            raise TypeError(f"{prim}: expected a LoopRV, SBlockRV or block name, got "
                            f"{type(block_or_loop).__name__}")
        func_name, path = self._block(block, prim)
        realize = path[-1]
        outer = realize.block
        ana = Analyzer()
        regions = {}
        for r in list(outer.reads) + list(outer.writes):
            regions.setdefault(id(r.buffer), r)
        for r in outer.writes:  # a buffer read and written: the written region covers both
            regions[id(r.buffer)] = r
        matcher = _Matcher(regions, ana)
        try:
            d_loops, d_real = _tile_parts(_root_body(intrin.desc), "description")
            t_loops, t_real = _tile_parts(outer.body, "tile")
            if len(d_loops) != len(t_loops):
                raise _Mismatch(f"the tile has {len(t_loops)} loops, the description "
                                f"{len(d_loops)}")
            for dl, tl in zip(d_loops, t_loops):
                if not ana.can_prove_equal(dl.extent, tl.extent):
                    raise _Mismatch(f"loop {tl.loop_var.name} has extent {tl.extent}, the "
                                    f"description's {dl.loop_var.name} {dl.extent}")
            d_store, t_store = d_real.block.body, t_real.block.body
            matcher.indices(d_store.buffer, list(d_store.indices), t_store.buffer,
                            list(t_store.indices))
            matcher.expr(d_store.value, t_store.value)
            d_ivs, t_ivs = d_real.block.iter_vars, t_real.block.iter_vars
            t_by_id = {id(iv.var): iv for iv in t_ivs}
            if len(d_ivs) != len(t_ivs):
                raise _Mismatch(f"the tile's block has {len(t_ivs)} iterators, the "
                                f"description's {len(d_ivs)}")
            for div in d_ivs:
                tv = matcher.vars.get(id(div.var))
                tiv = t_by_id.get(id(tv)) if tv is not None else None
                if tiv is None:
                    raise _Mismatch(f"description iterator {div.var.name} matches no "
                                    "iterator of the tile's block")
                if tiv.iter_type != div.iter_type or not ana.can_prove_equal(
                        tiv.dom.extent, div.dom.extent):
                    raise _Mismatch(f"iterator {tiv.var.name} of the tile differs from "
                                    f"{div.var.name} of the description (kind or extent)")
        except _Mismatch as err:
            raise self._error(prim, f"The tile of block {outer.name_hint!r} does not match the "
                              f"description of the tensor intrinsic: {err}", [outer]) from None
        d_params = [intrin.desc.buffer_map[p] for p in intrin.desc.param_vars]
        i_params = [intrin.impl.buffer_map[p] for p in intrin.impl.param_vars]
        table, match = {}, []
        for d_buf, i_buf in zip(d_params, i_params):
            t_buf = matcher.buffers.get(id(d_buf))
            if t_buf is None:
                raise self._error(prim, f"The description buffer {d_buf.name} is not used by "
                                  "its computation; the intrinsic cannot be bound", [outer])
            new = decl_buffer(i_buf.shape, i_buf.dtype, name=f"{t_buf.name}_1",
                              scope=t_buf.scope() if t_buf.scope() != "global" else "",
                              offset_factor=i_buf.offset_factor,
                              data_alignment=i_buf.data_alignment)
            table[id(i_buf)] = new
            match.append(MatchBufferRegion(new, BufferRegion(t_buf, regions[id(t_buf)].region)))
        body = _RenameBuffers(table).visit_stmt(_root_body(intrin.impl))
        new_outer = outer.replace(body=body, match_buffers=tuple(match))
        self._commit(func_name, replace_stmts(self.mod[func_name].body,
                                              {id(outer): new_outer}))
        name = tensor_intrin if isinstance(tensor_intrin, str) else None
        self._record(prim, kwargs={"block_or_loop": block_or_loop, "tensor_intrin": name,
                                   "preserve_unit_iters": preserve_unit_iters})
