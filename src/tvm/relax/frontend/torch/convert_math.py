"""Converters: elementwise arithmetic and comparisons, unary math, reductions, matmul.

Each converter is ``fn(importer, node)`` registered in :data:`importer.CONVERTERS`. Result
dtypes follow the dtype torch recorded for the node (``meta["val"]``): operands are cast to
it before arithmetic, so ``int_tensor * 0.5`` computes in float32 as in torch.
"""

from __future__ import annotations

import operator

from ....tirx import expr as tir_expr
from ... import op as R
from ...expr import Expr
from .importer import op_key, register


def dtype_of(x) -> str:
    """The dtype of the Relax tensor expression ``x`` (from its struct info)."""
    return x.struct_info.dtype


def as_dtype(imp, x, dtype):
    """``x`` (a tensor or a Python scalar) as a tensor of ``dtype``."""
    if isinstance(x, Expr):
        return x if dtype_of(x) == dtype else imp.emit(R.astype(x, dtype))
    if dtype == "bool":
        return imp.const(bool(x), dtype)
    if dtype.startswith(("int", "uint")) and isinstance(x, float):
        raise ValueError(f"torch frontend: float scalar {x} used in an {dtype} op")
    return imp.const(x, dtype)


def compare_dtype(imp, a, b) -> str:
    """The dtype two comparison operands are cast to (torch's promotion, simplified)."""
    torch = imp.torch
    da = dtype_of(a) if isinstance(a, Expr) else None
    db = dtype_of(b) if isinstance(b, Expr) else None
    if da is None and db is None:
        raise ValueError("torch frontend: comparison of two Python scalars")
    if da is None or db is None:
        tensor_dtype = da or db
        scalar = b if da else a
        if isinstance(scalar, float) and not tensor_dtype.startswith(("float", "bfloat")):
            return "float32"
        return tensor_dtype
    return str(torch.promote_types(getattr(torch, da), getattr(torch, db))).replace("torch.", "")


# ----- binary arithmetic ----------------------------------------------------------------------
_ARITH = {
    "add": R.add,
    "sub": R.subtract,
    "mul": R.multiply,
    "div": R.divide,
    "pow": R.power,
    "maximum": R.maximum,
    "minimum": R.minimum,
    "remainder": R.floor_mod,
    "fmod": R.mod,
    "floor_divide": R.floor_divide,
    "bitwise_and": R.bitwise_and,
    "bitwise_or": R.bitwise_or,
    "bitwise_xor": R.bitwise_xor,
}


def _arith(name):
    relax_op = _ARITH[name]

    def convert(imp, node):
        args = imp.retrieve_args(node)
        a, b = args[0], args[1]
        dtype = imp.out_dtype(node)
        alpha = node.kwargs.get("alpha", 1)
        rounding = node.kwargs.get("rounding_mode")
        if name in ("add", "sub") and alpha != 1:
            b = imp.emit(R.multiply(as_dtype(imp, b, dtype), as_dtype(imp, alpha, dtype)))
        if name == "div" and rounding is not None:
            return _div_rounding(imp, a, b, dtype, rounding)
        if name == "pow" and not isinstance(b, Expr) and b == 2:
            x = as_dtype(imp, a, dtype)
            return R.multiply(x, x)
        return relax_op(as_dtype(imp, a, dtype), as_dtype(imp, b, dtype))

    return convert


def _div_rounding(imp, a, b, dtype, rounding):
    if dtype.startswith(("int", "uint")):
        a, b = as_dtype(imp, a, dtype), as_dtype(imp, b, dtype)
        if rounding == "floor":
            return R.floor_divide(a, b)
        # trunc on integers: floor division corrected toward zero
        q = imp.emit(R.divide(R.astype(a, "float64"), R.astype(b, "float64")))
        return R.astype(R.trunc(q), dtype)
    q = imp.emit(R.divide(as_dtype(imp, a, dtype), as_dtype(imp, b, dtype)))
    if rounding == "floor":
        return R.floor(q)
    if rounding == "trunc":
        return R.trunc(q)
    raise ValueError(f"torch frontend: div rounding_mode {rounding!r} is not supported")


for _name in _ARITH:
    register(_name)(_arith(_name))


@register("rsub.Scalar", "rsub.Tensor")
def _rsub(imp, node):
    args = imp.retrieve_args(node)
    dtype = imp.out_dtype(node)
    alpha = node.kwargs.get("alpha", args[2] if len(args) > 2 else 1)
    a = as_dtype(imp, args[0], dtype)
    if alpha != 1:
        a = imp.emit(R.multiply(a, as_dtype(imp, alpha, dtype)))
    return R.subtract(as_dtype(imp, args[1], dtype), a)


# ----- comparisons and logic ------------------------------------------------------------------
_COMPARE = {
    "eq": R.equal,
    "ne": R.not_equal,
    "lt": R.less,
    "le": R.less_equal,
    "gt": R.greater,
    "ge": R.greater_equal,
    "logical_and": R.logical_and,
    "logical_or": R.logical_or,
    "logical_xor": R.logical_xor,
}


def _compare(name):
    relax_op = _COMPARE[name]

    def convert(imp, node):
        a, b = imp.retrieve_args(node)[:2]
        if name.startswith("logical"):
            dtype = "bool"
        else:
            dtype = compare_dtype(imp, a, b)
        return relax_op(as_dtype(imp, a, dtype), as_dtype(imp, b, dtype))

    return convert


for _name in _COMPARE:
    register(_name)(_compare(_name))


@register("logical_not")
def _logical_not(imp, node):
    return R.logical_not(as_dtype(imp, imp.retrieve_args(node)[0], "bool"))


@register("bitwise_not")
def _bitwise_not(imp, node):
    x = imp.retrieve_args(node)[0]
    return R.logical_not(x) if dtype_of(x) == "bool" else R.bitwise_not(x)


# ----- unary math ------------------------------------------------------------------------
_UNARY = {
    "abs": R.abs,
    "neg": R.negative,
    "exp": R.exp,
    "log": R.log,
    "sqrt": R.sqrt,
    "rsqrt": R.rsqrt,
    "sin": R.sin,
    "cos": R.cos,
    "tan": R.tan,
    "tanh": R.tanh,
    "sigmoid": R.sigmoid,
    "erf": R.erf,
    "floor": R.floor,
    "ceil": R.ceil,
    "round": R.round,
    "trunc": R.trunc,
    "sign": R.sign,
    "isnan": R.isnan,
    "isinf": R.isinf,
    "isfinite": R.isfinite,
    "asin": R.asin,
    "acos": R.acos,
    "atan": R.atan,
    "sinh": R.sinh,
    "cosh": R.cosh,
    "relu": R.nn.relu,
    "silu": R.nn.silu,
}


def _unary(name):
    relax_op = _UNARY[name]

    def convert(imp, node):
        x = imp.retrieve_args(node)[0]
        dtype = imp.out_dtype(node)
        if dtype != "bool" and name not in ("isnan", "isinf", "isfinite"):
            x = as_dtype(imp, x, dtype)
        return relax_op(x)

    return convert


for _name in _UNARY:
    register(_name)(_unary(_name))


@register("reciprocal")
def _reciprocal(imp, node):
    x = as_dtype(imp, imp.retrieve_args(node)[0], imp.out_dtype(node))
    return R.divide(imp.const(1.0, dtype_of(x)), x)


@register("square")
def _square(imp, node):
    x = as_dtype(imp, imp.retrieve_args(node)[0], imp.out_dtype(node))
    return R.multiply(x, x)


@register("log1p")
def _log1p(imp, node):
    x = as_dtype(imp, imp.retrieve_args(node)[0], imp.out_dtype(node))
    return R.log(R.add(x, imp.const(1.0, dtype_of(x))))


@register("expm1")
def _expm1(imp, node):
    x = as_dtype(imp, imp.retrieve_args(node)[0], imp.out_dtype(node))
    return R.subtract(imp.emit(R.exp(x)), imp.const(1.0, dtype_of(x)))


@register("clamp", "clip", "hardtanh")
def _clamp(imp, node):
    args = imp.retrieve_args(node)
    x = args[0]
    default = (-1.0, 1.0) if node.target.__name__.startswith("hardtanh") else (None, None)
    lo = node.kwargs.get("min", args[1] if len(args) > 1 else default[0])
    hi = node.kwargs.get("max", args[2] if len(args) > 2 else default[1])
    dtype = imp.out_dtype(node)
    x = as_dtype(imp, x, dtype)
    if isinstance(lo, Expr) or isinstance(hi, Expr):
        if lo is not None:
            x = imp.emit(R.maximum(x, as_dtype(imp, lo, dtype)))
        if hi is not None:
            x = imp.emit(R.minimum(x, as_dtype(imp, hi, dtype)))
        return x
    if lo is not None:
        x = imp.emit(R.maximum(x, imp.const(lo, dtype)))
    if hi is not None:
        x = imp.emit(R.minimum(x, imp.const(hi, dtype)))
    return x


# ----- reductions ------------------------------------------------------------------------
def _dims(dim, ndim):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return None
    if isinstance(dim, int):
        dim = [dim]
    return [d % ndim if ndim else d for d in dim]


def _reduce(relax_op, float_result=False):
    def convert(imp, node):
        args = imp.retrieve_args(node)
        x = args[0]
        ndim = x.struct_info.ndim
        dim = node.kwargs.get("dim", args[1] if len(args) > 1 else None)
        keep = node.kwargs.get("keepdim", args[2] if len(args) > 2 else False)
        if isinstance(dim, bool) or (dim is not None and not isinstance(dim, (int, list))):
            dim = None
        dtype = imp.out_dtype(node)
        if float_result or dtype != dtype_of(x):
            x = as_dtype(imp, x, dtype)
        return relax_op(x, axis=_dims(dim, ndim), keepdims=bool(keep))

    return convert


register("sum")(_reduce(R.sum))
register("mean")(_reduce(R.mean, float_result=True))
register("amax")(_reduce(R.max))
register("amin")(_reduce(R.min))
register("prod")(_reduce(R.prod))


@register("max.default", "min.default")
def _max_all(imp, node):
    x = imp.retrieve_args(node)[0]
    return (R.max if node.target.__name__.startswith("max") else R.min)(x)


@register("max.dim", "min.dim")
def _max_dim(imp, node):
    args = imp.retrieve_args(node)
    x, dim = args[0], args[1]
    keep = bool(node.kwargs.get("keepdim", args[2] if len(args) > 2 else False))
    is_max = node.target.__name__.startswith("max")
    values = imp.emit((R.max if is_max else R.min)(x, axis=[dim], keepdims=keep))
    index = imp.emit((R.argmax if is_max else R.argmin)(x, axis=dim, keepdims=keep))
    return [values, index]


@register("max.other", "min.other")
def _max_other(imp, node):
    a, b = imp.retrieve_args(node)[:2]
    return (R.maximum if node.target.__name__.startswith("max") else R.minimum)(a, b)


def _arg(relax_op):
    def convert(imp, node):
        args = imp.retrieve_args(node)
        dim = node.kwargs.get("dim", args[1] if len(args) > 1 else None)
        keep = bool(node.kwargs.get("keepdim", args[2] if len(args) > 2 else False))
        return relax_op(args[0], axis=dim, keepdims=keep)

    return convert


register("argmax")(_arg(R.argmax))
register("argmin")(_arg(R.argmin))


def _moment(kind):
    """var/std with ``correction`` (Bessel's by default)."""

    def convert(imp, node):
        args = imp.retrieve_args(node)
        x = args[0]
        dim = node.kwargs.get("dim", args[1] if len(args) > 1 else None)
        correction = node.kwargs.get("correction", 1)
        if "unbiased" in node.kwargs:
            correction = 1 if node.kwargs["unbiased"] else 0
        if correction is None:
            correction = 1
        keep = bool(node.kwargs.get("keepdim", False))
        ndim = x.struct_info.ndim
        axes = _dims(dim, ndim)
        shape = imp.val(node.args[0]).shape
        count = 1
        for a in axes if axes is not None else range(ndim):
            count *= int(shape[a])
        var = imp.emit(R.variance(x, axis=axes, keepdims=keep))
        if correction:
            var = imp.emit(
                R.multiply(var, imp.const(count / max(count - correction, 0), dtype_of(x)))
            )
        return R.sqrt(var) if kind == "std" else var

    return convert


register("var")(_moment("var"))
register("std")(_moment("std"))


def _any_all(is_any):
    def convert(imp, node):
        args = imp.retrieve_args(node)
        x = as_dtype(imp, args[0], "int32")
        dim = node.kwargs.get("dim", args[1] if len(args) > 1 else None)
        keep = bool(node.kwargs.get("keepdim", args[2] if len(args) > 2 else False))
        axes = _dims(dim, x.struct_info.ndim)
        reduced = imp.emit((R.max if is_any else R.min)(x, axis=axes, keepdims=keep))
        return R.not_equal(reduced, imp.const(0, "int32"))

    return convert


register("any")(_any_all(True))
register("all")(_any_all(False))


@register("cumsum")
def _cumsum(imp, node):
    args = imp.retrieve_args(node)
    dtype = imp.out_dtype(node)
    return R.cumsum(as_dtype(imp, args[0], dtype), axis=args[1])


# ----- matrix products -----------------------------------------------------------------------
@register("mm", "bmm", "matmul")
def _matmul(imp, node):
    a, b = imp.retrieve_args(node)[:2]
    shared = _batch_broadcast_matrix(imp, node.args[1]) if len(node.args) > 1 else None
    if shared is not None and op_key(node.target).startswith("bmm"):
        # ``x @ W`` with a 3-D x: torch's decomposition of ``linear`` on a non-contiguous
        # input broadcasts W over the batch (``expand`` + ``bmm``). As one 2-D product the
        # batch and row dims are one (the tiled matmul schedule; its gradient is one matmul
        # instead of a batch of them plus a sum over the copies of W).
        batch, rows, inner = a.struct_info.shape.values
        if all(isinstance(d, tir_expr.IntImm) for d in (batch, rows, inner)):
            flat = imp.emit(R.reshape(a, [int(batch) * int(rows), int(inner)]))
            prod = imp.emit(R.matmul(flat, shared))
            return R.reshape(prod, imp.out_shape(node))
    return R.matmul(a, b)


_VIEW_OPS = ("view", "_unsafe_view", "reshape", "view_copy")
_EXPAND_OPS = ("expand", "expand_copy", "broadcast_to")


def _batch_broadcast_matrix(imp, arg):
    """The 2-D tensor ``W`` when a bmm operand is ``W`` broadcast over the batch
    (``view(expand(W))``, ``W`` of shape ``(K, N)`` or ``(1, K, N)``), else None."""
    fx_node = getattr(arg, "op", None) == "call_function"
    if fx_node and op_key(arg.target).split(".")[0] in _VIEW_OPS:
        arg = arg.args[0]
        fx_node = getattr(arg, "op", None) == "call_function"
    if not fx_node or op_key(arg.target).split(".")[0] not in _EXPAND_OPS:
        return None
    source = arg.args[0]
    if not hasattr(source, "meta") or source not in imp.env:
        return None
    shape = list(imp.val(source).shape)
    if len(shape) == 3 and shape[0] == 1:
        shape = shape[1:]
    if len(shape) != 2 or not all(isinstance(d, int) for d in shape):
        return None
    value = imp.env[source]
    return value if value.struct_info.ndim == 2 else imp.emit(R.reshape(value, shape))


@register("addmm", "baddbmm", "addbmm")
def _addmm(imp, node):
    args = imp.retrieve_args(node)
    bias, a, b = args[:3]
    beta = node.kwargs.get("beta", 1)
    alpha = node.kwargs.get("alpha", 1)
    prod = imp.emit(R.matmul(a, b))
    dtype = dtype_of(prod)
    if alpha != 1:
        prod = imp.emit(R.multiply(prod, imp.const(alpha, dtype)))
    if beta == 0:
        return prod
    if beta != 1:
        bias = imp.emit(R.multiply(bias, imp.const(beta, dtype)))
    return R.add(prod, bias)


@register("linear")
def _linear(imp, node):
    args = imp.retrieve_args(node)
    bias = args[2] if len(args) > 2 else node.kwargs.get("bias")
    return R.linear(args[0], args[1], bias)


@register("t")
def _t(imp, node):
    x = imp.retrieve_args(node)[0]
    return R.permute_dims(x, [1, 0]) if x.struct_info.ndim == 2 else x


@register("operator.add", "operator.sub", "operator.mul", "operator.floordiv", "operator.mod")
def _scalar_arith(imp, node):
    """Python arithmetic fx records on symbolic sizes (and on plain ints)."""
    a, b = imp.retrieve_args(node)[:2]
    name = node.target.__name__
    if isinstance(a, Expr) or isinstance(b, Expr):
        relax_op = {"add": R.add, "sub": R.subtract, "mul": R.multiply}.get(name)
        if relax_op is None:
            raise ValueError(f"torch frontend: operator.{name} on tensors is not supported yet")
        dtype = imp.out_dtype(node)
        return relax_op(as_dtype(imp, a, dtype), as_dtype(imp, b, dtype))
    if name == "floordiv" and not isinstance(a, int):
        return tir_expr.FloorDiv(a, b)
    return getattr(operator, name)(a, b)
