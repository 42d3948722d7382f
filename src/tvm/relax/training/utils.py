"""Training utilities: ``AppendLoss`` (append a loss function to a backbone function, a module
pass) and ``register_te_gradient`` (the TE gradients of ``R.call_tir_with_grad``)."""

from __future__ import annotations

from ...ir import transform as ir_transform
from ...ir.type import TupleType
from ..block_builder import BlockBuilder
from ..expr import (
    Call,
    DataflowBlock,
    DataflowVar,
    Function,
    If,
    MatchCast,
    SeqExpr,
    Tuple,
    TupleGetItem,
    Var,
)
from ..expr_functor import ExprMutator
from ..transform.gradient.te_grad import TE_GRAD_PREFIX, store_te_gradient

__all__ = ["AppendLoss", "register_te_gradient"]


class _Inline(ExprMutator):
    """Copies bindings with variables renamed (inlining a function body into a builder)."""

    def __init__(self, vmap):
        super().__init__()
        self.vmap = dict(vmap)

    def visit_var_(self, var):
        return self.vmap.get(var, var)

    def visit_dataflow_var_(self, var):
        return self.vmap.get(var, var)

    def visit_tuple_getitem_(self, op):
        # A parameter bound to a tuple expression: take the field, not ``(a, b)[0]``.
        value = self.visit_expr(op.tuple_value)
        if isinstance(value, Tuple):
            return value.fields[op.index]
        return op if value is op.tuple_value else TupleGetItem(value, op.index, span=op.span)


def inline_body(bb, func, args, outputs=()):
    """Emit ``func``'s bindings into ``bb`` with its parameters bound to ``args``.

    Returns the (renamed) body expression. The function body must be a ``SeqExpr``. Inside a
    dataflow block, the bound variables of ``func`` listed in ``outputs`` are emitted as
    output variables (``bb.emit_output``); all others become dataflow variables.
    """
    body = func.body
    if not isinstance(body, SeqExpr):
        raise ValueError(f"inline: the body of {func} must be a SeqExpr")  # noqa: TRY004 - invalid IR
    mutator = _Inline(dict(zip(func.params, args)))
    outputs = set(outputs)
    for block in body.blocks:
        for binding in block.bindings:
            value = mutator.visit_expr(binding.value)
            name = binding.var.name_hint
            if isinstance(binding, MatchCast):
                new = bb.match_cast(value, binding.ty, name)
            elif binding.var in outputs:
                new = bb.emit_output(value, name)
            else:
                new = bb.emit(value, name)
            mutator.vmap[binding.var] = new
    return mutator.visit_expr(body.body)


def has_control_flow(func) -> bool:
    """Whether ``func``'s body binds an ``R.If`` (its bindings cannot go into one block)."""
    body = func.body
    return isinstance(body, SeqExpr) and any(
        isinstance(b.value, If) for block in body.blocks for b in block.bindings
        if not isinstance(b, MatchCast)
    )


def call_or_inline(bb, mod, func_name, args, outputs=()):
    """``func_name(args)`` emitted into ``bb``'s dataflow block: the body inlined, or, when it
    has control flow (an ``R.If`` cannot sit in a dataflow block), a call of the function."""
    func = mod[func_name]
    if not has_control_flow(func):
        return inline_body(bb, func, args, outputs)
    return bb.emit(Call(mod.get_global_var(func_name), list(args)), func_name)


def output_vars(func):
    """The variables bound in ``func``'s dataflow blocks that are visible after them."""
    body = func.body
    blocks = body.blocks if isinstance(body, SeqExpr) else []
    return [b.var for block in blocks if isinstance(block, DataflowBlock)
            for b in block.bindings if not isinstance(b.var, DataflowVar)]


def split_outputs(bb, expr):
    """The fields of a function's result: a tuple expression's fields, ``TupleGetItem``s of a
    tuple-typed value, or the value itself."""
    if isinstance(expr, Tuple):
        return list(expr.fields)
    if isinstance(expr.ty, TupleType):
        return [bb.emit(TupleGetItem(expr, i)) for i in range(len(expr.ty.fields))]
    return [expr]


def AppendLoss(func_name: str, loss_function: Function, num_backbone_outputs: int = 1,
               new_func_name: str | None = None):
    """A pass adding ``<func_name>_loss``: the backbone followed by ``loss_function``.

    The new function takes the backbone's parameters, then the loss function's parameters
    after its first ``num_backbone_outputs`` (the targets), and returns the loss. Backbone
    outputs after the first ``num_backbone_outputs`` (the updated states of a backbone with
    states) are returned after the loss, ``(loss, states...)``, as in TVM: the backbone's
    predictions become dataflow variables, its other outputs (states) stay outputs.

    Parameters
    ----------
    func_name : str
        The backbone function.
    loss_function : relax.Function
        ``loss(predictions..., targets...) -> R.Tensor(())``.
    num_backbone_outputs : int
        How many backbone outputs feed the loss.
    new_func_name : str, optional
        Default ``func_name + "_loss"``.
    """
    new_name = new_func_name or f"{func_name}_loss"

    def transform(mod, ctx):
        if func_name not in [gv.name_hint for gv in mod.functions]:
            raise ValueError(f"AppendLoss: the module has no function {func_name!r}")
        backbone = mod[func_name]
        if len(loss_function.params) < num_backbone_outputs:
            raise ValueError(
                f"AppendLoss: the loss function takes {len(loss_function.params)} parameters, "
                f"fewer than num_backbone_outputs={num_backbone_outputs}"
            )
        result = backbone.body.body if isinstance(backbone.body, SeqExpr) else None
        returned = list(result.fields) if isinstance(result, Tuple) else [result]
        # Predictions feed only the loss: they become dataflow variables. States stay outputs.
        keep = set(output_vars(backbone)) - set(returned[:num_backbone_outputs])
        params = [Var(p.name_hint, p.ty) for p in backbone.params]
        extra = [Var(p.name_hint, p.ty) for p in loss_function.params[num_backbone_outputs:]]
        bb = BlockBuilder(mod)
        with bb.function(new_name, params + extra):
            with bb.dataflow():
                fields = split_outputs(bb, call_or_inline(bb, mod, func_name, params, keep))
                if len(fields) < num_backbone_outputs:
                    raise ValueError(
                        f"AppendLoss: {func_name} returns {len(fields)} values, fewer than "
                        f"num_backbone_outputs={num_backbone_outputs}"
                    )
                loss = inline_body(bb, loss_function, fields[:num_backbone_outputs] + extra,
                                   output_vars(loss_function))
                if isinstance(loss, DataflowVar) or not isinstance(loss, Var):
                    loss = bb.emit_output(loss, "loss")
                rest = [bb.emit_output(f) if isinstance(f, DataflowVar) else f
                        for f in fields[num_backbone_outputs:]]
            bb.emit_func_output(Tuple([loss, *rest]) if rest else loss)
        new_func = bb.get()[new_name]
        result = mod.clone()
        result[new_name] = new_func
        return result

    return ir_transform.module_pass(transform, opt_level=0, name="AppendLoss")


def register_te_gradient(te_grad_name: str, te_grad_func=None):
    """Register a TE gradient function under ``te_grad_name`` for ``R.call_tir_with_grad``.

    ``relax.transform.Gradient`` differentiates ``call_tir_with_grad(...,
    te_grad_name=te_grad_name, te_grad_kwargs=kw)`` by emitting
    ``te_grad_func(output_grad, *inputs, **kw)`` into the adjoint function as a ``call_tir``.
    The function is also registered as the global function
    ``tvm.relax.te_grad._register.<te_grad_name>``; registering a name twice is an error.

    Parameters
    ----------
    te_grad_name : str
        The name ``call_tir_with_grad`` nodes refer to.
    te_grad_func : callable, optional
        ``(output_grad: te.Tensor, *inputs: te.Tensor, **kwargs) -> list[te.Tensor]``, one
        gradient per input, built with ``te.compute``. When omitted a decorator is returned.

    Returns
    -------
    callable
        ``te_grad_func`` unchanged (or the decorator).
    """
    # Lazy: the ffi registry is only needed when a gradient is registered.
    from ...ffi.registry import get_global_func, register_func

    if not isinstance(te_grad_name, str) or not te_grad_name:
        raise TypeError(f"register_te_gradient expects a name string, got {te_grad_name!r}")

    def register(func):
        if not callable(func):
            raise TypeError(
                f"register_te_gradient({te_grad_name!r}) expects a callable, got {func!r}"
            )
        global_name = TE_GRAD_PREFIX + te_grad_name
        if get_global_func(global_name, allow_missing=True) is not None:
            # TVM 0.27's text; a ValueError (the name is the invalid argument).
            raise ValueError(f"Global Function `{global_name}` is already registered")
        register_func(global_name, func)
        store_te_gradient(te_grad_name, func)
        return func

    return register(te_grad_func) if te_grad_func is not None else register
