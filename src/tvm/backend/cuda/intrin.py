"""The CUDA target's intrinsic table: how each ``tirx`` math op is lowered for ``cuda``.

``INTRIN_RULES`` maps a ``tirx`` op name to a rule ``Call -> PrimExpr``. :func:`register_rules`
registers them as the op attribute ``"cuda.FLowerIntrinsic"``, which
``tvm.tirx.transform.LowerIntrin`` applies to functions whose target kind is ``cuda``; the CUDA
code generator also applies a rule to a call that reaches it unlowered.

The rules pick CUDA's math library by dtype: ``float32`` uses the ``f`` functions
(``expf``, ``tanhf``), ``float64`` the plain ones (``exp``), ``float16`` the ``cuda_fp16.h``
functions (``hexp``, ``hsqrt``...), ``bfloat16`` the ``cuda_bf16.h`` ones (``hexp`` is
overloaded for ``nv_bfloat16`` too). Ops CUDA has no half-precision function for compute in
float32 (cast in, call, cast back). ``sigmoid`` and ``rsqrt`` of float32 build expressions /
call ``rsqrtf``. Conversions between fp16/bf16/fp8 and float32 need no rule: the code
generator prints them as casts (``((float)x)``, ``((half)x)``), which the CUDA headers define.
"""

from __future__ import annotations

import threading

from ...ir.op import register_op_attr
from ...tirx import op as tir_op
from ...tirx.expr import Call, Cast, FloatImm

__all__ = ["ATTR_KEY", "INTRIN_RULES", "cuda_function_name", "register_rules"]

ATTR_KEY = "cuda.FLowerIntrinsic"

#: ops with a C math function: tirx name -> double-precision function name.
_MATH = (
    "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "tanh", "erf",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
    "floor", "ceil", "round", "trunc", "nearbyint", "fabs", "pow", "atan2", "fmod",
    "copysign", "hypot", "nextafter", "ldexp", "fma",
)
#: ops cuda_fp16.h / cuda_bf16.h provide for half and bfloat16 (prefix ``h``).
_HALF = {"exp": "hexp", "exp2": "hexp2", "exp10": "hexp10", "log": "hlog", "log2": "hlog2",
         "log10": "hlog10", "sqrt": "hsqrt", "rsqrt": "hrsqrt", "sin": "hsin", "cos": "hcos",
         "floor": "hfloor", "ceil": "hceil", "trunc": "htrunc", "nearbyint": "hrint",
         "round": "hrint", "fabs": "__habs"}
#: float32 ops whose name differs from ``<name>f``.
_FLOAT32 = {"round": "roundf", "nearbyint": "nearbyintf"}
_WIDENED = ("float16", "bfloat16")


def cuda_function_name(op_name: str, dtype: str) -> str | None:
    """The CUDA function computing ``op_name`` at ``dtype`` (a scalar dtype), or None."""
    element = dtype.split("x")[0]
    if element == "float32":
        return _FLOAT32.get(op_name, op_name + "f")
    if element == "float64":
        return op_name
    if element in _WIDENED:
        return _HALF.get(op_name)
    return None


def _math_rule(op_name):
    def lower(call: Call):
        element = call.dtype.split("x")[0]
        fn = cuda_function_name(op_name, call.dtype)
        if fn is not None:
            return tir_op.call_pure_extern(call.dtype, fn, *call.args)
        if element in _WIDENED:  # no half-precision function: compute in float32
            wide = call.dtype.replace(element, "float32")
            args = [Cast(wide, a) if a.dtype.split("x")[0] in _WIDENED else a
                    for a in call.args]
            return Cast(call.dtype, tir_op.call_pure_extern(wide, op_name + "f", *args))
        raise ValueError(
            f"{call.op.name} of {call.dtype} has no CUDA lowering (integer math is not "
            "supported; add a rule to src/tvm/backend/cuda/intrin.py)"
        )

    lower.__name__ = f"lower_{op_name}"
    return lower


def _sigmoid(call: Call):
    x = call.args[0]
    one = FloatImm(x.dtype, 1.0)
    return one / (one + tir_op.exp(-x))


def _popcount(call: Call):
    fn = "__popcll" if call.args[0].dtype.endswith("64") else "__popc"
    return tir_op.call_pure_extern(call.dtype, fn, *call.args)


def _clz(call: Call):
    fn = "__clzll" if call.args[0].dtype.endswith("64") else "__clz"
    return tir_op.call_pure_extern("int32", fn, *call.args)


#: tirx op name -> rule.
INTRIN_RULES: dict = {name: _math_rule(name) for name in _MATH}
INTRIN_RULES["sigmoid"] = _sigmoid
INTRIN_RULES["popcount"] = _popcount
INTRIN_RULES["clz"] = _clz

_REGISTERED = False
_LOCK = threading.Lock()


def register_rules() -> None:
    """Register ``INTRIN_RULES`` as ``"cuda.FLowerIntrinsic"`` op attributes (idempotent).

    The flag is set last, under a lock, so a second thread never sees it before the rules.
    """
    global _REGISTERED
    if _REGISTERED:
        return
    with _LOCK:
        if _REGISTERED:
            return
        for name, rule in INTRIN_RULES.items():
            register_op_attr(f"tirx.{name}", ATTR_KEY, rule)
        _REGISTERED = True
