"""Visitors and mutators over Relax IR: ``ExprVisitor``, ``ExprMutator``.

Subclass and override the ``visit_<kind>_`` methods, as in Apache TVM::

    @relax.expr_functor.mutator
    class AddToMul(relax.PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if call.op == tvm.ir.Op.get("relax.add"):
                return relax.op.multiply(*call.args)
            return call

``visit_expr`` dispatches on the node type. The mutator rebuilds a node only when a child
changed (otherwise the very same object comes back) and re-normalizes what it rebuilds
through ``self.builder_``, a :class:`BlockBuilder`, so types are re-inferred. At binding
sites, a binding whose value's type changed gets a fresh variable, recorded in the var
remap, and later uses are rewritten (``set_var_remap`` / ``get_var_remap``).

Bindings are visited in a loop, so a function with tens of thousands of bindings does not
recurse per binding.
"""

from __future__ import annotations

from ..ffi.structural import structural_equal
from ..ir.expr import GlobalVar
from ..ir.op import Op
from ..ir.type import Type
from .block_builder import BlockBuilder
from .expr import (
    Call,
    Constant,
    DataflowBlock,
    DataflowVar,
    DataTypeImm,
    ExternFunc,
    Function,
    If,
    MatchCast,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
    VarBinding,
    _body_ret_ty,
)

__all__ = [
    "ExprFunctor",
    "ExprMutator",
    "ExprVisitor",
    "PyExprMutator",
    "PyExprVisitor",
    "mutator",
    "visitor",
]

_EXPR_METHODS = {
    Constant: "visit_constant_",
    Tuple: "visit_tuple_",
    Var: "visit_var_",
    DataflowVar: "visit_dataflow_var_",
    ShapeExpr: "visit_shape_expr_",
    ExternFunc: "visit_extern_func_",
    GlobalVar: "visit_global_var_",
    Function: "visit_function_",
    Call: "visit_call_",
    SeqExpr: "visit_seq_expr_",
    If: "visit_if_",
    Op: "visit_op_",
    TupleGetItem: "visit_tuple_getitem_",
    PrimValue: "visit_prim_value_",
    StringImm: "visit_string_imm_",
    DataTypeImm: "visit_data_type_imm_",
}


def _method_for(obj, cls):
    name = _EXPR_METHODS.get(cls)
    if name is None:
        for base, base_name in _EXPR_METHODS.items():
            if isinstance(obj, base):
                return base_name
        return None
    return name


class ExprFunctor:
    """Dispatch on the expression type to ``visit_<kind>_``."""

    def visit_expr(self, expr):
        """Call the ``visit_<kind>_`` method of ``expr``'s node type; return its result."""
        name = _method_for(expr, type(expr))
        if name is None:
            return self.visit_unknown_(expr)
        return getattr(self, name)(expr)

    def visit_unknown_(self, expr):
        """Expressions of other IRs (e.g. a TIR PrimFunc) are left alone."""
        return expr


class ExprVisitor(ExprFunctor):
    """Walks every expression, binding and type-annotation expression, changing nothing."""

    def visit_expr(self, expr):
        """Visit ``expr`` through the ``visit_<kind>_`` method of its node type."""
        name = _method_for(expr, type(expr))
        if name is not None:
            getattr(self, name)(expr)

    def visit_span(self, span):
        """Visit a node's source span (nothing by default)."""

    def visit_type(self, ty):
        """Visit the expressions inside a type (tensor shapes given as ShapeExpr or a Var)."""
        shape = getattr(ty, "shape", None)
        if shape is not None and not isinstance(shape, ShapeExpr):
            self.visit_expr(shape)

    # leaves
    def visit_constant_(self, op):
        """Visit a ``relax.Constant`` (its span)."""
        self.visit_span(op.span)

    def visit_var_(self, op):
        """Visit a use of a ``relax.Var`` (its span)."""
        self.visit_span(op.span)

    def visit_dataflow_var_(self, op):
        """Visit a use of a ``relax.DataflowVar`` (its span)."""
        self.visit_span(op.span)

    def visit_shape_expr_(self, op):
        """Visit a ``relax.ShapeExpr`` (its span)."""
        self.visit_span(op.span)

    def visit_extern_func_(self, op):
        """Visit a ``relax.ExternFunc`` (its span)."""
        self.visit_span(op.span)

    def visit_global_var_(self, op):
        """Visit a ``GlobalVar`` (its span)."""
        self.visit_span(op.span)

    def visit_op_(self, op):
        """Visit an operator (``tvm.ir.Op``); nothing by default."""

    def visit_prim_value_(self, op):
        """Visit a ``relax.PrimValue`` (its span)."""
        self.visit_span(op.span)

    def visit_string_imm_(self, op):
        """Visit a ``relax.StringImm`` (its span)."""
        self.visit_span(op.span)

    def visit_data_type_imm_(self, op):
        """Visit a ``relax.DataTypeImm`` (its span)."""
        self.visit_span(op.span)

    # composites
    def visit_tuple_(self, op):
        """Visit each field of a ``relax.Tuple``."""
        for field in op.fields:
            self.visit_expr(field)

    def visit_tuple_getitem_(self, op):
        """Visit the tuple a ``relax.TupleGetItem`` reads from."""
        self.visit_expr(op.tuple_value)

    def visit_call_(self, op):
        """Visit the callee and every argument of a ``relax.Call``."""
        self.visit_expr(op.op)
        for arg in op.args:
            self.visit_expr(arg)

    def visit_if_(self, op):
        """Visit the condition and both branches of a ``relax.If``."""
        self.visit_expr(op.cond)
        self.visit_expr(op.true_branch)
        self.visit_expr(op.false_branch)

    def visit_function_(self, op):
        """Visit a function's parameters (as definitions) and its body."""
        for param in op.params:
            self.visit_var_def(param)
        if op.body is not None:
            self.visit_expr(op.body)

    def visit_seq_expr_(self, op):
        """Visit each binding block of a ``relax.SeqExpr``, then its result."""
        for block in op.blocks:
            self.visit_binding_block(block)
        self.visit_expr(op.body)

    # blocks and bindings
    def visit_binding_block(self, block):
        """Visit a block through ``visit_dataflow_block_`` or ``visit_binding_block_``."""
        if isinstance(block, DataflowBlock):
            self.visit_dataflow_block_(block)
        else:
            self.visit_binding_block_(block)

    def visit_binding_block_(self, block):
        """Visit each binding of a (non-dataflow) binding block."""
        for binding in block.bindings:
            self.visit_binding(binding)

    def visit_dataflow_block_(self, block):
        """Visit each binding of a dataflow block."""
        for binding in block.bindings:
            self.visit_binding(binding)

    def visit_binding(self, binding):
        """Visit a binding through ``visit_match_cast_`` or ``visit_var_binding_``."""
        if isinstance(binding, MatchCast):
            self.visit_match_cast_(binding)
        else:
            self.visit_var_binding_(binding)

    def visit_var_binding_(self, binding):
        """Visit the bound value, then the variable it defines."""
        self.visit_expr(binding.value)
        self.visit_var_def(binding.var)

    def visit_match_cast_(self, binding):
        """Visit the value, the target type, then the variable the cast defines."""
        self.visit_expr(binding.value)
        self.visit_type(binding.ty)
        self.visit_var_def(binding.var)

    def visit_var_def(self, var):
        """Visit a definition through ``visit_dataflow_var_def_`` or ``visit_var_def_``."""
        if isinstance(var, DataflowVar):
            self.visit_dataflow_var_def_(var)
        else:
            self.visit_var_def_(var)

    def visit_var_def_(self, var):
        """Visit the definition of a ``relax.Var`` (its span)."""
        self.visit_span(var.span)

    def visit_dataflow_var_def_(self, var):
        """Visit the definition of a ``relax.DataflowVar`` (its span)."""
        self.visit_span(var.span)


class ExprMutator(ExprFunctor):
    """Rebuilds changed expressions and re-normalizes them through ``self.builder_``.

    Parameters
    ----------
    mod : IRModule, optional
        Module whose functions calls may refer to (given to the builder).
    """

    def __init__(self, mod=None):
        self.builder_ = BlockBuilder(mod)
        self.var_remap_: dict = {}

    # --- helpers TVM users call -------------------------------------------------------------
    def visit_expr(self, expr):
        """Visit ``expr`` and normalize the result."""
        name = _method_for(expr, type(expr))
        result = expr if name is None else getattr(self, name)(expr)
        return self.builder_.normalize(result)

    def visit_expr_post_order(self, expr):
        """Rebuild ``expr`` over its visited children with the *default* rule for its kind.

        The user's override for ``expr``'s own kind is bypassed (children still go through
        ``visit_expr``), so an override can call this on the node it was given and then
        rewrite the result, as in TVM::

            def visit_call_(self, call):
                call = self.visit_expr_post_order(call)
                ...
        """
        name = _method_for(expr, type(expr))
        result = expr if name is None else getattr(ExprMutator, name)(self, expr)
        return self.builder_.normalize(result)

    def set_var_remap(self, var, new_var) -> None:
        """Make later uses of ``var`` refer to ``new_var``."""
        self.var_remap_[var] = new_var

    def get_var_remap(self, var):
        """The variable that replaces ``var`` (see :meth:`set_var_remap`), or None."""
        return self.var_remap_.get(var)

    def lookup_binding(self, var):
        """The value bound to ``var`` (by this mutator's builder), or None."""
        return self.builder_.lookup_binding(var)

    def with_struct_info(self, var, ty):
        """``var`` if it already has type ``ty``, else a fresh var of the same kind and name."""
        if var.ty is ty or (var.ty is not None and structural_equal(var.ty, ty)):
            return var
        return type(var)(var.name_hint, ty, var.span)

    with_ty = with_struct_info

    def visit_with_new_scope(self, expr):
        """Visit ``expr`` (a function body or branch) in its own binding scope."""
        self.builder_.begin_binding_block()
        try:
            result = self.visit_expr(expr)
        finally:
            prologue = self.builder_.end_block()
        if prologue.bindings:
            if isinstance(result, SeqExpr):
                result = SeqExpr(tuple(result.blocks) + (prologue,), result.body)
            else:
                result = SeqExpr([prologue], result)
            result = self.builder_.normalize(result)
        return result

    def visit_span(self, span):
        """Return the span to keep on a rebuilt node (the same one by default)."""
        return span

    def visit_type(self, ty: Type) -> Type:
        """Rewrite variables used inside a type (a tensor shape given by a shape var)."""
        shape = getattr(ty, "shape", None)
        if isinstance(shape, Var) and shape in self.var_remap_:
            return ty.replace(shape=self.var_remap_[shape])
        return ty

    # --- leaves -----------------------------------------------------------------------------
    def visit_constant_(self, op):
        """Rewrite a ``relax.Constant`` (kept as is by default)."""
        return op

    def visit_var_(self, op):
        """Rewrite a use of a ``relax.Var``: its remapped variable, if any."""
        return self.var_remap_.get(op, op)

    def visit_dataflow_var_(self, op):
        """Rewrite a use of a ``relax.DataflowVar``: its remapped variable, if any."""
        return self.var_remap_.get(op, op)

    def visit_shape_expr_(self, op):
        """Rewrite a ``relax.ShapeExpr`` (kept as is by default)."""
        return op

    def visit_extern_func_(self, op):
        """Rewrite a ``relax.ExternFunc`` (kept as is by default)."""
        return op

    def visit_global_var_(self, op):
        """Rewrite a ``GlobalVar`` (kept as is by default)."""
        return op

    def visit_op_(self, op):
        """Rewrite an operator (kept as is by default)."""
        return op

    def visit_prim_value_(self, op):
        """Rewrite a ``relax.PrimValue`` (kept as is by default)."""
        return op

    def visit_string_imm_(self, op):
        """Rewrite a ``relax.StringImm`` (kept as is by default)."""
        return op

    def visit_data_type_imm_(self, op):
        """Rewrite a ``relax.DataTypeImm`` (kept as is by default)."""
        return op

    # --- composites ------------------------------------------------------------------------
    def visit_tuple_(self, op):
        """Rewrite a ``relax.Tuple``: rebuilt when a field changed, else the same node."""
        fields = [self.visit_expr(f) for f in op.fields]
        if all(a is b for a, b in zip(fields, op.fields)):
            return op
        return Tuple(fields, span=op.span)

    def visit_tuple_getitem_(self, op):
        """Rewrite a ``relax.TupleGetItem``: rebuilt when its tuple changed."""
        value = self.visit_expr(op.tuple_value)
        if value is op.tuple_value:
            return op
        return TupleGetItem(value, op.index, span=op.span)

    def visit_call_(self, op):
        """Rewrite a ``relax.Call``: rebuilt when its callee, an argument or a type changed."""
        new_op = self.visit_expr(op.op)
        args = [self.visit_expr(a) for a in op.args]
        ty_args = [self.visit_type(t) for t in op.ty_args]
        if (
            new_op is op.op
            and all(a is b for a, b in zip(args, op.args))
            and all(a is b for a, b in zip(ty_args, op.ty_args))
        ):
            return op
        return Call(new_op, args, op.attrs, ty_args, span=op.span)

    def visit_if_(self, op):
        """Rewrite a ``relax.If``; each branch is visited in its own binding scope."""
        cond = self.visit_expr(op.cond)
        true_branch = self.visit_with_new_scope(op.true_branch)
        false_branch = self.visit_with_new_scope(op.false_branch)
        if cond is op.cond and true_branch is op.true_branch and false_branch is op.false_branch:
            return op
        return If(cond, true_branch, false_branch, span=op.span)

    def visit_function_(self, op):
        """Rewrite a function: parameters (remapped if replaced), body in a new scope."""
        params = []
        for param in op.params:
            new_param = self.visit_var_def(param)
            if new_param is not param:
                self.set_var_remap(param, new_param)
            params.append(new_param)
        self.builder_.begin_scope(params)
        try:
            body = None if op.body is None else self.visit_with_new_scope(op.body)
        finally:
            self.builder_.end_scope()
        ret_ty = None if op.ret_ty is None else self.visit_type(op.ret_ty)
        if (
            all(a is b for a, b in zip(params, op.params))
            and body is op.body
            and ret_ty is op.ret_ty
        ):
            return op
        if ret_ty is not None and body is not None and getattr(body, "ty", None) is not None:
            # As TVM's ExprMutator: the declared return type is kept only while the body's
            # type is (provably) a base of it; otherwise the body's type replaces it.
            from .analysis.type_analysis import is_base_of  # lazy: analysis imports this

            if not is_base_of(body.ty, ret_ty):
                ret_ty = _body_ret_ty(params, body.ty)
        return Function(params, body, ret_ty, op.is_pure, op.attrs, span=op.span)

    def visit_seq_expr_(self, op):
        """Rewrite a ``relax.SeqExpr``: its blocks (empty ones dropped), then its result."""
        blocks = []
        changed = False
        for block in op.blocks:
            new_block = self.visit_binding_block(block)
            changed |= new_block is not block
            if new_block.bindings:
                blocks.append(new_block)
            else:
                changed = True
        self.builder_.begin_binding_block()
        try:
            body = self.visit_expr(op.body)
        finally:
            prologue = self.builder_.end_block()
        if prologue.bindings:
            blocks.append(prologue)
            changed = True
        if not changed and body is op.body:
            return op
        return SeqExpr(blocks, body, span=op.span)

    # --- blocks and bindings ---------------------------------------------------------------
    def visit_binding_block(self, block):
        """Rewrite a dataflow or binding block; returns the (new or same) block."""
        if isinstance(block, DataflowBlock):
            return self.visit_dataflow_block_(block)
        return self.visit_binding_block_(block)

    def visit_binding_block_(self, block):
        """Re-emit a binding block's bindings; the same block when nothing changed."""
        self.builder_.begin_binding_block()
        return self._finish_block(block)

    def visit_dataflow_block_(self, block):
        """Re-emit a dataflow block's bindings; the same block when nothing changed."""
        self.builder_.begin_dataflow_block()
        return self._finish_block(block)

    def _finish_block(self, block):
        try:
            for binding in block.bindings:
                self.visit_binding(binding)
        finally:
            new_block = self.builder_.end_block()
        old = block.bindings
        if len(new_block.bindings) == len(old) and all(
            a is b for a, b in zip(new_block.bindings, old)
        ):
            return block
        return new_block

    def visit_binding(self, binding):
        """Re-emit a binding through ``visit_match_cast_`` or ``visit_var_binding_``."""
        if isinstance(binding, MatchCast):
            self.visit_match_cast_(binding)
        else:
            self.visit_var_binding_(binding)

    def visit_var_binding_(self, binding):
        """Visit the value and emit the binding (a fresh variable if its type changed)."""
        value = self.visit_expr(binding.value)
        self._reemit(binding, value)

    def _reemit(self, binding, value):
        """Emit ``binding`` again (unchanged when possible), remapping its var if needed."""
        var = self.visit_var_def(binding.var)
        if value is binding.value and var is binding.var:
            self.builder_.emit_normalized(binding)
            return
        new_var = self.with_struct_info(var, value.ty) if value.ty is not None else var
        if new_var is not binding.var:
            self.set_var_remap(binding.var, new_var)
        self.builder_.emit_normalized(VarBinding(new_var, value, span=binding.span))

    def visit_match_cast_(self, binding):
        """Visit value and type and emit the cast (a fresh variable if its type changed)."""
        value = self.visit_expr(binding.value)
        ty = self.visit_type(binding.ty)
        var = self.visit_var_def(binding.var)
        if value is binding.value and ty is binding.ty and var is binding.var:
            self.builder_.emit_normalized(binding)
            return
        new_var = self.with_struct_info(var, ty)
        if new_var is not binding.var:
            self.set_var_remap(binding.var, new_var)
        self.builder_.emit_normalized(MatchCast(new_var, value, ty, span=binding.span))

    def visit_var_def(self, var):
        """Rewrite a definition (``visit_dataflow_var_def_`` or ``visit_var_def_``)."""
        if isinstance(var, DataflowVar):
            return self.visit_dataflow_var_def_(var)
        return self.visit_var_def_(var)

    def visit_var_def_(self, var):
        """Rewrite the definition of a ``relax.Var`` (kept as is by default)."""
        return var

    def visit_dataflow_var_def_(self, var):
        """Rewrite the definition of a ``relax.DataflowVar`` (kept as is by default)."""
        return var


class PyExprVisitor(ExprVisitor):
    """The base class TVM users subclass (with ``@relax.expr_functor.visitor``)."""


class PyExprMutator(ExprMutator):
    """The base class TVM users subclass (with ``@relax.expr_functor.mutator``)."""


def visitor(visitor_cls=None):
    """Class decorator for Python visitors (kept for TVM compatibility; checks the base)."""

    def wrap(cls):
        if not issubclass(cls, ExprVisitor):
            raise TypeError(f"@visitor expects a subclass of PyExprVisitor, got {cls.__name__}")
        return cls

    return wrap(visitor_cls) if visitor_cls is not None else wrap


def mutator(mutator_cls=None):
    """Class decorator for Python mutators (kept for TVM compatibility; checks the base)."""

    def wrap(cls):
        if not issubclass(cls, ExprMutator):
            raise TypeError(f"@mutator expects a subclass of PyExprMutator, got {cls.__name__}")
        return cls

    return wrap(mutator_cls) if mutator_cls is not None else wrap
