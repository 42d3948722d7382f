"""The ``c`` target's intrinsic table: ``tirx`` math ops as calls of the C math library.

:data:`INTRIN_RULES` (the ``intrin_rules`` of the c backend, which ``LowerIntrin`` applies)
maps ``T.exp(x)`` to ``T.call_pure_extern("float32", "expf", x)`` (``exp`` for float64);
float16/bfloat16 arguments are computed in float32 (cast in, call, cast back).
``sigmoid`` and ``rsqrt`` become expressions over ``exp``/``sqrt``. Ops of other dtypes are
left alone, and the code generator reports them.
"""

from __future__ import annotations

from ...tirx import op as tir_op
from ...tirx.expr import Call, FloatImm
from ...tirx.generic import cast

#: tirx op names that are C math functions of the same name (float adds an ``f``).
LIBM_FUNCTIONS = (
    "exp", "exp2", "log", "log2", "log10", "log1p", "expm1", "sqrt", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "floor", "ceil",
    "trunc", "nearbyint", "fabs", "pow", "atan2", "fmod", "erf", "hypot", "copysign",
    "nextafter", "cbrt",
)
_WIDENED = ("float16", "bfloat16")


def _libm_rule(name: str):
    def rule(call: Call):
        dtype = str(call.dtype)
        if dtype == "float64":
            return tir_op.call_pure_extern(dtype, name, *call.args)
        if dtype == "float32":
            return tir_op.call_pure_extern(dtype, name + "f", *call.args)
        if dtype in _WIDENED:
            args = [cast(a, "float32") for a in call.args]
            return cast(tir_op.call_pure_extern("float32", name + "f", *args), dtype)
        return call

    return rule


def _lower_sigmoid(call: Call):
    x = call.args[0]
    one = FloatImm(x.dtype, 1.0)
    return one / (one + tir_op.exp(-x))


def _lower_rsqrt(call: Call):
    x = call.args[0]
    return FloatImm(x.dtype, 1.0) / tir_op.sqrt(x)


def _rules() -> dict:
    rules = {f"tirx.{name}": _libm_rule(name) for name in LIBM_FUNCTIONS}
    rules["tirx.round"] = _libm_rule("nearbyint")  # TVM's round is round-half-to-even
    rules["tirx.sigmoid"] = _lower_sigmoid
    rules["tirx.rsqrt"] = _lower_rsqrt
    return rules


#: Op name -> rule ``Call -> PrimExpr``.
INTRIN_RULES = _rules()
