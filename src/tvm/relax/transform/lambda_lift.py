"""``LambdaLift``: local functions become private global functions, closures where they capture.

A binding ``f = R.function(...)`` inside a function ``main`` becomes the module function
``main_f`` (private: no ``global_symbol``). The variables the local function uses from the
enclosing function (its *captures*) become extra parameters, after its own, and:

* with no captures, every use of ``f`` becomes the GlobalVar ``cls.main_f`` (a call is a direct
  call, a use as a value passes the function itself);
* with captures, the binding becomes ``f = R.make_closure(cls.main_f, (c1, ...))`` (of type
  ``R.Any``) and a call ``f(x)`` becomes ``R.invoke_pure_closure(f, (x,), ty_args=...)``
  (``R.invoke_closure`` when the function is impure). Inside ``main_f`` a recursive call
  ``f(x)`` is a direct call ``cls.main_f(x, c1, ...)``.

A call of a variable whose type stops being a function type (it holds a closure returned by a
lifted function) becomes ``invoke_pure_closure`` too. Functions nested deeper are lifted with
the name of the outermost global function as prefix (``main_inner``), as TVM names them.

Before::

    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        @R.function
        def outer(c1: R.Tensor((2, 3), "float32")):
            @R.function
            def inner(x1: R.Tensor((2, 3), "float32")):
                return R.add(x1, c1)
            return inner
        f = outer(x)
        return f(y)

After::

    @R.function(private=True)
    def main_inner(x1: R.Tensor((2, 3), "float32"), c1: R.Tensor((2, 3), "float32")):
        return R.add(x1, c1)

    @R.function(private=True)
    def main_outer(c1: R.Tensor((2, 3), "float32")) -> R.Any:
        inner: R.Any = R.make_closure(cls.main_inner, (c1,))
        return inner

    @R.function
    def main(x, y):
        f: R.Any = cls.main_outer(x)
        return R.invoke_pure_closure(f, (y,), ty_args=(R.Tensor((2, 3), "float32"),))

A local function that calls another capturing local function receives that closure as an
``R.Any`` parameter and calls it with ``R.invoke_pure_closure`` (TVM 0.27 prints an ill-formed
module for this case, with undefined variables; the result here is well formed).

Symbolic variables: a lifted function gets its own copies of its symbolic variables (each
belongs to one function). One it uses that no parameter annotation defines (its own, or that
of a captured variable) is captured too, as an ``R.Prim(value=n)`` parameter. (TVM 0.27 also
captures those that only a captured variable's annotation defines.)
"""

from __future__ import annotations

from ...ir.expr import GlobalVar
from ...ir.transform import module_pass
from ...ir.type import PrimType, TupleType
from ..analysis.type_analysis import tir_vars_in
from ..analysis.var_analysis import free_symbolic_vars
from ..expr import (
    Call,
    DataflowVar,
    Function,
    PrimValue,
    Var,
    VarBinding,
    function_keeping_ret_ty,
)
from ..expr_functor import ExprMutator, ExprVisitor
from ..op.base import invoke_closure, invoke_pure_closure, make_closure
from ..ty import FuncType, ObjectType
from ..utils import copy_with_new_vars
from ._utils import relax_functions

__all__ = ["LambdaLift"]


def _free_vars(func, exclude):
    """The Relax variables ``func`` uses without defining them, in order of first use."""
    used, defined = [], set()

    class _Collect(ExprVisitor):
        def visit_var_(self, var):
            if var not in used:
                used.append(var)

        visit_dataflow_var_ = visit_var_

        def visit_var_def_(self, var):
            defined.add(var)

        visit_dataflow_var_def_ = visit_var_def_

    _Collect().visit_expr(func)
    return [v for v in used if v not in defined and v is not exclude]


def has_nested_function(mod) -> bool:
    """Whether any Relax function of ``mod`` binds a local function (LambdaLift has work)."""
    found = []

    class _Find(ExprVisitor):
        def visit_var_binding_(self, binding):
            if isinstance(binding.value, Function):
                found.append(binding.var)
            super().visit_var_binding_(binding)

    for _, func in relax_functions(mod):
        _Find().visit_expr(func.body)
        if found:
            return True
    return False


def _contains_func_type(ty):
    if isinstance(ty, FuncType):
        return True
    if isinstance(ty, TupleType):
        return any(_contains_func_type(f) for f in ty.fields)
    return False


class _Lifter(ExprMutator):
    """Lifts the local functions of one global function (``top``) into ``self.builder_``."""

    def __init__(self, mod, top):
        super().__init__(mod)
        self.top = top
        # local var -> (GlobalVar, [capture params]) for direct recursive calls in its body.
        self.direct = {}

    # --- the lifting -------------------------------------------------------------------------
    def visit_var_binding_(self, binding):
        func = binding.value
        if not isinstance(func, Function):
            super().visit_var_binding_(binding)
            return
        local = binding.var
        free, captured = [], []  # the variables as the local function uses them; their values
        for var in _free_vars(func, local):
            value = self.var_remap_.get(var, var)
            if isinstance(value, GlobalVar):
                continue  # a capture-free local function: referenced by name
            free.append(var)
            captured.append(value)
        # Symbolic variables of the enclosing function that the local function uses but no
        # parameter annotation (its own or a captured variable's) defines: captured as
        # R.Prim(value=n) parameters.
        annotated = {id(v) for var in free if var.ty is not None for v in tir_vars_in(var.ty)}
        for sym in free_symbolic_vars(func):
            if id(sym) not in annotated:
                free.append(Var(sym.name, PrimType(sym.dtype, sym)))
                captured.append(PrimValue(sym))
        gvar = self._lift(local, func, free, captured)
        if not captured:
            self.set_var_remap(local, gvar)
            return
        closure = self.builder_.normalize(make_closure(gvar, captured))
        new_var = type(local)(local.name_hint, closure.ty, local.span)
        self.set_var_remap(local, new_var)
        self.builder_.emit_normalized(VarBinding(new_var, closure, span=binding.span))

    def _lift(self, local, func, free, captured):
        mod = self.builder_.get()
        name = base = f"{self.top}_{local.name_hint}"
        count = 0
        while name in mod:
            count += 1
            name = f"{base}{count}"
        # Captures become parameters (fresh, non-dataflow vars with the same names and types).
        # A parameter has the type of the captured value (a local closure is R.Any now).
        cap_params = [
            Var(v.name_hint, c.ty if isinstance(c, Var) else v.ty, v.span)
            for v, c in zip(free, captured)
        ]
        params = [
            Var(p.name_hint, p.ty, p.span) if isinstance(p, DataflowVar) else p
            for p in func.params
        ]
        declared = func.ret_ty if func.ret_ty is not None else ObjectType()
        ret_guess = ObjectType() if _contains_func_type(declared) else declared
        gvar = GlobalVar(
            name,
            ty=FuncType([p.ty for p in params + cap_params], ret_guess, func.is_pure),
        )
        inner = _Lifter(None, self.top)
        inner.builder_ = self.builder_  # lifted functions land in the same module
        inner.direct = dict(self.direct)
        inner.direct[local] = (gvar, cap_params)
        for old, new in zip(free, cap_params):
            inner.set_var_remap(old, new)
        for old, new in zip(func.params, params):
            if old is not new:
                inner.set_var_remap(old, new)
        # Variables captured by enclosing lifted functions keep their remapping.
        for old, new in self.var_remap_.items():
            if old not in inner.var_remap_ and isinstance(new, GlobalVar):
                inner.set_var_remap(old, new)
        self.builder_.begin_scope(params + cap_params)
        try:
            body = inner.visit_with_new_scope(func.body)
        finally:
            self.builder_.end_scope()
        ret_ty = func.ret_ty
        if ret_ty is None or _contains_func_type(ret_ty):
            ret_ty = body.ty  # a returned local function is now a closure (R.Any) or a gvar
        attrs = {k: v for k, v in _attrs(func).items() if k != "global_symbol"}
        lifted = Function(params + cap_params, body, ret_ty, func.is_pure, attrs or None,
                          span=func.span)
        # Its own copies of every variable: a symbolic variable belongs to one function.
        lifted = copy_with_new_vars(self.builder_.normalize(lifted))
        if ret_ty is func.ret_ty and ret_ty is not None and not tir_vars_in(ret_ty) and \
                lifted.ret_ty is not ret_ty:
            # As TVM's LambdaLift: the lifted function keeps its declared return type.
            lifted = function_keeping_ret_ty(lifted, ret_ty)
        self.builder_.update_func(gvar, lifted)
        return gvar

    # --- uses --------------------------------------------------------------------------------
    def visit_call_(self, call):
        op = call.op
        if isinstance(op, Var) and op in self.direct:
            gvar, caps = self.direct[op]
            args = [self.visit_expr(a) for a in call.args] + list(caps)
            return Call(gvar, args, call.attrs, call.ty_args, span=call.span)
        new = super().visit_call_(call)
        new_op = new.op
        if isinstance(new_op, Var) and not isinstance(new_op.ty, FuncType):
            # The callee now holds a closure object: call it through the VM's closure op.
            fty = op.ty if isinstance(op.ty, FuncType) else None
            ret = call.ty if call.ty is not None else ObjectType()
            args = list(new.args)
            if fty is not None and not fty.purity:
                return invoke_closure(new_op, args, [ret])
            return invoke_pure_closure(new_op, args, [ret])
        return new

    def visit_var_(self, var):
        if var in self.direct:
            gvar, caps = self.direct[var]
            # The recursive function used as a value: a closure over the same captures.
            return make_closure(gvar, caps) if caps else gvar
        return super().visit_var_(var)

    visit_dataflow_var_ = visit_var_


def _attrs(func):
    attrs = func.attrs
    if attrs is None:
        return {}
    return dict(attrs.items()) if hasattr(attrs, "items") else dict(attrs)


@module_pass(opt_level=0, name="LambdaLift")
class LambdaLift:
    """Lift local functions to private global functions; closures for those that capture."""

    def transform_module(self, mod, ctx):
        """Lift each local function to a private module function (a closure where it captures
        variables of the enclosing function).

        Parameters
        ----------
        mod : IRModule
            The module to transform; it is not modified.
        ctx : PassContext
            The pass context (unused).

        Returns
        -------
        IRModule
            The module with the lifted functions; ``mod`` itself when nothing is nested.
        """
        if not has_nested_function(mod):
            return mod
        lifter = None
        for gvar, func in relax_functions(mod):
            lifter = _Lifter(mod if lifter is None else lifter.builder_.get(), gvar.name_hint)
            new_func = lifter.visit_expr(func)
            if new_func is not func and _contains_func_type(new_func.ret_ty):
                # A returned local function is now a GlobalVar or a closure (R.Any).
                new_func = new_func.replace(ret_ty=new_func.body.ty)
            if new_func is not func:
                lifter.builder_.update_func(gvar, new_func)
            mod = lifter.builder_.get()
        return mod
