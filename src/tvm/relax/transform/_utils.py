"""Helpers shared by the Relax passes of this package."""

from __future__ import annotations

from ...ir.op import Op
from ..block_builder import BlockBuilder
from ..expr import Call, Function, Var
from ..expr_functor import ExprVisitor


def relax_functions(mod):
    """``[(gvar, func)]`` of the module's Relax functions (PrimFuncs and externs skipped)."""
    return [(gv, f) for gv, f in mod.functions.items() if isinstance(f, Function)]


def rewrite_relax_functions(mod, rewrite):
    """Apply ``rewrite(func, bb) -> func`` to every Relax function; the rewritten module.

    Functions that come back unchanged (the same object) are left as they are.
    """
    bb = BlockBuilder(mod)
    for gvar, func in relax_functions(mod):
        new_func = rewrite(func, bb)
        if new_func is not func:
            bb.update_func(gvar, new_func)
    return bb.get()


def is_op(expr, name: str) -> bool:
    """Whether ``expr`` is a call of the op ``name``."""
    return isinstance(expr, Call) and isinstance(expr.op, Op) and expr.op.name == name


def map_functions(mod, mutator_factory):
    """Run ``mutator_factory(mod)`` over every Relax function; the mutator's module back.

    The mutator's builder holds a copy of ``mod``; functions it changes are updated there, and
    any functions it adds (PrimFuncs) come along.
    """
    mutator = mutator_factory(mod)
    for gvar, func in relax_functions(mod):
        new_func = mutator.visit_expr(func)
        if new_func is not func:
            mutator.builder_.update_func(gvar, new_func)
    return mutator.builder_.get()


def with_attr(func, key, value):
    """``func`` with one more attribute."""
    return func.with_attr(key, value)


def free_relax_vars(expr):
    """The Relax variables used in ``expr`` (not descending into nested functions' bodies)."""
    collect = _CollectVars()
    collect.visit_expr(expr)
    return [v for v in collect.found if isinstance(v, Var)]


class _CollectVars(ExprVisitor):
    """The variables ``free_relax_vars`` returns, in order of first use.

    A module-level class: passes call ``free_relax_vars`` once per binding, and defining the
    class inside the function cost more than the visit itself.
    """

    def __init__(self):
        self.found = []
        self.seen = set()

    def visit_var_(self, var):
        if id(var) not in self.seen:
            self.seen.add(id(var))
            self.found.append(var)

    visit_dataflow_var_ = visit_var_


def flat_bindings(func):
    """``[(block index, binding)]`` of the top-level bindings of a function body."""
    body = func.body
    return [(b, binding) for b, block in enumerate(body.blocks) for binding in block.bindings]


def rebuild_body(func, new_blocks_bindings, body_expr=None):
    """``func`` with its body's blocks replaced by these binding lists (same block kinds)."""
    from ...ffi.node import set_field
    from ..expr import SeqExpr

    body = func.body
    blocks = [
        type(block)(bindings, span=block.span)
        for block, bindings in zip(body.blocks, new_blocks_bindings)
        if bindings
    ]
    new_body = SeqExpr(blocks, body.body if body_expr is None else body_expr, span=body.span)
    if new_body.ty is None:
        # The new sequence has the old one's value, hence its type.
        set_field(new_body, "ty", body.ty)
    return func.replace(body=new_body)


def emit_binding(bb, name, value):
    """A new ``VarBinding`` of ``value`` (normalized by ``bb`` for its type)."""
    from ..expr import Var, VarBinding

    value = bb.normalize(value)
    return VarBinding(Var(name, value.ty), value)


def byte_size(ty):
    """The byte size of a tensor type of known shape (a PrimExpr, simplified)."""
    from ...arith import Analyzer
    from ...runtime import DataType

    dtype = DataType(ty.dtype)
    size = (dtype.bits * dtype.lanes + 7) // 8
    total = None
    for dim in ty.shape.values:
        total = dim if total is None else total * dim
    from ...tirx.generic import const

    total = const(size, "int64") if total is None else total * const(size, "int64")
    return Analyzer().simplify(total)


def rewrite_bindings(func, rewrite):
    """``func`` with every binding (in If branches too) replaced by ``rewrite(binding)``.

    ``rewrite`` returns None to keep the binding, or a list of bindings to put in its place.
    Types are unchanged by construction (the rewrites keep each variable's value type), so
    the sequences keep their types.
    """
    body = _rewrite_seq(func.body, rewrite)
    return func if body is func.body else func.replace(body=body)


def _rewrite_seq(seq, rewrite):
    from ...ffi.node import set_field
    from ..expr import If, SeqExpr, VarBinding

    changed = False
    blocks = []
    for block in seq.blocks:
        out = []
        for binding in block.bindings:
            value = binding.value
            if isinstance(value, If):
                true_branch = _rewrite_seq(value.true_branch, rewrite)
                false_branch = _rewrite_seq(value.false_branch, rewrite)
                if true_branch is not value.true_branch or false_branch is not value.false_branch:
                    new_if = If(value.cond, true_branch, false_branch, span=value.span)
                    if new_if.ty is None:
                        set_field(new_if, "ty", value.ty)
                    binding = VarBinding(binding.var, new_if, span=binding.span)
                    changed = True
            replaced = rewrite(binding)
            if replaced is None:
                out.append(binding)
            else:
                out.extend(replaced)
                changed = True
        blocks.append(type(block)(out, span=block.span) if changed else block)
    if not changed:
        return seq
    new_seq = SeqExpr(blocks, seq.body, span=seq.span)
    if new_seq.ty is None:
        set_field(new_seq, "ty", seq.ty)
    return new_seq
