"""The ``T`` namespace of TVMScript: ``@T.prim_func`` and the TIR dialect.

``from tvm.script import tirx as T`` gives this module. It holds

* the decorator :func:`prim_func` (the parse handlers are in :mod:`.parser`);
* the IR-builder calls of :mod:`tvm.script.ir_builder.tirx` (``T.alloc_buffer``,
  ``T.match_buffer``, ``T.grid``, ``T.sblock``, ``T.axis``, ``T.reads``...);
* the dtype constructors (``n = T.int64()``, ``T.int64(3)``, ``T.float32(1.0)``; a bare
  ``T.int64`` as a scalar annotation), also used by Relax shapes, and ``T.handle``/``T.let``.

Any other ``T.<name>`` falls back to ``tvm.tirx.<name>`` (``T.floordiv``, ``T.Cast``,
``T.exp``, ``T.call_extern``...).
"""

from __future__ import annotations

import builtins
import importlib

__all__ = ["DTYPE_CONSTRUCTORS", "dtype_constructor", "prim_func"]

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

# The TIR dialect proper: builder calls, the decorator, and the parse handlers.
from ....tirx.layout import Axis, ComposeLayout, Iter, R, S, TileLayout  # noqa: F401
from ...ir_builder.tirx import (  # noqa: F401
    Assert,
    Bind,
    Buffer,
    Else,
    If,
    Then,
    While,
    alloc_buffer,
    alloc_local,
    alloc_shared,
    attr,
    axis,
    buffer_store,
    decl_buffer,
    env_thread,
    evaluate,
    func_attr,
    func_name,
    func_ret,
    grid,
    init,
    launch_thread,
    match_buffer,
    parallel,
    reads,
    sblock,
    sblock_alloc_buffer,
    sblock_attr,
    serial,
    thread_binding,
    unroll,
    vectorized,
    where,
    writes,
)
from . import parser as _parser  # noqa: F401 - registers the "tirx" handlers
from .entry import handle, let, macro, prim_func  # noqa: F401


def index_map(mapping, *, inverse_index_map=None, index_dtype="int64"):
    """``T.index_map(lambda i, j: (j, i))``: a ``tirx.IndexMap`` built from ``mapping``."""
    tirx = importlib.import_module("tvm.tirx")
    return tirx.IndexMap.from_func(
        mapping, inverse_index_map=inverse_index_map, index_dtype=index_dtype
    )


def __getattr__(name):
    # Everything else comes from tvm.tirx (T.floordiv, T.max, T.Cast, T.IntImm...).
    tirx = importlib.import_module("tvm.tirx")
    try:
        return getattr(tirx, name)
    except AttributeError:
        raise AttributeError(
            f"T.{name} is not available: it is neither a TIR TVMScript construct nor a "
            "tvm.tirx name"
        ) from None
