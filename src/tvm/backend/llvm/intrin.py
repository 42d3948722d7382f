"""The LLVM target's intrinsic table: how each ``tirx`` math op is lowered for ``llvm``.

The rules (functions ``Call -> PrimExpr``) are :data:`INTRIN_RULES`, the ``intrin_rules`` of the
llvm backend in the ``tvm.backend`` table, which ``tvm.tirx.transform.LowerIntrin`` applies to
functions of kind ``llvm``. Each is also registered as the op attribute
``"llvm.FLowerIntrinsic"``: the code generator applies them for calls that reach it unlowered. A rule maps
an op onto one of:

* an LLVM intrinsic (``T.call_llvm_pure_intrin(dtype, "llvm.exp", x)``), which LLVM may turn
  into vector code or libm calls itself (``exp``, ``log``, ``sqrt``, ``floor``...);
* a libm function (``T.call_pure_extern("float32", "tanhf", x)``) for the ops LLVM has no
  intrinsic for;
* an expression over other ops (``sigmoid(x) = 1 / (1 + exp(-x))``, ``rsqrt``).

float16/bfloat16 arguments are computed in float32 (cast in, call, cast back), since libm has
no half-precision functions. Integer arguments of math ops are rejected by the code generator.
"""

from __future__ import annotations

from ...ir.op import register_op_attr
from ...tirx import op as tir_op
from ...tirx.expr import NE, Call, Cast, FloatImm, Let, Select, Var
from ...tirx.generic import cast

ATTR_KEY = "llvm.FLowerIntrinsic"

# Ops with an LLVM intrinsic of the same meaning: tirx name -> llvm intrinsic name.
LLVM_INTRINSICS = {
    "exp": "llvm.exp", "exp2": "llvm.exp2", "exp10": "llvm.exp10", "log": "llvm.log",
    "log2": "llvm.log2", "log10": "llvm.log10", "sqrt": "llvm.sqrt", "fabs": "llvm.fabs",
    "floor": "llvm.floor", "ceil": "llvm.ceil", "round": "llvm.roundeven",
    "trunc": "llvm.trunc", "nearbyint": "llvm.nearbyint", "sin": "llvm.sin", "cos": "llvm.cos",
    "pow": "llvm.pow", "copysign": "llvm.copysign", "fma": "llvm.fma",
}
# Ops lowered to libm: tirx name -> C function name for double (float adds an "f").
LIBM_FUNCTIONS = {
    "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh",
    "cosh": "cosh", "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
    "erf": "erf", "log1p": "log1p", "atan2": "atan2", "fmod": "fmod", "hypot": "hypot",
    "nextafter": "nextafter",
}
_NARROW_FLOATS = ("float16", "bfloat16")


def _widened(call: Call, build):
    """Compute half-precision calls in float32: cast the arguments in and the result back."""
    dtype = call.dtype
    lanes = dtype.split("x")[1] if "x" in dtype else ""
    element = dtype.split("x")[0]
    if element not in _NARROW_FLOATS:
        return build(dtype, list(call.args))
    wide = "float32" + (f"x{lanes}" if lanes else "")
    args = [cast(a, wide) if a.dtype.split("x")[0] in _NARROW_FLOATS else a for a in call.args]
    return Cast(dtype, build(wide, args))


def _llvm_rule(intrinsic):
    def lower(call: Call):
        return _widened(call, lambda dt, args: tir_op.call_llvm_pure_intrin(dt, intrinsic, *args))

    return lower


def _libm_rule(name):
    def lower(call: Call):
        def build(dtype, args):
            element = dtype.split("x")[0]
            func = name + "f" if element == "float32" else name
            return tir_op.call_pure_extern(dtype, func, *args)

        return _widened(call, build)

    return lower


def _lower_sigmoid(call: Call):
    def build(dtype, args):
        one = FloatImm(dtype, 1.0)
        exp = tir_op.call_llvm_pure_intrin(dtype, "llvm.exp", -args[0])
        return one / (one + exp)

    return _widened(call, build)


def _lower_rsqrt(call: Call):
    def build(dtype, args):
        return FloatImm(dtype, 1.0) / tir_op.call_llvm_pure_intrin(dtype, "llvm.sqrt", args[0])

    return _widened(call, build)


#: float32 erf (``_lower_erf``): ``erf(x) = x * P(x * x) / Q(x * x)`` on ``|x| <= ERF_CLAMP``
#: (beyond it erf rounds to +-1 in float32), ``P`` and ``Q`` (lowest degree first, degree 5
#: each) a rational least-squares fit of ``erf(x) / x`` made for pytvm (relative error 3e-9
#: in double). Within 6 ulp (3.4e-7) of erf in float32, checked on [-6, 6] and tiny |x| in
#: tests/backend/llvm/test_fast_math.py; 16 vector operations and one division, where
#: libm's erff is a scalar call per element (7.6 ns each: GELU's whole cost).
ERF_CLAMP = 3.925
ERF_P = (1.1283791458234784, 0.19056464789669597, 0.05276597363045754,
         0.003771447412200193, 0.0002848443032589232, 2.0465872065463913e-06)
ERF_Q = (1.0, 0.5022162542649614, 0.11417116835059239, 0.014980966225264875,
         0.0011636381540215352, 3.80536111990706e-05)


def _horner(coefs, x, dtype):
    acc = FloatImm(dtype, coefs[-1])
    for c in coefs[-2::-1]:
        acc = acc * x + FloatImm(dtype, c)
    return acc


def _lower_erf(call: Call):
    def build(dtype, args):
        if dtype != "float32":  # float64 (and vectors): libm's erf
            return _libm_rule("erf")(Call(dtype, call.op, args))
        x = Var("erf_x", dtype)
        one = FloatImm(dtype, 1.0)
        clamp = FloatImm(dtype, ERF_CLAMP)
        # min/max of NaN give the bound (llvm.minnum): NaN is passed through by the Select.
        xc = tir_op.call_llvm_pure_intrin(
            dtype, "llvm.maxnum", tir_op.call_llvm_pure_intrin(dtype, "llvm.minnum", x, clamp),
            FloatImm(dtype, -ERF_CLAMP))
        u = Var("erf_u", dtype)
        ratio = xc * _horner(ERF_P, u, dtype) / _horner(ERF_Q, u, dtype)
        # The rounding of P / Q can reach 1 + 1 ulp near the clamp: keep |erf| <= 1.
        bounded = tir_op.call_llvm_pure_intrin(
            dtype, "llvm.maxnum", tir_op.call_llvm_pure_intrin(dtype, "llvm.minnum", ratio, one),
            -one)
        return Let(x, args[0], Select(NE(x, x), x, Let(u, xc * xc, bounded)))

    return _widened(call, build)


def _lower_ldexp(call: Call):
    def build(dtype, args):
        element = dtype.split("x")[0]
        func = "ldexpf" if element == "float32" else "ldexp"
        return tir_op.call_pure_extern(dtype, func, args[0], cast(args[1], "int32"))

    return _widened(call, build)


def _rules() -> dict:
    rules = {}
    for name, intrinsic in LLVM_INTRINSICS.items():
        rules[f"tirx.{name}"] = _llvm_rule(intrinsic)
    for name, func in LIBM_FUNCTIONS.items():
        rules[f"tirx.{name}"] = _libm_rule(func)
    rules["tirx.sigmoid"] = _lower_sigmoid
    rules["tirx.rsqrt"] = _lower_rsqrt
    rules["tirx.ldexp"] = _lower_ldexp
    rules["tirx.erf"] = _lower_erf
    return rules


#: Op name -> rule: the ``intrin_rules`` of the llvm ``tvm.backend.Backend`` (LowerIntrin).
INTRIN_RULES = _rules()


def register_intrinsic_rules() -> None:
    """Register every rule as the op attribute ``ATTR_KEY`` too (idempotent).

    The code generator reads the op attribute for calls that reach it unlowered.
    """
    for op_name, rule in INTRIN_RULES.items():
        register_op_attr(op_name, ATTR_KEY, rule)


register_intrinsic_rules()
