"""``FoldConstant``: evaluate at compile time the calls whose inputs are all constants.

Folded:

* ``R.call_tir(f, (c0, c1, ...), out_ty)`` with constant tensor inputs (and constant
  ``tir_vars``) and a static output shape: the PrimFunc runs in the TIR interpreter;
* a call of a library op (``R.add(c0, c1)``, ...) with constant tensor arguments, through
  the op's NumPy reference rule (``FReference``);
* ``t[i]`` of a constant tuple.

Impure calls, packed calls and results larger than ``max_elements`` (default one million)
are not folded: the interpreter is slow, and a huge constant would bloat the module.

Before::

    lv = R.call_tir(cls.add, (R.const(1.0), R.const(2.0)), out_ty=R.Tensor((), "float32"))
    gv = R.call_tir(cls.exp, (x, lv), ...)

After::

    gv = R.call_tir(cls.exp, (x, R.const(3.0, "float32")), ...)

(``lv``'s binding becomes unused and is removed.)
"""

from __future__ import annotations

import numpy as np

from ...ir.op import Op
from ...ir.transform import module_pass
from ..analysis import remove_all_unused
from ..expr import Call, Constant, PrimValue, ShapeExpr, Tuple
from ..expr_functor import ExprMutator
from ..ty import TensorType
from ._utils import is_op, map_functions

__all__ = ["FoldConstant"]

MAX_ELEMENTS = 1_000_000


def _static_numel(ty):
    if not isinstance(ty, TensorType) or getattr(ty.shape, "values", None) is None:
        return None
    total = 1
    for dim in ty.shape.values:
        value = getattr(dim, "value", None)
        if value is None:
            return None
        total *= int(value)
    return total


def _np_dtype(dtype):
    from ..op.registry import reference_dtype

    return reference_dtype(dtype)


class _Folder(ExprMutator):
    def __init__(self, mod, max_elements):
        super().__init__(mod)
        self.mod = mod
        self.max_elements = max_elements
        self.constants = {}

    def visit_var_binding_(self, binding):
        value = self.visit_expr(binding.value)
        if isinstance(value, Constant):
            # Later uses read the constant itself, so their calls can fold too.
            self.constants[binding.var] = value
        self._reemit(binding, value)

    def visit_var_(self, op):
        return self.constants.get(op) or super().visit_var_(op)

    def visit_dataflow_var_(self, op):
        return self.constants.get(op) or super().visit_dataflow_var_(op)

    def visit_tuple_getitem_(self, op):
        op = self.visit_expr_post_order(op)
        value = op.tuple_value
        if isinstance(value, Tuple) and isinstance(value.fields[op.index], Constant):
            return value.fields[op.index]
        return op

    def visit_call_(self, call):
        call = self.visit_expr_post_order(call)
        if not isinstance(call, Call) or not isinstance(call.op, Op):
            return call
        if is_op(call, "relax.call_tir"):
            return self._fold_call_tir(call) or call
        if call.op.name.startswith("relax.") and call.op.get_attr("FPurity") is not False:
            return self._fold_op(call) or call
        return call

    def _fold_call_tir(self, call):
        args = call.args[1]
        if not isinstance(args, Tuple) or not all(isinstance(a, Constant) for a in args.fields):
            return None
        extra = []
        if len(call.args) > 2:
            shape = call.args[2]
            if not isinstance(shape, ShapeExpr):
                return None
            for dim in shape.values:
                if getattr(dim, "value", None) is None:
                    return None
                extra.append(int(dim.value))
        out_ty = call.ty
        if not isinstance(out_ty, TensorType):
            return None  # tuple outputs are left alone
        numel = _static_numel(out_ty)
        if numel is None or numel > self.max_elements:
            return None
        from ...tirx.interpreter import run_prim_func  # lazy: only folding needs the interpreter

        shape = [int(d.value) for d in out_ty.shape.values]
        out = np.zeros(shape, _np_dtype(out_ty.dtype))
        inputs = [np.require(a.data.numpy(), requirements="C") for a in args.fields]
        run_prim_func(self.mod[call.args[0]], inputs + [out] + extra)
        return Constant(out)

    def _fold_op(self, call):
        reference = call.op.get_attr("FReference")
        if reference is None or not call.args:
            return None
        values = []
        for arg in call.args:
            if isinstance(arg, Constant):
                values.append(arg.data.numpy())
            elif isinstance(arg, PrimValue) and getattr(arg.value, "value", None) is not None:
                values.append(arg.value.value)
            elif isinstance(arg, ShapeExpr) and all(
                getattr(d, "value", None) is not None for d in arg.values
            ):
                values.append(tuple(int(d.value) for d in arg.values))
            else:
                return None
        if not any(isinstance(a, Constant) for a in call.args):
            return None  # creation ops (zeros, arange) stay: folding them only grows the IR
        numel = _static_numel(call.ty)
        if numel is None or numel > self.max_elements:
            return None
        result = reference(call.attrs, *values)
        if not isinstance(result, np.ndarray):
            return None
        return Constant(result.astype(_np_dtype(call.ty.dtype), copy=False))


@module_pass(opt_level=0, name="FoldConstant")
class FoldConstant:
    """Fold calls with constant inputs (see the module docstring)."""

    def __init__(self, max_elements: int = MAX_ELEMENTS):
        self.max_elements = max_elements

    def transform_module(self, mod, ctx):
        """Evaluate the calls whose arguments are all constants (up to ``max_elements``
        elements) and put the results in their place, then remove the bindings left unused.

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The folded module.
        """
        folded = map_functions(mod, lambda m: _Folder(m, self.max_elements))
        return remove_all_unused(folded)
