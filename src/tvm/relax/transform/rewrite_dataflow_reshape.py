"""``RewriteDataflowReshape``: calls of reshape kernels become ``R.reshape`` (a view).

After legalization and fusion, a reshape is a kernel that copies every element of its input
to the same row-major position of its output. On the row-major tensors of the VM that copy is
not needed: ``R.reshape`` runs as a view of the input's memory (``relax.vm.codegen``).

Before::

    with R.dataflow():
        lv = R.call_tir(cls.reshape, (x,), out_ty=R.Tensor((8, 4), dtype="float32"))
        gv = R.call_tir(cls.exp, (lv,), out_ty=R.Tensor((8, 4), dtype="float32"))
        R.output(gv)

After::

    with R.dataflow():
        lv = R.reshape(x, R.shape([8, 4]))
        gv = R.call_tir(cls.exp, (lv,), out_ty=R.Tensor((8, 4), dtype="float32"))
        R.output(gv)

As in Apache TVM, only bindings of dataflow variables inside dataflow blocks are rewritten (a
dataflow block's outputs keep their own memory), the kernel is recognized by its body
(:func:`tvm.relax.analysis.has_reshape_pattern`), exactly one of the call's tensor arguments may
be used by the kernel, and input and output must have the same dtype and element count. The
kernel stays in the module; ``DeadCodeElimination`` removes it once it has no caller.
"""

from __future__ import annotations

from ...ir.transform import module_pass
from ...tirx.function import PrimFunc
from ...tirx.stmt_functor import post_order_visit
from ..analysis.reshape_pattern import has_reshape_pattern
from ..expr import DataflowVar, ShapeExpr, Tuple
from ..expr_functor import ExprMutator
from ..op.manipulate import reshape
from ..ty import TensorType
from ._utils import is_op, map_functions

__all__ = ["RewriteDataflowReshape"]


class _Rewriter(ExprMutator):
    def __init__(self, mod):
        super().__init__(mod)
        self.mod = mod
        self.in_dataflow = False
        self.cache = {}

    def visit_dataflow_block_(self, block):
        self.in_dataflow = True
        try:
            return super().visit_dataflow_block_(block)
        finally:
            self.in_dataflow = False

    def visit_var_binding_(self, binding):
        value = binding.value
        if self.in_dataflow and isinstance(binding.var, DataflowVar) \
                and is_op(value, "relax.call_tir"):
            arg = self._reshaped_arg(value)
            if arg is not None:
                shape = ShapeExpr(list(value.ty.shape.values))
                self._reemit(binding, self.builder_.normalize(reshape(self.visit_expr(arg),
                                                                      shape)))
                return
        super().visit_var_binding_(binding)

    def _reshaped_arg(self, call):
        """The argument the called kernel reshapes, or None if it is not a reshape."""
        gvar, args = call.args[0], call.args[1]
        func = self.mod.functions.get(gvar) if hasattr(gvar, "name_hint") else None
        if not isinstance(func, PrimFunc) or not isinstance(args, Tuple):
            return None
        out_ty = call.ty
        if not isinstance(out_ty, TensorType) or getattr(out_ty.shape, "values", None) is None:
            return None
        if len(func.params) != len(args.fields) + 1 or len(call.args) > 2:
            return None
        used = _used_params(func)
        tensor_args = [
            (param, arg) for param, arg in zip(func.params, args.fields)
            if isinstance(arg.ty, TensorType) and param in used
        ]
        if len(tensor_args) != 1:
            return None
        arg = tensor_args[0][1]
        in_ty = arg.ty
        if in_ty.dtype != out_ty.dtype or getattr(in_ty.shape, "values", None) is None:
            return None
        if gvar not in self.cache:
            self.cache[gvar] = has_reshape_pattern(func)
        return arg if self.cache[gvar] else None


def _used_params(func):
    """The parameters whose buffer the body of ``func`` reads or writes."""
    data_vars = {}
    for param in func.params:
        buffer = func.buffer_map.get(param)
        if buffer is not None:
            data_vars[buffer.data] = param
    used = set()

    def visit(node):
        param = data_vars.get(getattr(getattr(node, "buffer", None), "data", None))
        if param is not None:
            used.add(param)

    post_order_visit(func.body, visit)
    return used


@module_pass(opt_level=0, name="RewriteDataflowReshape")
class RewriteDataflowReshape:
    """Replace ``R.call_tir`` of reshape kernels in dataflow blocks by ``R.reshape``."""

    def transform_module(self, mod, ctx):
        """Turn each dataflow call of a row-major copy kernel back into ``R.reshape``."""
        return map_functions(mod, _Rewriter)
