"""The ``T`` namespace used inside Relax scripts: dtype constructors for shape expressions.

This is the *extension point* for the TIR dialect. It provides what Relax TVMScript needs
from ``T`` (``n = T.int64()``, ``T.int64(3)``, ``T.float32(1.0)``, ``T.max(a, b)``...) and
nothing else: ``@T.prim_func`` bodies are not parsed here. The TIR dialect proper belongs in
``tvm/tirx/script/{parser,builder}``; once ``tvm.tirx.script`` exists, :mod:`tvm.script`
registers it as the ``tirx`` dialect instead of this module (see ``_tirx_package``), and it
should re-export these constructors (or import this module) so Relax scripts keep working.

Any other ``T.<name>`` falls back to ``tvm.tirx.<name>`` (``T.floordiv``, ``T.Cast``...).
"""

from __future__ import annotations

import builtins
import importlib

__all__ = ["DTYPE_CONSTRUCTORS", "dtype_constructor"]

#: The dtype constructors ``T.<name>(...)``; each name is also its dtype string.
DTYPE_CONSTRUCTORS = (
    "bool",
    "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "bfloat16",
    "float8_e4m3fn", "float8_e5m2",
)


def dtype_constructor(dtype: str):
    """``T.<dtype>``: no argument declares a variable; a number or PrimExpr makes a constant
    or a cast of that dtype."""

    def constructor(expr=None, is_size_var=False):
        tirx = importlib.import_module("tvm.tirx")
        if expr is None:
            # The variable's name comes from the assignment (``n = T.int64()``).
            return (tirx.SizeVar if is_size_var else tirx.Var)("", dtype)
        if isinstance(expr, builtins.bool) or (isinstance(expr, int) and dtype != "bool"):
            if dtype.startswith(("float", "bfloat")):
                return tirx.FloatImm(dtype, float(expr))
            return tirx.IntImm(dtype, int(expr))
        if isinstance(expr, float):
            if dtype.startswith(("int", "uint", "bool")):
                raise TypeError(f"T.{dtype}() expects an integer, got the float {expr!r}")
            return tirx.FloatImm(dtype, expr)
        if isinstance(expr, int):  # a bool dtype from an int
            return tirx.IntImm(dtype, int(builtins.bool(expr)))
        if isinstance(expr, str):
            return tirx.Var(expr, dtype)
        if getattr(expr, "dtype", None) == dtype:
            return expr
        return tirx.Cast(dtype, expr)

    constructor.__name__ = constructor.__qualname__ = dtype
    # Read by Relax annotations: a bare ``T.int64`` annotates an int64 scalar.
    constructor.prim_dtype = dtype
    constructor.__doc__ = f"``T.{dtype}(expr=None, is_size_var=False)``"
    return constructor


for _dtype in DTYPE_CONSTRUCTORS:
    globals()[_dtype] = dtype_constructor(_dtype)
del _dtype

dispatch_token = "tirx"


def __getattr__(name):
    # Everything else comes from tvm.tirx (T.floordiv, T.max, T.Cast, T.IntImm...).
    tirx = importlib.import_module("tvm.tirx")
    try:
        return getattr(tirx, name)
    except AttributeError:
        raise AttributeError(
            f"T.{name} is not available: this minimal T namespace only provides dtype "
            "constructors and tvm.tirx names (TIR functions are parsed by the TIR dialect)"
        ) from None
