"""Value builders of the ``T`` namespace that are not ``tvm.tirx`` names.

``T.target(...)``, ``T.comm_reducer(...)``, ``T.ramp``/``T.broadcast``, ``T.bind(...)``,
``T.ptr``/``T.buffer_var``/``T.var`` and the vector dtype constructors (``T.int32x4``,
``T.float16x8``...). Apache TVM 0.27's ``T`` has each of them; their results are ordinary IR
values (a ``Target``, a ``CommReducer``, a ``Ramp``...), so TVMScript printed by 0.27 parses.
"""

from __future__ import annotations

import importlib
import inspect
import itertools

__all__ = [
    "VECTOR_DTYPES",
    "bind",
    "broadcast",
    "buffer_var",
    "comm_reducer",
    "ptr",
    "ramp",
    "target",
    "var",
]


def _tirx():
    # tvm.tirx is a lower layer; imported on use so that ``T`` stays cheap to import.
    return importlib.import_module("tvm.tirx")


def target(target_config, host=None):
    """``T.target("llvm")`` or ``T.target({"kind": "cuda", ...}, host="llvm")``: a ``Target``
    (the value of a function's ``"target"`` attribute)."""
    from tvm.target import Target  # a lower layer; lazy like the rest of this module

    if not isinstance(target_config, (str, dict, Target)):
        raise TypeError(
            f"T.target expects a target string or a dict of target options, got "
            f"{type(target_config).__name__}"
        )
    return Target(target_config, host=host)


def comm_reducer(combiner, identity):
    """``T.comm_reducer(lambda x, y: x + y, [T.float32(0)])``: a ``tirx.CommReducer``.

    ``combiner`` takes ``2 * n`` arguments (the ``n`` left values, then the ``n`` right ones)
    and returns one value or a tuple of ``n``; ``identity`` holds the ``n`` identity elements,
    whose dtypes are the variables' dtypes.
    """
    tirx = _tirx()
    from tvm.tirx.generic import convert

    if not callable(combiner):
        raise TypeError(f"T.comm_reducer: combiner must be callable, got {combiner!r}")
    if not isinstance(identity, (list, tuple)):
        identity = [identity]
    identity = [convert(v) for v in identity]
    names = list(inspect.signature(combiner).parameters)
    n = len(identity)
    if len(names) != 2 * n:
        raise TypeError(
            f"T.comm_reducer: the combiner takes {len(names)} argument(s), but {n} identity "
            f"element(s) need {2 * n} (the left values, then the right values)"
        )
    lhs = [tirx.Var(name, v.dtype) for name, v in zip(names[:n], identity)]
    rhs = [tirx.Var(name, v.dtype) for name, v in zip(names[n:], identity)]
    result = combiner(*lhs, *rhs)
    result = list(result) if isinstance(result, (list, tuple)) else [result]
    if len(result) != n:
        raise TypeError(
            f"T.comm_reducer: the combiner returns {len(result)} value(s), expected {n}"
        )
    return tirx.CommReducer(lhs, rhs, [convert(r) for r in result], identity)


def ramp(base, stride, lanes, span=None):
    """``T.ramp(base, stride, lanes)``: the vector ``base + i * stride`` for ``i < lanes``."""
    return _tirx().Ramp(base, stride, lanes, span=span)


def broadcast(value, lanes, span=None):
    """``T.broadcast(value, lanes)``: ``value`` repeated in ``lanes`` lanes."""
    return _tirx().Broadcast(value, lanes, span=span)


def bind(value, type_annotation=None, *, var=None):
    """``x = T.bind(value)``: a ``Bind`` statement; the following statements see ``x``.

    ``type_annotation`` (a ``PrimType`` or ``PointerType``) gives the new variable's type;
    ``var=v`` binds an existing variable instead of a new one.
    """
    from tvm.ir import PointerType, PrimType

    from ...ir_builder.tirx import Bind

    if var is not None:
        if type_annotation is not None:
            raise TypeError("T.bind takes either type_annotation or var, not both")
        return Bind(value, var=var)
    if type_annotation is None:
        return Bind(value)
    if isinstance(type_annotation, str):
        return Bind(value, dtype=type_annotation)
    if isinstance(type_annotation, PrimType):
        return Bind(value, dtype=type_annotation.dtype)
    if isinstance(type_annotation, PointerType):
        return Bind(value, var=_tirx().Var("", type_annotation))
    raise TypeError(
        f"T.bind: type_annotation must be a PrimType or a PointerType, got {type_annotation!r}"
    )


def ptr(dtype, storage_scope="global"):
    """``T.ptr("float32", "shared")``: a handle variable pointing to ``dtype`` in the scope."""
    from tvm.ir import PointerType, PrimType

    return _tirx().Var("", PointerType(PrimType(dtype), storage_scope))


def buffer_var(dtype, storage_scope="global"):
    """``T.buffer_var(dtype, scope)``: the older name of :func:`ptr`."""
    return ptr(dtype, storage_scope)


def var(dtype, name=""):
    """``T.var("int32", "n")``: a scalar variable (the older spelling of ``T.int32()``)."""
    return _tirx().Var(name, dtype)


#: The vector dtype constructors of ``T``: every scalar dtype with 2 to 64 lanes.
VECTOR_DTYPES = tuple(
    f"{base}x{lanes}"
    for base, lanes in itertools.product(
        ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "float32", "float64"),
        (2, 4, 8, 16, 32, 64),
    )
)

#: Narrow float dtypes of ``T`` beyond the usual ones (each also with 2 to 64 lanes).
NARROW_FLOAT_DTYPES = (
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
)
