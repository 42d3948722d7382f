"""Relax function passes and dataflow-block passes, and their executors.

:func:`run_function_pass` and :func:`run_dataflow_block_pass` are the single places where a
Relax function pass / dataflow-block pass runs its user function; error enrichment
(spec C.3) wraps exactly these two functions (see ``docs/arch/passes.md``).
"""

from __future__ import annotations

from ...ir.error_context import enrich_pass_error
from ...ir.module import IRModule
from ...ir.transform import Pass, PassInfo, make_pass_decorator
from ..expr import DataflowBlock, Function, If, SeqExpr, VarBinding

__all__ = [
    "DataflowBlockPass",
    "FunctionPass",
    "dataflowblock_pass",
    "function_pass",
    "run_dataflow_block_pass",
    "run_function_pass",
]


class FunctionPass(Pass):
    """Applies ``pass_func(func, mod, ctx) -> Function`` to every Relax function."""

    def __init__(self, pass_func, info: PassInfo):
        super().__init__(info)
        self.pass_func = pass_func

    def _execute(self, mod, ctx):
        return run_function_pass(self, mod, ctx)


class DataflowBlockPass(Pass):
    """Applies ``pass_func(block, mod, ctx) -> DataflowBlock`` to every dataflow block."""

    def __init__(self, pass_func, info: PassInfo):
        super().__init__(info)
        self.pass_func = pass_func

    def _execute(self, mod, ctx):
        return run_dataflow_block_pass(self, mod, ctx)


def _rebuild_module(mod, updates):
    if not updates:
        return mod
    funcs = {gv: updates.get(gv, func) for gv, func in mod.functions.items()}
    return IRModule(funcs, mod.attrs, mod.global_infos)


def run_function_pass(pass_obj: FunctionPass, mod: IRModule, ctx) -> IRModule:
    """The executor of Relax function passes: each Relax function of ``mod``, in order."""
    updates = {}
    for gvar, func in list(mod.functions.items()):
        if not isinstance(func, Function):
            continue
        try:
            new_func = pass_obj.pass_func(func, mod, ctx)
        except Exception as err:
            # Spec C.3: an error seeded with a node gets the pass name and the underlined
            # script of this function.
            enriched = enrich_pass_error(err, mod, pass_obj.info.name, gvar)
            if enriched is err:
                raise
            raise enriched from err.__cause__
        if not isinstance(new_func, Function):
            raise TypeError(
                f"Function pass {pass_obj.info.name} must return a relax.Function for "
                f"{gvar.name_hint}, got {type(new_func).__name__}"
            )
        if new_func is not func:
            updates[gvar] = new_func
    return _rebuild_module(mod, updates)


def run_dataflow_block_pass(pass_obj: DataflowBlockPass, mod: IRModule, ctx) -> IRModule:
    """The executor of dataflow-block passes: each DataflowBlock of each Relax function."""
    # Lazy: the builder is only needed to re-normalize the functions that changed.
    from ..block_builder import BlockBuilder

    def apply(block):
        new_block = pass_obj.pass_func(block, mod, ctx)
        if not isinstance(new_block, DataflowBlock):
            raise TypeError(
                f"Dataflow block pass {pass_obj.info.name} must return a DataflowBlock, got "
                f"{type(new_block).__name__}"
            )
        return new_block

    updates = {}
    for gvar, func in list(mod.functions.items()):
        if not isinstance(func, Function) or not isinstance(func.body, SeqExpr):
            continue
        try:
            body = _rewrite_seq(func.body, apply)
            if body is not func.body:
                new_func = Function(
                    func.params, body, func.ret_ty, func.is_pure, func.attrs, span=func.span
                )
                updates[gvar] = BlockBuilder(mod).normalize(new_func)
        except Exception as err:
            # Spec C.3, as in run_function_pass.
            enriched = enrich_pass_error(err, mod, pass_obj.info.name, gvar)
            if enriched is err:
                raise
            raise enriched from err.__cause__
    return _rebuild_module(mod, updates)


def _rewrite_seq(seq, apply):
    """Apply ``apply`` to every dataflow block in ``seq`` (and in If branches inside it)."""
    blocks = []
    changed = False
    for block in seq.blocks:
        if isinstance(block, DataflowBlock):
            new_block = apply(block)
        else:
            new_block = _rewrite_bindings(block, apply)
        changed |= new_block is not block
        blocks.append(new_block)
    if not changed:
        return seq
    return SeqExpr(blocks, seq.body, span=seq.span)


def _rewrite_bindings(block, apply):
    bindings = []
    changed = False
    for binding in block.bindings:
        value = binding.value
        if isinstance(value, If) and isinstance(binding, VarBinding):
            true_branch = (
                _rewrite_seq(value.true_branch, apply)
                if isinstance(value.true_branch, SeqExpr)
                else value.true_branch
            )
            false_branch = (
                _rewrite_seq(value.false_branch, apply)
                if isinstance(value.false_branch, SeqExpr)
                else value.false_branch
            )
            if true_branch is not value.true_branch or false_branch is not value.false_branch:
                binding = VarBinding(
                    binding.var,
                    If(value.cond, true_branch, false_branch, span=value.span),
                    span=binding.span,
                )
                changed = True
        bindings.append(binding)
    return type(block)(bindings, span=block.span) if changed else block


def function_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Make a Relax function pass from ``pass_func(func, mod, ctx)`` or a class with
    ``transform_function(self, func, mod, ctx)``.

    Examples
    --------
    >>> from tvm import relax
    >>> @relax.transform.function_pass(opt_level=0)
    ... def keep(func, mod, ctx):
    ...     return func
    >>> keep.info.name
    'keep'
    """
    return make_pass_decorator(
        "function",
        "transform_function",
        FunctionPass,
        pass_func,
        opt_level,
        name,
        required,
        traceable,
    )


def dataflowblock_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Make a dataflow-block pass from ``pass_func(block, mod, ctx)`` or a class with
    ``transform_dataflowblock(self, block, mod, ctx)``."""
    return make_pass_decorator(
        "dataflowblock",
        "transform_dataflowblock",
        DataflowBlockPass,
        pass_func,
        opt_level,
        name,
        required,
        traceable,
    )
