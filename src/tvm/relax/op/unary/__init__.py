"""Unary elementwise ops (``relax.exp``, ``relax.abs``, ``relax.isnan``, ``relax.clip``, ...).

Each row of ``UNARY_OPS`` declares one op and its kind; the kind picks the inference rule
(:mod:`.infer`). Constructors are generated from the rows, so adding an elementwise op is one
row here plus one entry in :mod:`.reference`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...expr import Call
from ..infer_utils import prim_value_arg
from ..registry import register_relax_op
from . import infer
from .infer import infer_clip

#: (op name, kind, description). Kinds: ``float`` (float dtype required), ``any`` (any dtype,
#: same type out), ``check`` (bool out).
UNARY_OPS = (
    ("abs", "any", "Absolute value."),
    ("acos", "float", "Inverse cosine."),
    ("acosh", "float", "Inverse hyperbolic cosine."),
    ("asin", "float", "Inverse sine."),
    ("asinh", "float", "Inverse hyperbolic sine."),
    ("atan", "float", "Inverse tangent."),
    ("atanh", "float", "Inverse hyperbolic tangent."),
    ("bitwise_not", "any", "Bitwise NOT."),
    ("ceil", "any", "Round toward plus infinity."),
    ("cos", "float", "Cosine."),
    ("cosh", "float", "Hyperbolic cosine."),
    ("erf", "float", "Gauss error function."),
    ("exp", "float", "Exponential."),
    ("floor", "any", "Round toward minus infinity."),
    ("isfinite", "check", "Whether each element is finite."),
    ("isinf", "check", "Whether each element is infinite."),
    ("isnan", "check", "Whether each element is NaN."),
    ("log", "float", "Natural logarithm."),
    ("logical_not", "any", "Logical NOT."),
    ("negative", "any", "Negation."),
    ("round", "any", "Round half to even."),
    ("rsqrt", "float", "Reciprocal square root."),
    ("sigmoid", "float", "Logistic sigmoid."),
    ("sign", "any", "Sign (-1, 0 or 1)."),
    ("sin", "float", "Sine."),
    ("sinh", "float", "Hyperbolic sine."),
    ("sqrt", "float", "Square root."),
    ("square", "any", "Square."),
    ("tan", "float", "Tangent."),
    ("tanh", "float", "Hyperbolic tangent."),
    ("trunc", "any", "Round toward zero."),
)

_RULES = {
    "float": infer.infer_unary_float,
    "any": infer.infer_unary_any,
    "check": infer.infer_unary_check,
}

_OPS = {
    name: register_relax_op(name, 1, "unary", _RULES[kind], description=doc)
    for name, kind, doc in UNARY_OPS
}
_CLIP = register_relax_op(
    "clip", 3, "unary", infer_clip, description="Clamp each element into [min, max]."
)


def _make_constructor(name, doc):
    def constructor(x):
        return Call(_OPS[name], [x])

    constructor.__name__ = constructor.__qualname__ = name
    constructor.__doc__ = f"``R.{name}(x)``: {doc}"
    return constructor


for _name, _kind, _doc in UNARY_OPS:
    globals()[_name] = _make_constructor(_name, _doc)


def clip(x, min, max) -> Call:
    """``R.clip(x, min, max)``: clamp each element of ``x`` into ``[min, max]``.

    ``min`` and ``max`` are scalars (Python numbers or PrimExprs, carried as ``PrimValue``).
    """
    return Call(_CLIP, [x, prim_value_arg(min, "clip", "min"), prim_value_arg(max, "clip", "max")])


__all__ = [name for name, _, _ in UNARY_OPS] + ["clip"]

if TYPE_CHECKING:
    # The constructors the loop above makes, as a type checker sees them (it cannot follow
    # ``globals()``); tests/test_typing.py checks these against the table.
    from ...expr import Expr

    __all__ += ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_not", "ceil",
                "cos", "cosh", "erf", "exp", "floor", "isfinite", "isinf", "isnan", "log",
                "logical_not", "negative", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
                "sqrt", "square", "tan", "tanh", "trunc"]

    def abs(x: Expr) -> Call: ...
    def acos(x: Expr) -> Call: ...
    def acosh(x: Expr) -> Call: ...
    def asin(x: Expr) -> Call: ...
    def asinh(x: Expr) -> Call: ...
    def atan(x: Expr) -> Call: ...
    def atanh(x: Expr) -> Call: ...
    def bitwise_not(x: Expr) -> Call: ...
    def ceil(x: Expr) -> Call: ...
    def cos(x: Expr) -> Call: ...
    def cosh(x: Expr) -> Call: ...
    def erf(x: Expr) -> Call: ...
    def exp(x: Expr) -> Call: ...
    def floor(x: Expr) -> Call: ...
    def isfinite(x: Expr) -> Call: ...
    def isinf(x: Expr) -> Call: ...
    def isnan(x: Expr) -> Call: ...
    def log(x: Expr) -> Call: ...
    def logical_not(x: Expr) -> Call: ...
    def negative(x: Expr) -> Call: ...
    def round(x: Expr) -> Call: ...
    def rsqrt(x: Expr) -> Call: ...
    def sigmoid(x: Expr) -> Call: ...
    def sign(x: Expr) -> Call: ...
    def sin(x: Expr) -> Call: ...
    def sinh(x: Expr) -> Call: ...
    def sqrt(x: Expr) -> Call: ...
    def square(x: Expr) -> Call: ...
    def tan(x: Expr) -> Call: ...
    def tanh(x: Expr) -> Call: ...
    def trunc(x: Expr) -> Call: ...

from . import reference  # noqa: F401 - registers FReference after the ops exist
