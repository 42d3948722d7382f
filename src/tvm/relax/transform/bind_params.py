"""``BindParams(func_name, params)``: parameters of a function become constants.

Each entry of ``params`` (a parameter name or the parameter ``Var``, mapped to a NumPy array
or ``tvm.runtime.Tensor``) removes that parameter from the function's signature and replaces
its uses by a ``relax.Constant``. Symbolic variables defined by a bound parameter's shape take
the array's extents everywhere in the function.

Before (``params={"w": np.ones((3, 4), "float32")}``)::

    @R.function
    def main(x: R.Tensor(("n", "k"), "float32"), w: R.Tensor(("k", 4), "float32")):
        a = R.matmul(x, w)
        return a

After::

    @R.function
    def main(x: R.Tensor((n, 3), "float32")) -> R.Tensor((n, 4), "float32"):
        a: R.Tensor((n, 4), "float32") = R.matmul(x, metadata["relax.expr.Constant"][0])
        return a

Differences from TVM: an unknown function name raises ``ValueError`` (TVM returns the module
unchanged); an array whose rank, dtype or static extents do not fit the parameter raises
``ValueError`` naming the parameter.
"""

from __future__ import annotations

import numpy as np

from ...ir.transform import module_pass
from ...tirx import expr as tir_expr
from ..analysis.type_analysis import substitute_type, tir_vars_in
from ..block_builder import BlockBuilder
from ..expr import Constant, DataflowVar, Function, PrimValue, RelaxExpr, ShapeExpr, Var
from ..expr_functor import ExprMutator
from ..ty import TensorType

__all__ = ["BindParams", "bind_params"]


def _as_array(value, where):
    if isinstance(value, np.ndarray):
        return value
    numpy = getattr(value, "numpy", None)
    if callable(numpy):
        return numpy()
    if isinstance(value, (int, float, bool, np.generic, list)):
        return np.asarray(value)
    raise TypeError(
        f"BindParams: {where} must be a NumPy array or tvm.runtime.Tensor, got "
        f"{type(value).__name__}"
    )


def _match_param(param, array, tir_map, fname):
    """Check ``array`` against the parameter's type; bind its symbolic dims into tir_map."""
    ty = param.ty
    if not isinstance(ty, TensorType):
        raise TypeError(
            f"BindParams: parameter {param.name_hint} of {fname} is not a tensor ({ty}); only "
            "tensor parameters can be bound"
        )
    where = f"BindParams: parameter {param.name_hint} of {fname} ({ty.script()})"
    if ty.dtype != "void" and str(array.dtype) != ty.dtype:
        raise ValueError(f"{where} cannot take an array of dtype {array.dtype}")
    if ty.ndim != -1 and array.ndim != ty.ndim:
        raise ValueError(f"{where} cannot take an array of shape {array.shape}")
    for k, dim in enumerate(getattr(ty.shape, "values", None) or ()):
        extent = array.shape[k]
        if isinstance(dim, tir_expr.Var):
            known = tir_map.get(dim)
            if known is not None and int(known.value) != extent:
                raise ValueError(
                    f"{where}: {dim.name} is {int(known.value)} from another parameter but "
                    f"{extent} here"
                )
            tir_map[dim] = tir_expr.IntImm(dim.dtype, extent)
        elif isinstance(dim, (int, tir_expr.IntImm)) and int(dim) != extent:
            raise ValueError(f"{where} cannot take an array of shape {array.shape}")


def _match_expr(param, value, tir_map):
    """Symbolic dims of the parameter's type taken from the value's known extents."""
    ty, vty = param.ty, value.ty
    dims = getattr(getattr(ty, "shape", None), "values", None)
    vdims = getattr(getattr(vty, "shape", None), "values", None)
    if not isinstance(ty, TensorType) or dims is None or vdims is None or len(dims) != len(vdims):
        return
    for dim, vdim in zip(dims, vdims):
        if isinstance(dim, tir_expr.Var) and dim not in tir_map and vdim.dtype == dim.dtype:
            tir_map[dim] = vdim


class _Binder(ExprMutator):
    def __init__(self, bound, tir_map):
        super().__init__()
        self.bound = set(bound)
        self.var_remap_.update(bound)
        self.tir_map = tir_map
        self.by_id = {id(k): v for k, v in tir_map.items()}

    def visit_type(self, ty):
        ty = super().visit_type(ty)
        return substitute_type(ty, self.tir_map) if self.tir_map else ty

    def _renew(self, var, cls):
        if var in self.bound or var.ty is None or not self.tir_map:
            return var
        if not any(v in self.tir_map for v in tir_vars_in(var.ty)):
            return var
        new = cls(var.name_hint, self.visit_type(var.ty), var.span)
        self.set_var_remap(var, new)
        return new

    def visit_var_def_(self, var):
        return self._renew(var, Var)

    def visit_dataflow_var_def_(self, var):
        return self._renew(var, DataflowVar)

    def _subst(self, values):
        from ..analysis.type_analysis import _subst_expr

        return tuple(_subst_expr(v, self.by_id) for v in values)

    def visit_shape_expr_(self, op):
        values = self._subst(op.values) if self.tir_map else op.values
        return op if all(a is b for a, b in zip(values, op.values)) else ShapeExpr(values)

    def visit_prim_value_(self, op):
        (value,) = self._subst((op.value,)) if self.tir_map else (op.value,)
        return op if value is op.value else PrimValue(value)


def bind_params(func: Function, params: dict, fname: str = "function") -> Function:
    """``func`` with the parameters named in ``params`` replaced by constants (arrays) or by
    the Relax expressions given (``Function.bind_params``)."""
    by_name = {}
    for p in func.params:
        by_name.setdefault(p.name_hint, []).append(p)
    bound, tir_map = {}, {}
    for key, value in params.items():
        if isinstance(key, Var):
            if key not in func.params:
                raise ValueError(f"BindParams: {key.name_hint} is not a parameter of {fname}")
            param = key
        else:
            found = by_name.get(str(key), [])
            if not found:
                names = ", ".join(repr(p.name_hint) for p in func.params)
                raise ValueError(
                    f"BindParams: {fname} has no parameter named {key!r}; its parameters are "
                    f"({names})"
                )
            if len(found) > 1:
                raise ValueError(
                    f"BindParams: {fname} has {len(found)} parameters named {key!r}; bind them "
                    "by Var instead"
                )
            param = found[0]
        if isinstance(value, RelaxExpr):
            # A Relax expression (``Function.bind_params({x: other_var})``) replaces the
            # parameter as it is; its static extents define the parameter's symbolic dims.
            _match_expr(param, value, tir_map)
            bound[param] = value
            continue
        array = np.require(_as_array(value, f"the value of {key!r}"), requirements="C")
        _match_param(param, array, tir_map, fname)
        bound[param] = Constant(array)
    if not bound:
        return func
    result = _Binder(bound, tir_map).visit_expr(func)
    params_left = [p for p, old in zip(result.params, func.params) if old not in bound]
    return Function(params_left, result.body, result.ret_ty, result.is_pure, result.attrs,
                    span=result.span)


@module_pass(opt_level=0, name="BindParams")
class BindParams:
    """Bind ``params`` (name or Var -> array) into function ``func_name`` as constants.

    Parameters
    ----------
    func_name : str
        The function whose parameters are bound.
    params : dict
        Parameter name (or ``relax.Var``) -> ``numpy.ndarray`` or ``tvm.runtime.Tensor``.
    """

    def __init__(self, func_name: str, params: dict):
        if not isinstance(params, dict):
            raise TypeError(f"BindParams: params must be a dict, got {type(params).__name__}")
        self.func_name = func_name
        self.params = params

    def transform_module(self, mod, ctx):
        """Replace the named function's parameters listed in ``params`` by constants.

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            A copy in which the function is bound; ``mod`` itself when nothing was bound.

        Raises
        ------
        ValueError
            When the module has no function of that name.
        TypeError
            When that function is not a Relax function.
        """
        if self.func_name not in mod:
            raise ValueError(
                f"BindParams: the module has no function {self.func_name!r}; functions: "
                f"{sorted(g.name_hint for g in mod.get_global_vars())}"
            )
        gvar = mod.get_global_var(self.func_name)
        func = mod[gvar]
        if not isinstance(func, Function):
            raise TypeError(f"BindParams: {self.func_name} is not a Relax function")
        new_func = bind_params(func, self.params, self.func_name)
        if new_func is func:
            return mod
        bb = BlockBuilder(mod)  # a copy of the module: the input stays as it is
        bb.update_func(gvar, bb.normalize(new_func))
        return bb.get()
