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
import functools
import importlib
import inspect

__all__ = ["DTYPE_CONSTRUCTORS", "dtype_constructor", "prim_func"]

#: The dtype constructors ``T.<name>(...)``; each name is also its dtype string.
DTYPE_CONSTRUCTORS = (
    "bool",
    "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "uint128",  # uint128: b128 registers (ld.b128)
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
        lanes_at = dtype.rfind("x")
        if lanes_at > 0 and dtype[lanes_at + 1:].isdigit() and isinstance(
            expr, (builtins.bool, int, float)
        ):
            # ``T.float32x4(1.5)``: the scalar broadcast to the lanes, as in TVM 0.27.
            scalar = dtype_constructor(dtype[:lanes_at])(expr)
            return tirx.Broadcast(scalar, int(dtype[lanes_at + 1:]))
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
            if dtype.startswith(("float", "bfloat")):
                # ``T.float32("inf")`` / ``("-inf")`` / ``("nan")``: how non-finite constants
                # print (as in TVM 0.27, which converts the string with ``float``).
                try:
                    return tirx.FloatImm(dtype, float(expr))
                except ValueError:
                    pass
            return tirx.Var(expr, dtype)
        if getattr(expr, "dtype", None) == dtype:
            return expr
        return tirx.Cast(dtype, expr)

    return DtypeConstructor(dtype, constructor)


class LocalVectorAnnotation:
    """``x: T.f32[4]``: the annotation of a local vector (``T.alloc_local((4,), "float32")``)."""

    def __init__(self, dtype: str, shape: tuple):
        self.dtype = dtype
        self.shape = shape

    def __repr__(self):
        return f"T.{self.dtype}[{', '.join(map(str, self.shape))}]"


class DtypeConstructor:
    """``T.<dtype>``: called, a variable, constant or cast of the dtype; subscripted
    (``T.f32[4]``), a local-vector annotation; bare, a scalar annotation."""

    def __init__(self, dtype: str, make):
        self.prim_dtype = dtype  # read by annotations (a bare ``T.int64`` is a scalar type)
        self._make = make
        self.__name__ = self.__qualname__ = dtype
        self.__doc__ = f"``T.{dtype}(expr=None, is_size_var=False)``"

    def __call__(self, expr=None, is_size_var=False):
        return self._make(expr, is_size_var)

    def __getitem__(self, shape):
        shape = shape if isinstance(shape, tuple) else (shape,)
        return LocalVectorAnnotation(self.prim_dtype, shape)

    def __repr__(self):
        return f"T.{self.prim_dtype}"


for _dtype in DTYPE_CONSTRUCTORS:
    globals()[_dtype] = dtype_constructor(_dtype)
del _dtype

from .builders import NARROW_FLOAT_DTYPES, VECTOR_DTYPES

#: ``T.int32x4``, ``T.float8_e4m3fnx8``...: vector (and narrow float) dtype constructors.
EXTRA_DTYPE_CONSTRUCTORS = (
    *VECTOR_DTYPES,
    *NARROW_FLOAT_DTYPES,
    *(f"{base}x{lanes}" for base in (*NARROW_FLOAT_DTYPES, "float8_e4m3fn", "float8_e5m2")
      for lanes in (2, 4, 8, 16, 32, 64)),
)
for _dtype in EXTRA_DTYPE_CONSTRUCTORS:
    globals()[_dtype] = dtype_constructor(_dtype)
del _dtype
#: ``T.boolean`` is ``T.bool`` (the name TVM 0.27 also gives it).
boolean = globals()["bool"]

#: Short dtype names of TIRx kernels (``T.f32``, ``T.u32``, ...).
DTYPE_ALIASES = {
    "f16": "float16", "f32": "float32", "f64": "float64", "bf16": "bfloat16",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
}
for _alias, _dtype in DTYPE_ALIASES.items():
    globals()[_alias] = globals()[_dtype]
del _alias, _dtype

dispatch_token = "tirx"

# The TIR dialect proper: builder calls, the decorator, and the parse handlers.
from ....tirx.cuda_ops import cuda  # noqa: F401 - T.cuda
from ....tirx.intrin_namespaces import (  # noqa: F401 - T.nki, T.nvshmem, T.s_tir, ...
    metal,
    nki,
    nvshmem,
    ptx_legacy,
    s_tir,
    tvm_kernel_replace_point,
)
from ....tirx.layout import Axis, ComposeLayout, Iter, R, S, TileLayout  # noqa: F401
from ....tirx.op import fabs, fma  # noqa: F401 - T.fabs, T.fma (in T only, not tvm.tirx)
from ....tirx.ptx import ptx  # noqa: F401 - T.ptx
from ...ir_builder.tirx import (  # noqa: F401 - incl. the TIRx kernel constructs (D.3)
    Assert,
    Bind,
    Buffer,
    Else,
    If,
    TensorMap,
    Then,
    While,
    address_of,
    alloc_buffer,
    alloc_cast_frag,
    alloc_local,
    alloc_scalar,
    alloc_shared,
    alloc_tcgen05_ldst_frag,
    attr,
    axis,
    buffer_offset,
    buffer_store,
    cluster_id,
    cta_id,
    cta_id_in_cluster,
    cta_id_in_pair,
    decl_buffer,
    decl_scalar,
    device_entry,
    elected,
    env_thread,
    evaluate,
    func_attr,
    func_name,
    func_ret,
    grid,
    hint,
    init,
    lane_id,
    launch_thread,
    local_scalar,
    match_buffer,
    meta_var,
    parallel,
    reads,
    sblock,
    sblock_alloc_buffer,
    sblock_attr,
    scope_id,
    serial,
    shared_scalar,
    smem,
    static_assert,
    thread_binding,
    thread_id,
    thread_id_in_wg,
    tmem,
    unroll,
    vectorized,
    warp_id,
    warp_id_in_wg,
    warpgroup_id,
    wg_reg_tile,
    where,
    writes,
)
from . import parser as _parser  # noqa: F401 - registers the "tirx" handlers
from . import tile  # noqa: F401 - ``from tvm.script.tirx import tile as Tx``
from .builders import (  # noqa: F401
    bind,
    broadcast,
    buffer_var,
    comm_reducer,
    ptr,
    ramp,
    target,
    var,
)
from .entry import (  # noqa: F401
    Optional,
    constexpr,
    handle,
    inline,
    jit,
    let,
    macro,
    meta_class,
    prim_func,
)
from .tile import cluster, cta, warp, warpgroup, wg  # noqa: F401 - T.cta.copy(...)


def index_map(mapping, *, inverse_index_map=None, index_dtype="int64"):
    """``T.index_map(lambda i, j: (j, i))``: a ``tirx.IndexMap`` built from ``mapping``."""
    tirx = importlib.import_module("tvm.tirx")
    return tirx.IndexMap.from_func(
        mapping, inverse_index_map=inverse_index_map, index_dtype=index_dtype
    )


def Let(expr, where):  # noqa: F811 - the keyword is `where` (shadows T.where here only)
    """``T.Let(body, where={var: value})``: the expression ``body`` with ``var`` bound to
    ``value`` (a ``tvm.tirx.Let``; the printer writes Let expressions this way)."""
    tirx = importlib.import_module("tvm.tirx")
    if not isinstance(where, dict) or len(where) != 1:
        raise ValueError(f"T.Let needs `where` with exactly one {{var: value}} entry, "
                         f"got {where!r}")
    (bound, value), = where.items()
    return tirx.Let(bound, value, expr)


def cast(value, dtype, span=None):
    """``T.cast(x, "float16")``: ``x`` converted to ``dtype`` (a ``Cast`` unless it has it)."""
    tirx = importlib.import_module("tvm.tirx")
    return tirx.generic.cast(value, dtype, span=span)


def __getattr__(name):
    if name == "builder":
        # ``tvm.tirx.script.builder`` (an alias of this package) is the IR builder.
        return importlib.import_module("tvm.script.ir_builder.tirx")
    if name == "SMEMPool":
        # Lazy: the pools live in the CUDA backend (tvm.backend.cuda.lang.alloc_pool), a
        # layer above the script package.
        return importlib.import_module("tvm.backend.cuda.lang.alloc_pool").SMEMPool
    # Everything else comes from tvm.tirx (T.floordiv, T.max, T.Cast, T.IntImm...).
    tirx = importlib.import_module("tvm.tirx")
    try:
        value = getattr(tirx, name)
    except AttributeError:
        raise AttributeError(
            f"T.{name} is not available: it is neither a TIR TVMScript construct nor a "
            "tvm.tirx name"
        ) from None
    return _drop_dtype_kwarg(value)


def _drop_dtype_kwarg(value):
    # TVMScript lets every op call carry the result dtype as a keyword:
    # ``T.if_then_else(c, a, b, dtype="float32")`` (tvm.tirx infers it: dropped) and
    # ``T.call_extern("f", x, dtype="int32")`` (tvm.tirx takes it first: moved to the front).
    module = getattr(value, "__module__", None) or ""
    if not (callable(value) and not isinstance(value, type)
            and module.startswith("tvm.tirx.op")):
        return value
    try:
        params = list(inspect.signature(value).parameters)
    except (TypeError, ValueError):
        return value
    dtype_first = len(params) > 0 and params[0] == "dtype"
    if "dtype" in params and not dtype_first:
        return value

    @functools.wraps(value)
    def call(*args, **kwargs):
        if "dtype" in kwargs:
            dtype = kwargs.pop("dtype")
            if dtype_first:
                args = (dtype, *args)
        return value(*args, **kwargs)

    return call


# ``T.fabs(x, dtype="float32")`` as printed by TVM 0.27: the keyword is dropped like others'.
fabs = _drop_dtype_kwarg(fabs)
