"""``remove_all_unused``: drop bindings whose variable is never used (dead code elimination)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

from ...ir.module import IRModule
from ...ir.op import Op
from ..expr import (
    Call,
    DataflowBlock,
    Function,
    If,
    MatchCast,
    SeqExpr,
    Var,
)
from ..ty import FuncType
from .type_analysis import definable_tir_vars_in_type, tir_vars_in
from .var_analysis import free_symbolic_vars, free_vars

__all__ = ["keep_external_calls", "remove_all_unused"]


def _is_impure(value) -> bool:
    if not isinstance(value, Call):
        return False
    op = value.op
    if isinstance(op, Op):
        return op.get_attr("FPurity") is False
    ty = op.ty
    return not (isinstance(ty, FuncType) and ty.purity)


_PACKED_CALL_OPS = ("relax.call_pure_packed", "relax.call_dps_packed", "relax.call_packed")

# Set by relax.build's pipelines (``keep_external_calls``): Apache TVM's build runs no
# dead-code elimination, so an unused call that may act on the outside world still runs there.
_KEEP_EXTERNAL_CALLS = ContextVar("relax_keep_external_calls", default=False)


@contextmanager
def keep_external_calls():
    """Within this scope, :func:`remove_all_unused` keeps unused calls of external code.

    External code is a packed function (``R.call_pure_packed``, ``R.call_dps_packed``, an
    ``R.ExternFunc``), a callable parameter or variable, or another function of the module:
    such a call may act on its arguments or the host even when declared pure (a callback
    that records a tensor, ``test.vm.identity`` copying into its output). Calls of Relax ops
    and ``call_tir`` kernels are still removed when unused. ``relax.build``'s pipelines run in
    this scope (pytvm's cleanup passes there would otherwise drop calls Apache TVM runs).
    """
    token = _KEEP_EXTERNAL_CALLS.set(True)
    try:
        yield
    finally:
        _KEEP_EXTERNAL_CALLS.reset(token)


def _calls_external(value) -> bool:
    """Whether ``value`` calls external code (see :func:`keep_external_calls`)."""
    if not isinstance(value, Call):
        return False
    op = value.op
    if isinstance(op, Op):
        return op.name in _PACKED_CALL_OPS
    return True


def _uses(value, binding):
    used = free_vars(value) if not isinstance(value, Var) else [value]
    if isinstance(binding, MatchCast):
        shape = getattr(binding.ty, "shape", None)
        if isinstance(shape, Var):
            used.append(shape)
    var_shape = getattr(binding.var.ty, "shape", None)
    if isinstance(var_shape, Var):
        used.append(var_shape)
    return used


def _symbols_used(value, binding) -> set:
    """ids of the symbolic TIR vars a kept binding reads (its value and its var's type)."""
    used = {id(v) for v in free_symbolic_vars(value)}
    if binding.var.ty is not None:
        used.update(id(v) for v in free_symbolic_vars(binding.var))
    return used


def _defines_live_symbol(binding, live_symbols) -> bool:
    """A ``match_cast`` that binds a symbolic var read later must stay, even when its own
    variable is unused (``_ = R.match_cast(x, R.Tensor((n, m)))``, then ``R.shape([n, m])``)."""
    return isinstance(binding, MatchCast) and any(
        id(v) in live_symbols for v in definable_tir_vars_in_type(binding.ty)
    )


def _clean_seq(seq: SeqExpr, keep_external: bool = False) -> SeqExpr:
    live = set(free_vars(seq.body)) if not isinstance(seq.body, Var) else {seq.body}
    live_symbols = {id(v) for v in free_symbolic_vars(seq.body)}
    body_ty = getattr(seq.body, "ty", None)
    if body_ty is not None:
        live_symbols.update(id(v) for v in tir_vars_in(body_ty))
    new_blocks = []
    changed = False
    for block in reversed(seq.blocks):
        dataflow = isinstance(block, DataflowBlock)
        kept = []
        for binding in reversed(block.bindings):
            value = binding.value
            if isinstance(value, If):
                value = _clean_if(value, keep_external)
            needed = (
                binding.var in live
                or (not dataflow and _is_impure(value))
                or (keep_external and _calls_external(value))
                or _defines_live_symbol(binding, live_symbols)
            )
            if not needed:
                changed = True
                continue
            if value is not binding.value:
                binding = binding.replace(value=value)
                changed = True
            kept.append(binding)
            live.update(_uses(value, binding))
            live_symbols.update(_symbols_used(value, binding))
        kept.reverse()
        if kept:
            new_blocks.append(
                block
                if len(kept) == len(block.bindings) and not changed
                else type(block)(kept, span=block.span)
            )
    new_blocks.reverse()
    if not changed:
        return seq
    return SeqExpr(new_blocks, seq.body, span=seq.span)


def _clean_if(node: If, keep_external: bool = False) -> If:
    true_branch = node.true_branch
    false_branch = node.false_branch
    if isinstance(true_branch, SeqExpr):
        true_branch = _clean_seq(true_branch, keep_external)
    if isinstance(false_branch, SeqExpr):
        false_branch = _clean_seq(false_branch, keep_external)
    if true_branch is node.true_branch and false_branch is node.false_branch:
        return node
    return If(node.cond, true_branch, false_branch, span=node.span)


def remove_all_unused(func):
    """Remove unused bindings from a Relax ``Function`` (or every function of an IRModule).

    A binding is kept when its variable is used later (or returned), or when it sits in a
    non-dataflow block and calls something impure (e.g. ``R.print``). Empty blocks are
    dropped. The result is normalized again.

    Inside :func:`keep_external_calls` (``relax.build``'s pipelines), unused calls of external
    code are kept too.
    """
    if isinstance(func, IRModule):
        funcs = {
            gv: remove_all_unused(f) if isinstance(f, Function) else f
            for gv, f in func.functions.items()
        }
        return IRModule(funcs, func.attrs, func.global_infos)
    if not isinstance(func, Function):
        raise TypeError(
            f"remove_all_unused expects a relax.Function or IRModule, got {type(func).__name__}"
        )
    body = func.body
    if not isinstance(body, SeqExpr):
        return func
    new_body = _clean_seq(body, _KEEP_EXTERNAL_CALLS.get())
    if new_body is body:
        return func
    # Lazy: the builder sits above analysis in the relax package's import order.
    from ..block_builder import BlockBuilder

    new_func = Function(
        func.params, new_body, func.ret_ty, func.is_pure, func.attrs, span=func.span
    )
    return BlockBuilder().normalize(new_func)
