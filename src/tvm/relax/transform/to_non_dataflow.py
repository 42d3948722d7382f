"""``ToNonDataflow``: dataflow blocks become ordinary binding blocks.

Before::

    with R.dataflow():
        lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((2,), dtype="float32"))
        gv = R.call_tir(cls.exp, (lv,), out_ty=R.Tensor((2,), dtype="float32"))
        R.output(gv)
    return gv

After (every ``DataflowVar`` is now a ``Var``)::

    lv = R.call_tir(cls.exp, (x,), out_ty=R.Tensor((2,), dtype="float32"))
    gv = R.call_tir(cls.exp, (lv,), out_ty=R.Tensor((2,), dtype="float32"))
    return gv
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ..expr import BindingBlock, DataflowBlock, SeqExpr, Var
from ..expr_functor import ExprMutator
from ._utils import map_functions

__all__ = ["ToNonDataflow", "without_dataflow"]


class _ToNonDataflow(ExprMutator):
    def visit_seq_expr_(self, op):
        seq = super().visit_seq_expr_(op)
        if len(seq.blocks) < 2:
            return seq
        # With no dataflow block left, consecutive binding blocks are one block.
        bindings = [b for block in seq.blocks for b in block.bindings]
        return SeqExpr([BindingBlock(bindings)], seq.body, span=seq.span)

    def visit_dataflow_block_(self, block):
        self.builder_.begin_binding_block()
        new_block = self._finish_block(block)
        if isinstance(new_block, DataflowBlock):
            # Unchanged bindings (no dataflow var in the block) still leave the dataflow block.
            new_block = BindingBlock(new_block.bindings, span=new_block.span)
        return new_block

    def visit_dataflow_var_def_(self, var):
        new_var = Var(var.name_hint, var.ty, var.span)
        self.set_var_remap(var, new_var)
        return new_var


def without_dataflow(expr):
    """``expr`` (a function, a SeqExpr) with its dataflow blocks turned into binding blocks."""
    return _ToNonDataflow().visit_expr(expr)


@module_pass(opt_level=0, name="ToNonDataflow")
class ToNonDataflow:
    """Turn every dataflow block into a binding block (dataflow vars into vars)."""

    def transform_module(self, mod, ctx):
        """Turn every dataflow block into an ordinary binding block (dataflow vars become vars).

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The rewritten module.
        """
        return map_functions(mod, _ToNonDataflow)
