"""The C host target's intrinsic table: how each ``tirx`` math op is lowered for ``c``.

``INTRIN_RULES`` maps a ``tirx`` op name to a rule ``Call -> PrimExpr``; it is the
``intrin_rules`` of the ``c`` backend, which ``tvm.tirx.transform.LowerIntrin`` applies to
functions whose target kind is ``c``. Every math op becomes a call of the C library function
of its dtype (``<math.h>``): ``float32`` uses the ``f`` functions (``expf``, ``ceilf``),
``float64`` the plain ones; ``float16``/``bfloat16`` arguments are computed in float32 (cast
in, call, cast back). ``round`` is ``nearbyint`` (round half to even, as TVM's ``round`` and
NumPy's). ``sigmoid`` and ``rsqrt`` become expressions over ``exp``/``sqrt``.
"""

from __future__ import annotations

from ...tirx import op as tir_op
from ...tirx.expr import Call, Cast, FloatImm
from ...tirx.generic import cast

__all__ = ["INTRIN_RULES", "c_function_name"]

#: tirx op -> C function for double (float32 appends ``f``).
C_FUNCTIONS = {
    name: name
    for name in (
        "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "tanh", "erf",
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
        "atanh", "floor", "ceil", "trunc", "nearbyint", "fabs", "pow", "atan2", "fmod",
        "copysign", "hypot", "nextafter", "fma",
    )
}
C_FUNCTIONS["round"] = "nearbyint"
_NARROW = ("float16", "bfloat16")


def c_function_name(op_name: str, dtype: str) -> str:
    """The C function computing ``op_name`` for a float32 or float64 ``dtype``."""
    base = C_FUNCTIONS[op_name]
    return base + "f" if dtype.split("x")[0] == "float32" else base


def _widened(call: Call, build):
    element = call.dtype.split("x")[0]
    if element not in _NARROW:
        if element not in ("float32", "float64"):
            raise ValueError(
                f"{call.op.name} of {call.dtype}: the C target has math functions for float "
                "dtypes only"
            )
        return build(call.dtype, list(call.args))
    wide = call.dtype.replace(element, "float32")
    args = [cast(a, wide) if a.dtype.split("x")[0] in _NARROW else a for a in call.args]
    return Cast(call.dtype, build(wide, args))


def _function_rule(op_name: str):
    def lower(call: Call):
        return _widened(call, lambda dtype, args: tir_op.call_pure_extern(
            dtype, c_function_name(op_name, dtype), *args))

    lower.__name__ = f"lower_{op_name}"
    return lower


def _lower_sigmoid(call: Call):
    def build(dtype, args):
        one = FloatImm(dtype, 1.0)
        return one / (one + tir_op.call_pure_extern(dtype, c_function_name("exp", dtype),
                                                    -args[0]))

    return _widened(call, build)


def _lower_rsqrt(call: Call):
    def build(dtype, args):
        return FloatImm(dtype, 1.0) / tir_op.call_pure_extern(
            dtype, c_function_name("sqrt", dtype), args[0])

    return _widened(call, build)


def _lower_ldexp(call: Call):
    def build(dtype, args):
        name = "ldexpf" if dtype == "float32" else "ldexp"
        return tir_op.call_pure_extern(dtype, name, args[0], cast(args[1], "int32"))

    return _widened(call, build)


def _rules() -> dict:
    rules = {f"tirx.{name}": _function_rule(name) for name in C_FUNCTIONS}
    rules["tirx.sigmoid"] = _lower_sigmoid
    rules["tirx.rsqrt"] = _lower_rsqrt
    rules["tirx.ldexp"] = _lower_ldexp
    return rules


#: Op name -> rule: the ``intrin_rules`` of the ``c`` ``tvm.backend.Backend``.
INTRIN_RULES = _rules()
