"""``create_prim_func``: lower tensor expressions to an s_tir PrimFunc (one SBlock per compute).

The result matches what Apache TVM 0.27 prints for the same computes::

    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((128, 128), "float32"), ..., C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tirx.noalias": True})
        # with T.sblock("root"):
        for i, j, k in T.grid(128, 128, 128):
            with T.sblock("C"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                T.reads(A[v_i, v_k], B[v_j, v_k])
                T.writes(C[v_i, v_j])
                with T.init():
                    C[v_i, v_j] = T.float32(0.0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_j, v_k]

Computes that are not arguments become ``alloc_buffers`` of the root block. Attributes:
``global_symbol = "main"``, ``tirx.noalias = True``, ``s_tir = True``.
"""

from __future__ import annotations

from ..ir.expr import PrimExpr, Range
from ..s_tir.access_region import infer_sblock_regions
from ..tirx.buffer import decl_buffer
from ..tirx.expr import Cast, IntImm, Var
from ..tirx.expr_functor import ExprMutator
from ..tirx.function import PrimFunc
from ..tirx.generic import cast
from ..tirx.stmt import (
    Bind,
    BufferLoad,
    BufferStore,
    For,
    ForKind,
    IfThenElse,
    IterVar,
    SBlock,
    SBlockRealize,
    SeqStmt,
)
from ..tirx.stmt_functor import StmtExprMutator, substitute
from .reduction import Reduce
from .tensor import ComputeOp, ExternOp, PlaceholderOp, Tensor

__all__ = ["create_prim_func"]


def _post_order_ops(outputs):
    """Operations reachable from ``outputs``, producers before consumers."""
    order: list = []
    seen: set = set()
    for out in outputs:
        stack = [(out.op, False)]
        while stack:
            op, expanded = stack.pop()
            if expanded:
                if id(op) not in seen:
                    seen.add(id(op))
                    order.append(op)
                continue
            if id(op) in seen:
                continue
            stack.append((op, True))
            for t in reversed(op.input_tensors):
                if id(t.op) not in seen:
                    stack.append((t.op, False))
    return order


class _LowerLoads(ExprMutator):
    def __init__(self, lowering, vmap):
        self.lowering = lowering
        self.vmap = vmap

    def visit_var_(self, op):
        new = self.vmap.get(op)
        if new is None:
            return op
        # With index_dtype_override the block variable is wider than the axis variable.
        return new if new.dtype == op.dtype else Cast(op.dtype, new)

    def visit_producer_load_(self, op):
        buf = self.lowering.buffer_of(op.producer)
        indices = []
        for i in op.indices:
            direct = self.vmap.get(i) if isinstance(i, Var) else None
            indices.append(direct if direct is not None else self.visit_expr(i))
        return BufferLoad(buf, indices)

    def visit_reduce_(self, op):
        raise ValueError("create_prim_func: a reduction may only be the whole body of a compute")


class _RemapBuffers(StmtExprMutator):
    def __init__(self, remap):
        self.remap = remap

    def visit_buffer_use(self, buffer):
        return self.remap.get(id(buffer), buffer)

    visit_buffer_def = visit_buffer_use


class _Lowering:
    def __init__(self, index_dtype_override):
        self.index_dtype = index_dtype_override
        self.buffers: dict = {}  # (id(op), value_index) -> Buffer
        self.block_names: set = set()

    def block_name(self, name):
        """``name``, or ``name_1``, ``name_2``... when taken: block names are unique (TVM)."""
        fresh, k = name, 0
        while fresh in self.block_names:
            k += 1
            fresh = f"{name}_{k}"
        self.block_names.add(fresh)
        return fresh

    def shape(self, shape):
        if self.index_dtype is None:
            return shape
        return tuple(cast(s, self.index_dtype) if isinstance(s, PrimExpr) else s for s in shape)

    def buffer_of(self, tensor: Tensor):
        key = (id(tensor.op), tensor.value_index)
        buf = self.buffers.get(key)
        if buf is None:
            if isinstance(tensor.op, ExternOp):
                # An extern's outputs are the buffers its statement writes.
                buf = tensor.op.output_placeholders[tensor.value_index]
            else:
                # Outputs of a multi-output compute are named like TVM's: ``C_v0``, ``C_v1``.
                name = tensor.name.replace(".", "_")
                buf = decl_buffer(self.shape(tensor.shape), tensor.dtype, name)
            self.buffers[key] = buf
        return buf

    def extern_block(self, op: ExternOp):
        """The extern's statement in a block, its input placeholders bound to real buffers."""
        remap = {}
        for tensor, placeholder in zip(op.inputs, op.input_placeholders):
            buf = self.buffer_of(tensor)
            if buf is not placeholder:
                remap[id(placeholder)] = buf
        body = _RemapBuffers(remap).visit_stmt(op.body) if remap else op.body
        block = SBlock([], [], [], self.block_name(op.name), body,
                       annotations=dict(op.attrs) if op.attrs else None)
        return SBlockRealize([], True, block)

    def lower_loads(self, expr, vmap):
        """Replace axis variables by block variables and tensor reads by buffer loads."""
        return _LowerLoads(self, vmap).visit_expr(expr)

    def lower_simplified(self, expr, vmap):
        """``lower_loads``, then simplified as TVM 0.27's te lowering does (``i > j`` becomes
        ``v_j < v_i``, ``A[j + 1 - 1]`` becomes ``A[v_j]``); block variable ranges are not
        used (``v_i < 4`` stays), as in TVM."""
        from ..arith import Analyzer  # local: arith is only needed while lowering a compute

        return Analyzer().simplify(self.lower_loads(expr, vmap))

    def compute_block(self, op: ComputeOp):
        """The loop nest of a compute: one SBlock per output, sharing the loops."""
        is_reduce = isinstance(op.body[0], Reduce)
        axes = list(op.axis) + (list(op.body[0].axis) if is_reduce else [])
        loops = []
        for iv in axes:
            dtype = iv.var.dtype if self.index_dtype is None else self.index_dtype
            dom = iv.dom
            if self.index_dtype is not None:
                dom = Range.from_min_extent(cast(dom.min, dtype), cast(dom.extent, dtype))
            # As TVM: loop and block ranges are simplified (``4 * c // 4`` loops to ``c``);
            # buffer shapes keep their expressions.
            dom = Range.from_min_extent(_simplify(dom.min), _simplify(dom.extent))
            loops.append((Var(iv.var.name, dtype), dom))
        if is_reduce and op.num_outputs > 1:
            # A reduction with several values (argmax's index and value) is one block.
            realizes = [self._multi_reduce_block(op, axes, loops)]
        else:
            realizes = [self._block(op, index, axes, loops) for index in range(op.num_outputs)]
        nest = realizes[0] if len(realizes) == 1 else SeqStmt(realizes)
        for loop_var, dom in reversed(loops):
            nest = For(loop_var, dom.min, dom.extent, ForKind.SERIAL, nest)
        return nest

    @staticmethod
    def _block_vars(axes, loops):
        block_ivs, vmap = [], {}
        for iv, (loop_var, dom) in zip(axes, loops):
            block_var = Var("v_" + iv.var.name, loop_var.dtype)
            kind = IterVar.CommReduce if iv.iter_type == IterVar.CommReduce else IterVar.DataPar
            block_ivs.append(IterVar(dom, block_var, kind))
            vmap[iv.var] = block_var
        return block_ivs, vmap

    def _multi_reduce_block(self, op, axes, loops):
        """One block for a reduction with several values, as TVM lowers it: each output is
        initialized with its identity; the combined values are bound first
        (``v_<buffer>: T.let = ...``, all reading the old accumulators), then stored."""
        bufs = [self.buffer_of(op.output(i)) for i in range(op.num_outputs)]
        body = op.body[0]
        comb = body.combiner
        block_ivs, vmap = self._block_vars(axes, loops)
        out_idx = [vmap[iv.var] for iv in op.axis]
        smap = {lhs: BufferLoad(buf, out_idx) for lhs, buf in zip(comb.lhs, bufs)}
        for rhs, src in zip(comb.rhs, body.source):
            smap[rhs] = self.lower_simplified(src, vmap)
        temps = [Var("v_" + buf.name, buf.dtype) for buf in bufs]
        binds = [Bind(t, substitute(res, smap)) for t, res in zip(temps, comb.result)]
        stmt = SeqStmt(binds + [BufferStore(b, t, out_idx) for b, t in zip(bufs, temps)])
        cond = body.condition
        if not (isinstance(cond, IntImm) and cond.value):
            stmt = IfThenElse(self.lower_loads(cond, vmap), stmt)
        identities = body.init if body.init else comb.identity_element
        init = SeqStmt([BufferStore(b, self.lower_loads(v, vmap), out_idx)
                        for b, v in zip(bufs, identities)])
        reads, writes = infer_sblock_regions(stmt, exclude_written_from_reads=True)
        block = SBlock(block_ivs, reads, writes, self.block_name(op.name), stmt, init=init,
                       annotations=dict(op.attrs) if op.attrs else None)
        return SBlockRealize([lv for lv, _ in loops], True, block)

    def _block(self, op, index, axes, loops):
        out_buf = self.buffer_of(op.output(index))
        body = op.body[index]
        block_ivs, vmap = self._block_vars(axes, loops)
        out_idx = [vmap[iv.var] for iv in op.axis]
        init = None
        if isinstance(body, Reduce):
            comb = body.combiner
            lhs = BufferLoad(out_buf, out_idx)
            source = self.lower_simplified(body.source[0], vmap)
            update = substitute(comb.result[0], {comb.lhs[0]: lhs, comb.rhs[0]: source})
            stmt = BufferStore(out_buf, update, out_idx)
            cond = body.condition
            if not (isinstance(cond, IntImm) and cond.value):
                stmt = IfThenElse(self.lower_loads(cond, vmap), stmt)
            identity = body.init[0] if body.init else comb.identity_element[0]
            identity = self.lower_loads(identity, vmap)
            init = BufferStore(out_buf, identity, out_idx)
        else:
            stmt = BufferStore(out_buf, self.lower_simplified(body, vmap), out_idx)
        # As TVM's te lowering: the output is not listed among the reads of its own update.
        reads, writes = infer_sblock_regions(stmt, exclude_written_from_reads=True)
        name = self.block_name(op.name if op.num_outputs == 1 else f"{op.name}_v{index}")
        block = SBlock(block_ivs, reads, writes, name, stmt, init=init,
                       annotations=dict(op.attrs) if op.attrs else None)
        return SBlockRealize([lv for lv, _ in loops], True, block)


def _simplify(expr):
    if isinstance(expr, IntImm):
        return expr
    from ..arith import Analyzer  # local: arith is only needed while lowering a compute

    return Analyzer().simplify(expr)


def create_prim_func(ops, index_dtype_override=None) -> PrimFunc:
    """Lower te tensors to an s_tir ``PrimFunc`` with one SBlock per compute.

    Parameters
    ----------
    ops : list of Tensor or Var
        The function's arguments in order: input and output tensors, and scalar variables.
    index_dtype_override : str, optional
        Cast shapes and loop variables to this index dtype (``"int64"``).

    Examples
    --------
    >>> from tvm import te
    >>> A = te.placeholder((4,), name="A")
    >>> B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    >>> f = te.create_prim_func([A, B])
    >>> f.attrs["global_symbol"], f.body.block.body.body.block.name_hint
    ('main', 'B')
    """
    ops = list(ops)
    tensors = [t for t in ops if isinstance(t, Tensor)]
    low = _Lowering(index_dtype_override)
    # As in TVM, a tensor that an extern reads is stored in that extern's input buffer (the
    # parameter of an ``extern_primfunc`` keeps its name).
    for op in _post_order_ops(tensors):
        if isinstance(op, ExternOp):
            for tensor, placeholder in zip(op.inputs, op.input_placeholders):
                low.buffers[(id(tensor.op), tensor.value_index)] = placeholder
    params = []
    for arg in ops:
        if isinstance(arg, Tensor):
            params.append(low.buffer_of(arg))
        elif isinstance(arg, Var):
            params.append(arg)
        else:
            raise TypeError(
                f"create_prim_func arguments must be te.Tensor or tirx.Var, got {type(arg)}"
            )
    arg_keys = {(id(t.op), t.value_index) for t in tensors}
    stmts, allocs = [], []
    for op in _post_order_ops(tensors):
        if isinstance(op, PlaceholderOp):
            if (id(op), 0) not in arg_keys:
                raise ValueError(
                    f"create_prim_func: placeholder {op.name} is used but is not in the "
                    "argument list"
                )
            continue
        if isinstance(op, ExternOp):
            stmts.append(low.extern_block(op))
        elif isinstance(op, ComputeOp):
            stmts.append(low.compute_block(op))
        else:
            raise TypeError(f"create_prim_func does not support {type(op).__name__} yet")
        for index in range(op.num_outputs):
            if (id(op), index) not in arg_keys:
                allocs.append(low.buffer_of(op.output(index)))
    if not stmts:
        raise ValueError("create_prim_func: the arguments contain no compute to lower")
    attrs = {"global_symbol": "main", "tirx.noalias": True, "s_tir": True}
    if len(stmts) == 1 and not allocs and isinstance(stmts[0], SBlockRealize):
        # A lone extern block is the root block itself, as TVM prints it.
        return PrimFunc(params, stmts[0], attrs=attrs)
    body = stmts[0] if len(stmts) == 1 else SeqStmt(stmts)
    root = SBlock([], [], [], "root", body, alloc_buffers=allocs)
    return PrimFunc(params, SBlockRealize([], True, root), attrs=attrs)

