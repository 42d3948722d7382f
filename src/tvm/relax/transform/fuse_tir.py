"""``FuseTIR``: each ``Primitive`` Relax function made by ``FuseOps`` becomes one PrimFunc.

The member PrimFuncs' bodies are concatenated in call order inside one root block: the
group's inputs and final output are the new PrimFunc's buffers, each intermediate result is
a block-local buffer (``<name>_intermediate``, ``T.sblock_alloc_buffer``), and symbolic dims
are unified through the Relax types. The fused PrimFunc replaces the Relax function under
the same GlobalVar, its calls become ``R.call_tir``, and the member PrimFuncs no longer used
are removed.

Before::

    @R.function(private=True)
    def fused_add_relu(x, y):
        R.func_attr({"Primitive": True})
        with R.dataflow():
            lv = R.call_tir(cls.add, (x, y), out_ty=R.Tensor((2, 3), dtype="float32"))
            gv = R.call_tir(cls.relu, (lv,), out_ty=R.Tensor((2, 3), dtype="float32"))
            R.output(gv)
        return gv

    # main
    gv = cls.fused_add_relu(x, y)

After::

    @T.prim_func(private=True)
    def fused_add_relu(x: T.Buffer(...), y: T.Buffer(...), compute_intermediate: T.Buffer(...)):
        T_add_intermediate = T.sblock_alloc_buffer((2, 3))
        ...  # the add block writing T_add_intermediate, then the relu block

    # main
    gv = R.call_tir(cls.fused_add_relu, (x, y), out_ty=R.Tensor((2, 3), dtype="float32"))
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ...tirx import expr as tir_expr
from ...tirx import stmt as tir_stmt
from ...tirx.function import PrimFunc
from ...tirx.stmt_functor import StmtExprMutator
from ..block_builder import BlockBuilder
from ..expr import Call, Tuple, VarBinding
from ..expr_functor import ExprMutator
from ..op.base import call_tir
from ..ty import TensorType
from ._utils import is_op, relax_functions

__all__ = ["FuseTIR"]


class _Rebind(StmtExprMutator):
    """Replace buffers (by identity) and variables in a member PrimFunc's body."""

    def __init__(self, buffers, var_map):
        self.buffers = buffers  # id(old buffer) -> new buffer
        self.var_map = var_map  # old tir Var -> PrimExpr

    def visit_var_(self, op):
        return self.var_map.get(op, op)

    def visit_expr(self, expr):
        if isinstance(expr, tir_expr.Var):
            return self.var_map.get(expr, expr)
        return super().visit_expr(expr)

    def _buffer(self, buf):
        new = self.buffers.get(id(buf))
        if new is not None:
            return new
        shape = tuple(self.visit_expr(d) for d in buf.shape)
        new = buf.replace(shape=shape) if any(a is not b for a, b in zip(shape, buf.shape)) else buf
        self.buffers[id(buf)] = new
        return new

    def visit_buffer_def(self, buffer):
        return self._buffer(buffer)

    def visit_buffer_use(self, buffer):
        return self._buffer(buffer)


def _tensor_dims(ty):
    return list(ty.shape.values)


def _new_buffer(name, ty):
    from ... import tirx

    return tirx.decl_buffer(_tensor_dims(ty), ty.dtype, name=name)


def _root_parts(prim):
    """``(body statement, alloc_buffers)`` of a PrimFunc made by create_prim_func."""
    body = prim.body
    if isinstance(body, tir_stmt.SBlockRealize) and not body.block.iter_vars:
        block = body.block
        return block.body, list(block.alloc_buffers)
    return body, []


def _fuse(mod, func):
    """The fused PrimFunc of a Primitive Relax function (parameters: inputs, then output)."""
    from ... import tirx

    params, buffer_map, buffers_of = [], {}, {}
    for param in func.params:
        buf = _new_buffer(param.name_hint, param.ty)
        handle = tirx.Var(f"{param.name_hint}_handle", "handle")
        params.append(handle)
        buffer_map[handle] = buf
        buffers_of[param] = buf
    bindings = [b for block in func.body.blocks for b in block.bindings]
    stmts, allocs = [], []
    out_var = func.body.body
    out_buffer = None
    for binding in bindings:
        call = binding.value
        member = mod[call.args[0]]
        inputs = list(call.args[1].fields)
        member_params = list(member.params)
        var_map, buf_map = {}, {}
        for relax_arg, handle in zip(inputs + [binding.var], member_params):
            old = member.buffer_map[handle]
            if relax_arg is binding.var:
                base = old.name
                if binding.var is out_var:
                    # TVM names the fused output buffer like an intermediate one too.
                    new = _new_buffer(f"{base}_intermediate", binding.var.ty)
                    out_buffer = new
                else:
                    new = _new_buffer(f"{base}_intermediate", binding.var.ty)
                    allocs.append(new)
                buffers_of[binding.var] = new
            else:
                new = buffers_of[relax_arg]
            buf_map[id(old)] = new
            for old_dim, new_dim in zip(old.shape, new.shape):
                if isinstance(old_dim, tir_expr.Var) and old_dim not in var_map:
                    var_map[old_dim] = new_dim
        body, member_allocs = _root_parts(member)
        rebind = _Rebind(buf_map, var_map)
        stmts.append(rebind(body))
        allocs.extend(rebind._buffer(b) for b in member_allocs)
    handle = tirx.Var(f"{out_buffer.name}_handle", "handle")
    params.append(handle)
    buffer_map[handle] = out_buffer
    body = stmts[0] if len(stmts) == 1 else tir_stmt.SeqStmt(stmts)
    root = tir_stmt.SBlock([], [], [], "root", body, alloc_buffers=allocs)
    realize = tir_stmt.SBlockRealize([], tir_expr.IntImm("bool", 1), root)
    return PrimFunc(params, realize, buffer_map=buffer_map, attrs={"tirx.noalias": True})


def _tensor_only(func):
    """Whether every parameter and every kernel argument of the group is a tensor."""
    if not all(isinstance(p.ty, TensorType) for p in func.params):
        return False
    return all(
        isinstance(arg.ty, TensorType)
        for block in func.body.blocks
        for b in block.bindings
        for arg in b.value.args[1].fields
    )


class _ReplaceCalls(ExprMutator):
    def __init__(self, mod, fused):
        super().__init__(mod)
        self.fused = fused  # GlobalVars whose Relax function became a fused PrimFunc

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if not isinstance(call, Call) or call.op not in self.fused:
            return call
        # The call's own type is in the caller's symbolic vars (the Relax function had its own).
        return call_tir(call.op, Tuple(list(call.args)), call.ty)


@module_pass(opt_level=0, name="FuseTIR")
class FuseTIR:
    """Merge the PrimFuncs of each ``Primitive`` Relax function into one PrimFunc."""

    def transform_module(self, mod, ctx):
        """Merge each ``Primitive`` Relax function made of ``call_tir`` bindings over tensors
        into one PrimFunc under the same GlobalVar (other groups stay as they are).

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The module with the fused PrimFuncs; ``mod`` itself when it has no primitive function.
        """
        primitives = [
            (gv, f)
            for gv, f in relax_functions(mod)
            if f.attrs is not None and f.attrs.get("Primitive")
        ]
        if not primitives:
            return mod
        bb = BlockBuilder(mod)
        fused = set()
        for gvar, func in primitives:
            if not all(
                isinstance(b, VarBinding) and is_op(b.value, "relax.call_tir")
                for block in func.body.blocks
                for b in block.bindings
            ):
                continue  # not a group made of call_tir bindings: left to the VM as a call
            if not _tensor_only(func):
                # A member taking a scalar (``R.prim_value(n)``, an ``R.Prim`` parameter) is
                # not merged yet: the group stays a call the VM runs kernel by kernel.
                continue
            # The fused PrimFunc takes the Relax function's place under the same GlobalVar.
            bb.update_func(gvar, _fuse(mod, func))
            fused.add(gvar)
        replacer = _ReplaceCalls(bb.get(), fused)
        for gvar, func in relax_functions(bb.get()):
            new_func = replacer.visit_expr(func)
            if new_func is not func:
                replacer.builder_.update_func(gvar, new_func)
        return _remove_unused_prim_funcs(replacer.builder_.get())


def _remove_unused_prim_funcs(mod):
    """Drop the PrimFuncs no Relax function refers to any more (the fused members)."""
    from ..expr_functor import ExprVisitor

    used = set()

    class _Uses(ExprVisitor):
        def visit_global_var_(self, op):
            used.add(op.name_hint)

    for _, func in relax_functions(mod):
        _Uses().visit_expr(func)
    new_mod = mod.clone()
    for gvar, func in list(mod.functions.items()):
        if isinstance(func, PrimFunc) and gvar.name_hint not in used:
            new_mod.remove(gvar)
    return new_mod
