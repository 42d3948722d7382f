"""Generic (target-independent) variants of the tile primitives: scalar loops over the tile.

Registered for :data:`~.dispatcher.ANY_TARGET` with priority ``-100``, so any backend variant
registered for the target is tried first. Each returns a PrimFunc without parameters whose
body reads and writes the call's buffers directly.

* ``fill``/``memset``/``zero``, the unary ops (``sqrt``, ``exp``, ``exp2``, ``log2``,
  ``reciprocal``, ``silu``, ``cast``; with the optional ``bias``/``scale`` as ``f(src * scale
  + bias)``), the binary ops (``add``, ``sub``, ``mul``, ``fdiv``, ``maximum``, ``minimum``),
  ``fma``, ``select`` and ``copy``, at **thread** scope (each thread does the whole tile) and
  **cta** scope (the tile's elements, flattened, are dealt round-robin to the CTA's threads:
  element ``k * n + t`` to thread ``t`` of ``n``). CTA scope needs the kernel's thread index,
  from ``T.thread_id`` or from ``T.warp_id`` and ``T.lane_id``.
* ``sum``/``max``/``min`` reductions at thread scope.
* ``compose_op``: not supported yet (a group must be split into its member calls by a
  backend first; the generic variant says so).

Operands must cover the same number of elements along the dimensions of extent > 1 (the
destination's); a scalar operand is broadcast. Warp, warpgroup and cluster scope, gemm,
copy_async and the fused ops (``binary_reduce``...) have no generic variant yet.
"""

from __future__ import annotations

import math

from ....ir.expr import PrimExpr, Range
from ... import op as _op
from ...expr import Cast, FloatImm, IntImm, Select, Var
from ...function import PrimFunc
from ...generic import floordiv, floormod
from ...generic import max as _max
from ...generic import min as _min
from ...stmt import BufferLoad, BufferRegion, BufferStore, For, ForKind, IfThenElse, SeqStmt
from .dispatcher import ANY_TARGET, fail, predicate, register_dispatch

__all__ = ["GENERIC_PRIORITY", "scope_in"]

#: The priority of the generic variants (below any backend's).
GENERIC_PRIORITY = -100
WARP_SIZE = 32


def scope_in(call, ctx, scopes=("thread", "cta")):
    """Predicate: the call's scope is one of ``scopes``."""
    kind = getattr(ctx, "scope_kind", None) or getattr(getattr(ctx, "exec_scope", None),
                                                       "name", None)
    if kind in scopes:
        return True
    return False, f"scope {kind!r} is not one of {', '.join(scopes)}"


def _const_extent(r: Range) -> int:
    if not isinstance(r.extent, IntImm):
        fail(f"the region extent {r.extent} is not a constant")
    return r.extent.value


def _dims(region: BufferRegion) -> list:
    """The dimensions of extent > 1 (the tile's shape, unit dimensions aside)."""
    return [k for k, r in enumerate(region.region) if _const_extent(r) != 1]


class _Tile:
    """Maps an index over the destination's non-unit dimensions onto one operand."""

    def __init__(self, region: BufferRegion, shape: list, what: str):
        self.region = region
        self.dims = _dims(region)
        own = [region.region[k].extent.value for k in self.dims]
        if own != shape:
            fail(f"{what} {region.buffer.name} covers a tile of shape {own}, the destination "
                 f"{shape}")

    def indices(self, idx: list) -> list:
        out = [r.min for r in self.region.region]
        for k, i in zip(self.dims, idx):
            out[k] = self.region.region[k].min + i
        return out

    def load(self, idx):
        return BufferLoad(self.region.buffer, self.indices(idx))


def _operand(value, shape, dtype, what):
    """A function of the tile index giving ``value`` (a tile operand or a broadcast scalar)."""
    if isinstance(value, BufferRegion):
        tile = _Tile(value, shape, what)
        return tile.load
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = (FloatImm(dtype, float(value)) if dtype.startswith(("float", "bfloat"))
                 else IntImm(dtype, int(value)))
    if not isinstance(value, PrimExpr):
        fail(f"{what} must be a buffer region or a scalar, got {type(value).__name__}")
    return lambda idx: value


def _cast(value, dtype):
    return value if value.dtype == dtype else Cast(dtype, value)


def _cta_threads(ctx):
    """``(thread index in the CTA, number of threads)`` from the kernel's scope ids."""
    params = getattr(ctx, "launch_params", None) or {}
    tid = params.get("thread_id")
    if tid is not None:
        return tid.var, _const_extent(tid.dom)
    warp, lane = params.get("warp_id"), params.get("lane_id")
    if warp is not None and lane is not None:
        return warp.var * WARP_SIZE + lane.var, _const_extent(warp.dom) * WARP_SIZE
    fail("cta scope needs the kernel's thread index: define T.thread_id([n]) (or T.warp_id "
         "and T.lane_id) in the kernel")
    return None


def _elementwise(ctx, dst: BufferRegion, value_of, name: str):
    """The loops storing ``value_of(idx)`` into every element of ``dst``."""
    dims = _dims(dst)
    shape = [dst.region[k].extent.value for k in dims]
    tile = _Tile(dst, shape, "destination")

    def store(idx):
        return BufferStore(dst.buffer, _cast(value_of(idx), dst.buffer.dtype),
                           tile.indices(idx))

    if ctx.scope_kind == "thread" or not shape:
        if ctx.scope_kind != "thread" and not shape:
            fail("a one-element tile at cta scope: write it from one thread instead")
        loop_vars = [Var(f"{name}_i{k}", "int32") for k in range(len(shape))]
        body = store(loop_vars)
        for v, ext in reversed(list(zip(loop_vars, shape))):
            body = For(v, 0, ext, ForKind.SERIAL, body)
        return body
    tid, nthreads = _cta_threads(ctx)
    total = math.prod(shape)
    steps = -(-total // nthreads)
    k = Var(f"{name}_k", "int32")
    flat = k * nthreads + tid
    idx = []
    rest = flat
    for pos, ext in enumerate(shape):
        inner = math.prod(shape[pos + 1:])
        idx.append(floormod(floordiv(rest, inner), ext) if pos else floordiv(rest, inner))
    body = store(idx)
    if total % nthreads:
        body = IfThenElse(flat < total, body)
    return For(k, 0, steps, ForKind.SERIAL, body)


def _func(body):
    return PrimFunc([], body)


def _dst(call) -> BufferRegion:
    dst = call.args[0]
    if not isinstance(dst, BufferRegion):
        fail(f"the destination must be a buffer region, got {type(dst).__name__}")
    return dst


def _shape(dst):
    return [dst.region[k].extent.value for k in _dims(dst)]


_SCOPES = [predicate("exec_scope", scope_in, scopes=("thread", "cta"))]


def _register(op_names, **kw):
    def deco(fn):
        for name in op_names:
            register_dispatch(name, ANY_TARGET, variant="default", priority=GENERIC_PRIORITY,
                              when=kw.get("when", _SCOPES))(fn)
        return fn

    return deco


@_register(["fill", "memset"])
def fill_default(call, ctx):
    """``dst[...] = value``."""
    dst = _dst(call)
    value = _operand(call.args[1], _shape(dst), dst.buffer.dtype, "value")
    return _func(_elementwise(ctx, dst, value, call.name))


@_register(["zero"])
def zero_default(call, ctx):
    """``dst[...] = 0``."""
    dst = _dst(call)
    zero = _operand(0, [], dst.buffer.dtype, "zero")
    return _func(_elementwise(ctx, dst, zero, "zero"))


def _silu(x):
    return x * _op.sigmoid(x)


def _reciprocal(x):
    one = FloatImm(x.dtype, 1.0) if x.dtype.startswith(("float", "bfloat")) else IntImm(x.dtype, 1)
    return one / x


_UNARY = {
    "sqrt": _op.sqrt, "exp": _op.exp, "exp2": _op.exp2, "log2": _op.log2,
    "reciprocal": _reciprocal, "silu": _silu,
}


@_register(list(_UNARY) + ["cast", "copy"])
def unary_default(call, ctx):
    """``dst[...] = f(src[...] * scale + bias)`` (``copy``/``cast``: ``f`` is the identity;
    ``copy`` requires one dtype)."""
    dst = _dst(call)
    shape = _shape(dst)
    src = call.args[1]
    if not isinstance(src, BufferRegion):
        fail(f"the source must be a buffer region, got {type(src).__name__}")
    if call.name == "copy" and src.buffer.dtype != dst.buffer.dtype:
        fail(f"copy from {src.buffer.dtype} to {dst.buffer.dtype}: use Tx.cast to convert")
    dtype = dst.buffer.dtype
    load = _operand(src, shape, src.buffer.dtype, "source")
    bias = call.args[2] if len(call.args) > 2 else None
    scale = call.args[3] if len(call.args) > 3 else None
    bias_of = None if bias is None else _operand(bias, shape, dtype, "bias")
    scale_of = None if scale is None else _operand(scale, shape, dtype, "scale")
    fn = _UNARY.get(call.name)

    def value(idx):
        x = load(idx)
        if call.name != "cast" and call.name != "copy":
            x = _cast(x, dtype)
        if scale_of is not None:
            x = x * _cast(scale_of(idx), x.dtype)
        if bias_of is not None:
            x = x + _cast(bias_of(idx), x.dtype)
        return fn(x) if fn is not None else x

    return _func(_elementwise(ctx, dst, value, call.name))


_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "fdiv": lambda a, b: a / b, "maximum": _max, "minimum": _min,
}


@_register(list(_BINARY))
def binary_default(call, ctx):
    """``dst[...] = src1[...] <op> src2[...]`` (either source may be a scalar)."""
    dst = _dst(call)
    shape, dtype = _shape(dst), dst.buffer.dtype
    lhs = _operand(call.args[1], shape, dtype, "first source")
    rhs = _operand(call.args[2], shape, dtype, "second source")
    fn = _BINARY[call.name]
    return _func(_elementwise(
        ctx, dst, lambda idx: fn(_cast(lhs(idx), dtype), _cast(rhs(idx), dtype)), call.name))


@_register(["fma"])
def fma_default(call, ctx):
    """``dst[...] = src[...] * scale + bias``."""
    dst = _dst(call)
    shape, dtype = _shape(dst), dst.buffer.dtype
    src, scale, bias = (_operand(call.args[i], shape, dtype, what)
                        for i, what in ((1, "source"), (2, "scale"), (3, "bias")))
    return _func(_elementwise(
        ctx, dst,
        lambda idx: _cast(src(idx), dtype) * _cast(scale(idx), dtype) + _cast(bias(idx), dtype),
        "fma"))


@_register(["select"])
def select_default(call, ctx):
    """``dst[i, j] = pred(i, j) ? true_value : false_value`` (``pred`` over the destination
    buffer's indices)."""
    dst = _dst(call)
    shape, dtype = _shape(dst), dst.buffer.dtype
    tval = _operand(call.args[1], shape, dtype, "true value")
    fval = _operand(call.args[2], shape, dtype, "false value")
    pred = call.args[3]
    if len(pred.vars) != len(dst.region):
        fail(f"the predicate takes {len(pred.vars)} indices, the destination has "
             f"{len(dst.region)} dimensions")
    tile = _Tile(dst, shape, "destination")
    return _func(_elementwise(
        ctx, dst,
        lambda idx: Select(pred.apply(tile.indices(idx)), _cast(tval(idx), dtype),
                           _cast(fval(idx), dtype)), "select"))


_REDUCE = {"sum": lambda a, b: a + b, "max": _max, "min": _min}


def _reduce_init(name, dtype):
    if name == "sum":
        return FloatImm(dtype, 0.0) if dtype.startswith(("float", "bfloat")) else IntImm(dtype, 0)
    return _op.min_value(dtype) if name == "max" else _op.max_value(dtype)


@_register(list(_REDUCE), when=[predicate("exec_scope", scope_in, scopes=("thread",))])
def reduce_default(call, ctx):
    """``dst = reduce(src, axes)`` (``accum=True``: into the current ``dst``), one thread."""
    dst, src = _dst(call), call.args[1]
    axes, accum = call.args[2], bool(call.args[3])
    ndim = len(src.region)
    axes = sorted({a % ndim for a in axes})
    kept = [k for k in range(ndim) if k not in axes]
    src_shape = [_const_extent(r) for r in src.region]
    dst_tile = _Tile(dst, [src_shape[k] for k in kept if src_shape[k] != 1], "destination")
    out_vars = {k: Var(f"{call.name}_o{k}", "int32") for k in kept}
    red_vars = {k: Var(f"{call.name}_r{k}", "int32") for k in axes}
    dtype = dst.buffer.dtype
    dst_idx = dst_tile.indices([out_vars[k] for k in kept if src_shape[k] != 1])
    src_idx = [r.min + (out_vars.get(k) if k in out_vars else red_vars[k])
               for k, r in enumerate(src.region)]
    fn = _REDUCE[call.name]
    update = BufferStore(dst.buffer, fn(BufferLoad(dst.buffer, dst_idx),
                                        _cast(BufferLoad(src.buffer, src_idx), dtype)), dst_idx)
    for k in reversed(axes):
        update = For(red_vars[k], 0, src_shape[k], ForKind.SERIAL, update)
    body = update if accum else SeqStmt(
        [BufferStore(dst.buffer, _reduce_init(call.name, dtype), dst_idx), update])
    for k in reversed(kept):
        body = For(out_vars[k], 0, src_shape[k], ForKind.SERIAL, body)
    return _func(body)


@register_dispatch("compose_op", ANY_TARGET, variant="default", priority=GENERIC_PRIORITY)
def compose_op_default(call, ctx):
    """A ``compose_op`` group has no generic lowering: ``NotImplementedError`` (the kind
    Apache TVM's dispatcher reports as an exception row for this variant)."""
    raise NotImplementedError(
        "Tx.compose_op is not supported yet by the generic variants: a compose_op group must "
        "be lowered to its member calls by a backend before dispatch"
    )
