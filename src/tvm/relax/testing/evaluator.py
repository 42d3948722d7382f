"""The reference evaluator: runs Relax functions on NumPy arrays without compiling them.

Every Relax op carries a NumPy reference rule (op attribute ``FReference``, authored in
``relax/op/<family>/reference.py``); the evaluator walks a function's bindings, evaluates each
op call with its rule, and returns NumPy arrays (tensors), tuples (Relax tuples), tuples of ints
(shapes) and Python numbers (``R.Prim`` values).

What it runs: tensors, tuples, ``If``, calls between module functions (and nested functions
and closures), ``match_cast`` (checked, binding symbolic vars), symbolic shapes bound from the
arguments at run time, ``ShapeExpr``/``PrimValue``/strings, packed functions registered with
``tvm.ffi.register_func`` (``R.call_packed``, ``R.call_pure_packed``, ``R.call_dps_packed``),
and ``R.call_tir`` through the PrimFunc interpreter (:mod:`tvm.tirx.interpreter`).

Each op result is checked against the call's inferred type (dtype, rank and every dim that can
be evaluated), so a reference rule and an inference rule that disagree fail loudly.

Examples
--------
>>> import numpy as np
>>> from tvm import relax, tirx
>>> from tvm.relax.testing import evaluate
>>> n = tirx.Var("n", "int64")
>>> x = relax.Var("x", relax.TensorType([n, 2], "float32"))
>>> bb = relax.BlockBuilder()
>>> with bb.function("main", [x]):
...     y = bb.emit(relax.op.nn.relu(x))
...     bb.emit_func_output(bb.emit(relax.op.sum(y, axis=[0])))
I.GlobalVar("main")
>>> evaluate(bb.get(), np.array([[1.0, -2.0], [3.0, 4.0]], "float32")).tolist()
[4.0, 4.0]
"""

from __future__ import annotations

import numpy as np

from ...error import InternalError
from ...ir.expr import GlobalVar, PrimExpr
from ...ir.op import Op
from ...ir.type import PrimType, TupleType
from ..expr import (
    Call,
    Constant,
    DataTypeImm,
    ExternFunc,
    Function,
    If,
    MatchCast,
    PrimValue,
    SeqExpr,
    ShapeExpr,
    StringImm,
    Tuple,
    TupleGetItem,
    Var,
)
from ..ty import ObjectType, ShapeType, TensorType

__all__ = ["EVALUATOR_BUILTIN_OPS", "EvaluationError", "ReferenceEvaluator", "evaluate"]


class EvaluationError(ValueError):
    """A run-time check failed: an argument or ``match_cast`` does not fit its type."""


class Shape(tuple):
    """A runtime shape value (a tuple of ints), told apart from a Relax tuple of values."""

    __slots__ = ()


class _Closure:
    """A Relax function value: the function plus the variables it captured."""

    __slots__ = ("env", "evaluator", "func", "sym")

    def __init__(self, func, env, sym, evaluator):
        self.func, self.env, self.sym, self.evaluator = func, env, sym, evaluator

    def __call__(self, *args):
        return self.evaluator._call_function(self.func, list(args), dict(self.env), dict(self.sym))


def evaluate(mod, *args, func_name: str = "main"):
    """Run ``mod[func_name]`` on ``args`` (NumPy arrays, tuples, ints for shapes/scalars).

    Parameters
    ----------
    mod : IRModule or relax.Function
    *args
        One value per parameter: NumPy arrays (or anything with ``.numpy()``) for tensors,
        tuples for tuples and shapes, Python numbers for ``R.Prim`` parameters.
    func_name : str
        The function to run (ignored when ``mod`` is a Function).

    Returns
    -------
    numpy.ndarray, tuple, int, float, or None
    """
    if isinstance(mod, Function):
        from ...ir.module import IRModule

        mod = IRModule({"main": mod})
        func_name = "main"
    return ReferenceEvaluator(mod).run(func_name, *args)


class ReferenceEvaluator:
    """Evaluates the Relax functions of one IRModule with the ops' NumPy reference rules.

    Limitations: ``R.call_tir_inplace`` and VM builtins (``R.vm.*``) are not supported, and
    ops without an ``FReference`` rule raise a TypeError naming the op and the file to edit.
    """

    def __init__(self, mod):
        self.mod = mod

    def run(self, func_name: str, *args):
        """Call the module function ``func_name`` with ``args``."""
        func = self.mod[func_name]
        if not isinstance(func, Function):
            raise TypeError(
                f"evaluate expects {func_name!r} to be a Relax function, got {type(func).__name__}"
            )
        if len(args) != len(func.params):
            raise TypeError(f"{func_name} expects {len(func.params)} arguments, got {len(args)}")
        values = [_from_user(a, p.ty) for a, p in zip(args, func.params)]
        return _to_user(self._call_function(func, values, {}, {}))

    # --- functions and bindings ---------------------------------------------------------------

    def _call_function(self, func, args, env, sym):
        if len(args) != len(func.params):
            raise TypeError(f"the function expects {len(func.params)} arguments, got {len(args)}")
        for param, value in zip(func.params, args):
            self._match(value, param.ty, sym, f"parameter {param.name_hint}")
            env[param] = value
        result = self._eval(func.body, env, sym)
        ret = getattr(func, "ret_ty", None)
        if ret is not None:
            self._match(result, ret, sym, "the return value", bind=False)
        return result

    def _eval_seq(self, seq, env, sym):
        for block in seq.blocks:
            for binding in block.bindings:
                value = self._eval(binding.value, env, sym)
                if isinstance(binding, MatchCast):
                    self._match(value, binding.ty, sym, f"R.match_cast of {binding.var.name_hint}")
                env[binding.var] = value
        return self._eval(seq.body, env, sym)

    # --- expressions --------------------------------------------------------------------------

    def _eval(self, expr, env, sym):
        if isinstance(expr, Var):
            if expr not in env:
                raise ValueError(f"{expr.name_hint} is used before it is defined (invalid IR)")
            return env[expr]
        if isinstance(expr, Constant):
            return np.asarray(expr.data.numpy())
        if isinstance(expr, Tuple):
            return tuple(self._eval(f, env, sym) for f in expr.fields)
        if isinstance(expr, TupleGetItem):
            return self._eval(expr.tuple_value, env, sym)[expr.index]
        if isinstance(expr, ShapeExpr):
            return Shape(int(self._prim(v, sym)) for v in expr.values)
        if isinstance(expr, PrimValue):
            # A typed NumPy scalar, so references keep the value's dtype (float32 stays).
            return _np_dtype(expr.value.dtype).type(self._prim(expr.value, sym))
        if isinstance(expr, (StringImm, DataTypeImm)):
            return expr.value
        if isinstance(expr, SeqExpr):
            return self._eval_seq(expr, env, sym)
        if isinstance(expr, If):
            cond = self._eval(expr.cond, env, sym)
            branch = expr.true_branch if bool(np.asarray(cond)) else expr.false_branch
            return self._eval(branch, env, sym)
        if isinstance(expr, Function):
            return _Closure(expr, dict(env), dict(sym), self)
        if isinstance(expr, GlobalVar):
            return self._global(expr)
        if isinstance(expr, ExternFunc):
            return _packed(expr.global_symbol)
        if isinstance(expr, Call):
            return self._eval_call(expr, env, sym)
        raise TypeError(
            f"the reference evaluator does not support {type(expr).__name__} expressions"
        )

    def _global(self, gvar):
        func = self.mod[gvar]
        if isinstance(func, Function):
            return _Closure(func, {}, {}, self)
        raise TypeError(f"{gvar.name_hint} is a {type(func).__name__}; only R.call_tir can call it")

    def _prim(self, value, sym):
        if isinstance(value, (int, float, bool, np.generic)):
            return value
        # Lazy: the TIR interpreter is only needed when a PrimExpr has to be evaluated.
        from ...tirx.interpreter import evaluate_expr

        missing = [v for v in _free_tir_vars(value) if v not in sym]
        if missing:
            raise EvaluationError(
                f"symbolic variable {missing[0].name} is used before a "
                "parameter or match_cast defines it"
            )
        return evaluate_expr(value, sym)

    # --- calls --------------------------------------------------------------------------------

    def _eval_call(self, call, env, sym):
        op = call.op
        if isinstance(op, Op):
            special = _SPECIAL_CALLS.get(op.name)
            if special is not None:
                return special(self, call, env, sym)
            rule = op.get_attr("FReference")
            if rule is None:
                raise TypeError(
                    op.missing_rule_message(
                        "FReference", "the reference evaluator runs ops with it"
                    )
                )
            args = [self._eval(a, env, sym) for a in call.args]
            result = _as_tensors(rule(call.attrs, *args))
            if call.ty is not None:
                self._match(
                    result,
                    call.ty,
                    dict(sym),
                    f"the result of {op.name}",
                    bind=False,
                    internal=True,
                )
            return result
        callee = self._eval(op, env, sym)
        args = [self._eval(a, env, sym) for a in call.args]
        if isinstance(callee, _Packed):
            return callee.call(args)
        return callee(*args)

    def _out_arrays(self, call, sym):
        out_ty = call.ty_args[0] if len(call.ty_args) == 1 else TupleType(list(call.ty_args))
        tys = list(out_ty.fields) if isinstance(out_ty, TupleType) else [out_ty]
        arrays = []
        for ty in tys:
            if not isinstance(ty, TensorType) or getattr(ty.shape, "values", None) is None:
                raise TypeError(
                    f"{call.op.name}: the evaluator needs output types with known shapes, got {ty}"
                )
            shape = [int(self._prim(v, sym)) for v in ty.shape.values]
            arrays.append(np.zeros(shape, _np_dtype(ty.dtype)))
        return arrays, isinstance(out_ty, TupleType)

    def _call_tir(self, call, env, sym):
        from ...tirx.function import PrimFunc  # lazy: only call_tir needs the TIR layer
        from ...tirx.interpreter import run_prim_func

        gvar = call.args[0]
        func = self.mod[gvar]
        if not isinstance(func, PrimFunc):
            raise TypeError(
                f"R.call_tir expects a PrimFunc, but {gvar.name_hint} is a {type(func).__name__}"
            )
        inputs = self._eval(call.args[1], env, sym)
        inputs = list(inputs) if isinstance(inputs, tuple) else [inputs]
        outputs, is_tuple = self._out_arrays(call, sym)
        extra = []
        if len(call.args) > 2:
            extra = list(self._eval(call.args[2], env, sym))
        # np.require keeps 0-d arrays 0-d (np.ascontiguousarray would make them 1-d).
        contiguous = [np.require(a, requirements="C") for a in inputs]
        run_prim_func(func, contiguous + outputs + extra)
        return tuple(outputs) if is_tuple else outputs[0]

    def _call_dps_packed(self, call, env, sym):
        func = self._eval(call.args[0], env, sym)
        inputs = self._eval(call.args[1], env, sym)
        inputs = list(inputs) if isinstance(inputs, tuple) else [inputs]
        outputs, is_tuple = self._out_arrays(call, sym)
        from ...runtime import tensor  # lazy: runtime tensors only for packed calls

        out_tensors = [tensor(o) for o in outputs]
        func.call(inputs + out_tensors, convert_result=False)
        results = [t.numpy() for t in out_tensors]
        return tuple(results) if is_tuple else results[0]

    def _call_pure_packed(self, call, env, sym):
        func = self._eval(call.args[0], env, sym)
        return func.call([self._eval(a, env, sym) for a in call.args[1:]])

    def _print(self, call, env, sym):
        fmt = self._eval(call.args[0], env, sym)
        values = [_to_user(self._eval(a, env, sym)) for a in call.args[1:]]
        print(fmt.format(*values) if fmt else " ".join(str(v) for v in values))
        return ()

    def _shape_of(self, call, env, sym):
        return Shape(np.shape(self._eval(call.args[0], env, sym)))

    def _make_closure(self, call, env, sym):
        func = self._eval(call.args[0], env, sym)
        captured = self._eval(call.args[1], env, sym)
        return lambda *args: func(*captured, *args)

    def _invoke_closure(self, call, env, sym):
        closure = self._eval(call.args[0], env, sym)
        return closure(*self._eval(call.args[1], env, sym))

    # --- run-time type checks -----------------------------------------------------------------

    def _match(self, value, ty, sym, what, bind=True, internal=False):
        """Check ``value`` against ``ty``; bind its unbound symbolic dims when ``bind``."""
        error = InternalError if internal else EvaluationError
        if ty is None or isinstance(ty, ObjectType):
            return
        if isinstance(ty, TensorType):
            if not isinstance(value, np.ndarray):
                raise error(f"{what}: expected a tensor, got {type(value).__name__}")
            if ty.dtype != "void" and np.dtype(value.dtype) != _np_dtype(ty.dtype):
                raise error(f"{what}: expected dtype {ty.dtype}, got {value.dtype}")
            if ty.ndim != -1 and value.ndim != ty.ndim:
                raise error(f"{what}: expected ndim {ty.ndim}, got shape {value.shape}")
            dims = getattr(ty.shape, "values", None)
            if dims is None and isinstance(ty.shape, Var) and bind is False:
                return
            if dims is not None:
                self._match_dims(value.shape, dims, sym, what, bind, error)
            return
        if isinstance(ty, ShapeType):
            if not isinstance(value, tuple):
                raise error(f"{what}: expected a shape, got {type(value).__name__}")
            if ty.ndim != -1 and len(value) != ty.ndim:
                raise error(f"{what}: expected a shape of ndim {ty.ndim}, got {tuple(value)}")
            if ty.values is not None:
                self._match_dims(value, ty.values, sym, what, bind, error)
            return
        if isinstance(ty, TupleType):
            if not isinstance(value, tuple) or len(value) != len(ty.fields):
                raise error(
                    f"{what}: expected a tuple of {len(ty.fields)} values, got "
                    f"{type(value).__name__}"
                )
            for i, (v, t) in enumerate(zip(value, ty.fields)):
                self._match(v, t, sym, f"{what}[{i}]", bind, internal)
            return
        if isinstance(ty, PrimType):
            if not isinstance(value, (int, float, bool, np.generic)):
                raise error(f"{what}: expected a {ty.dtype} scalar, got {type(value).__name__}")
            expr = getattr(ty, "value", None)
            if expr is not None:
                self._match_dims((value,), (expr,), sym, what, bind, error)

    def _match_dims(self, actual, dims, sym, what, bind, error):
        from ...tirx.expr import Var as TirVar  # lazy: TIR vars only for symbolic shapes

        if len(actual) != len(dims):
            raise error(f"{what}: expected {len(dims)} dims, got shape {tuple(actual)}")
        for i, (have, want) in enumerate(zip(actual, dims)):
            if isinstance(want, TirVar) and want not in sym:
                if bind:
                    sym[want] = int(have)
                continue
            if any(v not in sym for v in _free_tir_vars(want)):
                continue  # not decidable here (a dim defined later)
            expect = self._prim(want, sym)
            if int(expect) != int(have):
                raise error(
                    f"{what}: dim {i} is {int(have)}, but the type requires {want} = {int(expect)}"
                )


_SPECIAL_CALLS = {
    "relax.call_tir": ReferenceEvaluator._call_tir,
    # The gradient's call_tir variant runs its PrimFunc the same way (the gradient name is only
    # read by the Gradient pass).
    "relax.call_tir_with_grad": ReferenceEvaluator._call_tir,
    "relax.call_dps_packed": ReferenceEvaluator._call_dps_packed,
    "relax.call_pure_packed": ReferenceEvaluator._call_pure_packed,
    "relax.print": ReferenceEvaluator._print,
    "relax.shape_of": ReferenceEvaluator._shape_of,
    "relax.null_value": lambda self, call, env, sym: None,
    "relax.make_closure": ReferenceEvaluator._make_closure,
    "relax.invoke_closure": ReferenceEvaluator._invoke_closure,
    "relax.invoke_pure_closure": ReferenceEvaluator._invoke_closure,
}


#: Ops the evaluator runs itself (calls into PrimFuncs, packed functions, closures, printing)
#: rather than through an ``FReference`` rule.
EVALUATOR_BUILTIN_OPS = frozenset(_SPECIAL_CALLS)


class _Packed:
    """A global packed function, called with runtime tensors and giving NumPy back."""

    __slots__ = ("func", "name")

    def __init__(self, name, func):
        self.name, self.func = name, func

    def call(self, args, convert_result=True):
        from ...runtime import tensor  # lazy: runtime tensors only for packed calls

        ffi_args = [tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        result = self.func(*ffi_args)
        return _from_user(result) if convert_result else result


def _packed(name):
    from ...ffi import get_global_func  # lazy: the registry only for packed calls

    func = get_global_func(name, allow_missing=True)
    if func is None:
        raise ValueError(
            f"the packed function {name!r} is not registered (register it with "
            "tvm.ffi.register_func)"
        )
    return _Packed(name, func)


def _free_tir_vars(expr):
    from ...tirx.analysis import undefined_vars  # lazy: TIR analysis for symbolic dims

    if not isinstance(expr, PrimExpr):
        return []
    return undefined_vars(expr)


def _np_dtype(dtype):
    from ..op.registry import reference_dtype

    return reference_dtype(dtype)


def _as_tensors(value):
    """NumPy scalars from 0-d computations (``np.clip`` of a 0-d array) as 0-d arrays."""
    if isinstance(value, tuple):
        return tuple(_as_tensors(v) for v in value)
    if isinstance(value, np.generic):
        return np.asarray(value)
    return value


def _from_user(value, ty=None):
    """A user argument (or packed-call result) as an evaluator value, guided by its type."""
    if isinstance(ty, ShapeType) and isinstance(value, (list, tuple)):
        return Shape(int(v) for v in value)
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "numpy") and callable(value.numpy):
        return np.asarray(value.numpy())
    if isinstance(value, (list, tuple)):
        fields = list(ty.fields) if isinstance(ty, TupleType) else [None] * len(value)
        if len(fields) != len(value):
            fields = [None] * len(value)
        return tuple(_from_user(v, t) for v, t in zip(value, fields))
    if isinstance(value, np.generic):
        return value.item()
    return value


def _to_user(value):
    """Evaluator values to results: arrays, tuples (shapes become plain tuples of ints)."""
    if isinstance(value, Shape):
        return tuple(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return tuple(_to_user(v) for v in value)
    return value
