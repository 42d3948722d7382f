"""``@R.function`` and the value constructors of Relax TVMScript (``R.const``, ``R.shape``...)."""

from __future__ import annotations

import inspect

from tvm import relax

from ..core.entry import parse
from ..core.utils import capture_caller_vars, capture_function_vars, is_defined_in_class_body
from .types import (  # noqa: F401 - the annotation proxies live here in TVM
    AnyProxy,
    CallableProxy,
    ObjectProxy,
    PrimProxy,
    ShapeProxy,
    TensorProxy,
    TupleProxy,
    TypeProxy,
)

__all__ = [
    "ExternFunc",
    "MatchCastPair",
    "const",
    "dtype",
    "function",
    "match_cast",
    "prim_value",
    "shape",
    "str",
    "tuple",
]

_str = str
_tuple = tuple  # ``tuple`` below is R.tuple


def function(f=None, pure: bool = True, private: bool = False, check_well_formed=True):
    """Decorate a Python function written in Relax TVMScript.

    Parameters
    ----------
    f : function, optional
        The function (when used as ``@R.function`` without arguments).
    pure : bool
        Whether the function is pure (has no visible side effects).
    private : bool
        A private function gets no ``global_symbol`` attribute.
    check_well_formed : bool
        Run the well-formedness gate on the parsed function.

    Returns
    -------
    relax.Function, or the Python function itself inside an ``@I.ir_module`` class (whose
    decorator parses the whole class).
    """

    def _decorate(func, in_class, captured):
        if not inspect.isfunction(func):
            raise TypeError(f"@R.function expects a function, got {type(func).__name__}")
        if in_class:
            return func
        names = dict(captured)
        names.update(capture_function_vars(func))
        return parse(func, names, check_well_formed=check_well_formed, default_token="relax")

    if f is not None:
        return _decorate(f, is_defined_in_class_body(1), capture_caller_vars(1))

    def decorator(func):
        return _decorate(func, is_defined_in_class_body(1), capture_caller_vars(1))

    decorator.dispatch_token = "relax"
    return decorator


function.dispatch_token = "relax"


class MatchCastPair:
    """What ``R.match_cast(value, ty)`` evaluates to; the assignment binds it as a MatchCast."""

    def __init__(self, value, ty):
        self.value = value
        self.ty = ty


def match_cast(value, ty=None, *, struct_info=None):
    """``lv = R.match_cast(value, R.Tensor((m, n), "float32"))``: check and bind new shape vars."""
    from .types import as_type

    if struct_info is not None:
        ty = struct_info
    if ty is None:
        raise TypeError("match_cast() missing 1 required positional argument: 'ty'")
    if not isinstance(value, relax.Expr):
        raise TypeError(f"R.match_cast expects a Relax expression, got {value!r}")
    return MatchCastPair(value, as_type(ty))


def const(value, dtype=None):
    """``R.const(value, dtype)``: a constant tensor."""
    return relax.const(value, dtype)


def shape(value):
    """``R.shape([n, 4])``: a shape value."""
    if not isinstance(value, (list, _tuple)):
        raise TypeError(f"R.shape expects a list of dimensions, got {value!r}")
    return relax.ShapeExpr(list(value))


def prim_value(value):
    """``R.prim_value(value)``: a scalar as a Relax value."""
    return relax.prim_value(value)


def tuple(*fields):
    """``R.tuple(a, b, ...)``: a tuple value of Relax expressions (``R.tuple()`` is empty)."""
    return relax.Tuple(list(fields))


def str(value):
    """``R.str("text")``: a string value."""
    return relax.StringImm(value)


def dtype(value):
    """``R.dtype("float32")``: a dtype value."""
    return relax.DataTypeImm(_str(value))


def ExternFunc(global_symbol, ty=None):
    """``R.ExternFunc("name")``: a runtime function."""
    return relax.ExternFunc(global_symbol, ty)


def _as_arg(value):
    """A Python argument of a packed call as a Relax value (as TVM's ``R.call_packed`` does)."""
    if isinstance(value, relax.Expr):
        return value
    if isinstance(value, _str):
        return relax.StringImm(value)
    if isinstance(value, (bool, int, float)):
        return relax.prim_value(value)
    if isinstance(value, (list, _tuple)):
        return relax.Tuple([_as_arg(v) for v in value])
    from tvm.ir import PrimExpr

    if isinstance(value, PrimExpr):
        return relax.PrimValue(value)
    raise TypeError(f"Cannot pass {value!r} to a packed function")


def _type_kwargs(kwargs):
    """``ty_args=`` / ``sinfo_args=`` as Relax types (bare ``R.Object`` in a list is allowed)."""
    from .types import as_type

    for key in ("ty_args", "sinfo_args"):
        value = kwargs.get(key)
        if isinstance(value, (list, _tuple)):
            kwargs[key] = [as_type(v) for v in value]
        elif value is not None:
            kwargs[key] = as_type(value)
    return kwargs


def call_packed(func, *args, **kwargs):
    """``R.call_packed("name", *args, ty_args=...)``: Python numbers and strings become Relax
    values, then ``relax.op.call_packed`` builds the call."""
    from tvm.relax import op as relax_op

    return relax_op.call_packed(func, *(_as_arg(a) for a in args), **_type_kwargs(kwargs))


def call_pure_packed(func, *args, **kwargs):
    """``R.call_pure_packed``: like :func:`call_packed`, for a packed function known pure."""
    from tvm.relax import op as relax_op

    return relax_op.call_pure_packed(func, *(_as_arg(a) for a in args), **_type_kwargs(kwargs))
