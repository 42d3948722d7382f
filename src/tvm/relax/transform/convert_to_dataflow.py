"""``ConvertToDataflow``: runs of pure bindings in binding blocks become dataflow blocks.

The inverse of :func:`ToNonDataflow` for what can be dataflow: inside every non-dataflow
binding block (function bodies and ``R.If`` branches alike), each maximal run of at least
``min_size`` bindings whose values are pure and are not ``R.If`` becomes a dataflow block.
A variable of the run that is used after it (later bindings, the block's result) stays a
``Var`` (a dataflow output); the others become ``DataflowVar``. The fusion passes only look
inside dataflow blocks, so this matters for code a pass emits without them (the adjoint of a
function with control flow).
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ..analysis import contains_impure_call
from ..expr import BindingBlock, DataflowBlock, DataflowVar, If, MatchCast, SeqExpr, VarBinding
from ..expr_functor import ExprMutator
from ._utils import free_relax_vars, map_functions

__all__ = ["ConvertToDataflow", "convert_to_dataflow"]


def _dataflow_able(binding) -> bool:
    if not isinstance(binding, (VarBinding, MatchCast)):
        return False
    value = binding.value
    return not isinstance(value, If) and not contains_impure_call(value)


class _Rename(ExprMutator):
    """Rebinds the chosen variables as dataflow variables (uses follow)."""

    def __init__(self, chosen):
        super().__init__()
        self._chosen = chosen

    def visit_var_def_(self, var):
        if var not in self._chosen:
            return var
        new = DataflowVar(var.name_hint, var.ty, var.span)
        self.set_var_remap(var, new)
        return new


def _split_runs(bindings, min_size):
    """``[(is_dataflow, [bindings])]``: maximal runs, short dataflow-able runs merged back."""
    runs = []
    for binding in bindings:
        able = _dataflow_able(binding)
        if runs and runs[-1][0] == able:
            runs[-1][1].append(binding)
        else:
            runs.append((able, [binding]))
    merged = []
    for able, items in runs:
        flag = able and len(items) >= min_size
        if merged and not flag and not merged[-1][0]:
            merged[-1][1].extend(items)  # a short run stays in the binding block around it
        else:
            merged.append((flag, items))
    return merged


class _Converter(ExprMutator):
    def __init__(self, min_size, mod=None):
        super().__init__(mod)
        self._min_size = min_size

    def visit_seq_expr_(self, op):
        seq = super().visit_seq_expr_(op)  # branches and nested functions first
        runs = []
        for block in seq.blocks:
            if isinstance(block, DataflowBlock):
                runs.append((True, list(block.bindings), False))
            else:
                runs.extend((flag, items, True) for flag, items in
                            _split_runs(block.bindings, self._min_size))
        if not any(flag and new for flag, _items, new in runs):
            return seq
        # Variables of a new dataflow block that nothing after the block reads become
        # dataflow variables; the rest stay outputs.
        demote = set()
        used_later = set(free_relax_vars(seq.body))
        for flag, items, new in reversed(runs):
            if flag and new:
                demote.update(b.var for b in items if b.var not in used_later)
            for binding in items:
                used_later.update(free_relax_vars(binding.value))
        blocks = [DataflowBlock(items) if flag else BindingBlock(items)
                  for flag, items, _new in runs]
        result = SeqExpr(blocks, seq.body, span=seq.span)
        return _Rename(demote).visit_expr(result) if demote else result


def convert_to_dataflow(expr, min_size: int = 2):
    """``expr`` (a function, a SeqExpr) with its runs of pure bindings as dataflow blocks."""
    return _Converter(min_size).visit_expr(expr)


def ConvertToDataflow(min_size: int = 2):
    """Turn runs of pure bindings inside binding blocks into dataflow blocks (a module pass).

    Parameters
    ----------
    min_size : int
        The fewest consecutive convertible bindings that become a dataflow block.

    Returns
    -------
    tvm.ir.transform.Pass
        A module pass named ``"ConvertToDataflow"`` (opt_level 0).
    """
    if not isinstance(min_size, int) or isinstance(min_size, bool) or min_size < 1:
        raise ValueError(f"ConvertToDataflow: min_size must be a positive int, got {min_size!r}")

    def _transform(mod, _ctx):
        return map_functions(mod, lambda m: _Converter(min_size, m))

    return module_pass(_transform, opt_level=0, name="ConvertToDataflow")
