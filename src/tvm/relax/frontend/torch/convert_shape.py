"""Converters: views and reshapes, concatenation and splitting, slicing and indexing,
selection (``where``, ``gather``), tensor creation, dtype conversions, symbolic sizes.

Ops whose result shape torch already computed (``view``, ``expand``, ``flatten``,
``squeeze``, creation ops) take it from the node's ``meta["val"]``, so symbolic sizes come
out as the function's TIR variables without re-deriving torch's shape logic.
"""

from __future__ import annotations

import operator

from ....error import OpNotImplemented
from ... import op as R
from ...expr import Expr, TupleGetItem
from .convert_math import as_dtype, dtype_of
from .importer import REJECTORS, register, source_location

_BIG = 2**62


def _norm_dim(dim, ndim):
    return dim % ndim if ndim else dim


# ----- views and reshapes -------------------------------------------------------------------
@register("view", "_unsafe_view", "reshape", "flatten", "squeeze", "view_copy", "unflatten")
def _reshape_to_meta(imp, node):
    x = imp.retrieve_args(node)[0]
    return R.reshape(x, imp.out_shape(node))


@register("expand", "expand_copy", "expand_as", "broadcast_to")
def _expand(imp, node):
    x = imp.retrieve_args(node)[0]
    shape = imp.out_shape(node)
    if x.struct_info.ndim != len(shape):
        x = imp.emit(
            R.reshape(x, [1] * (len(shape) - x.struct_info.ndim) + list(_shape(imp, node.args[0])))
        )
    return R.broadcast_to(x, shape)


def _shape(imp, arg_node):
    return imp.relax_shape(imp.val(arg_node).shape)


@register("permute", "permute_copy")
def _permute(imp, node):
    x, dims = imp.retrieve_args(node)[:2]
    ndim = x.struct_info.ndim
    return R.permute_dims(x, [_norm_dim(d, ndim) for d in dims])


@register("transpose.int", "swapaxes", "transpose_copy.int")
def _transpose(imp, node):
    x, d0, d1 = imp.retrieve_args(node)[:3]
    ndim = x.struct_info.ndim
    perm = list(range(ndim))
    d0, d1 = _norm_dim(d0, ndim), _norm_dim(d1, ndim)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return R.permute_dims(x, perm)


@register("unsqueeze", "unsqueeze_copy")
def _unsqueeze(imp, node):
    x, dim = imp.retrieve_args(node)[:2]
    return R.expand_dims(x, dim % (x.struct_info.ndim + 1))


@register("clone", "contiguous", "alias", "detach", "lift_fresh_copy", "alias_copy", "detach_copy")
def _identity(imp, node):
    return imp.retrieve_args(node)[0]


@register("_to_copy", "to", "type_as", "_to_dim_order_copy")
def _to(imp, node):
    x = imp.retrieve_args(node)[0]
    return as_dtype(imp, x, imp.out_dtype(node))


# ----- concatenation and splitting ------------------------------------------------------------
@register("cat", "concat", "concatenate")
def _cat(imp, node):
    args = imp.retrieve_args(node)
    tensors = list(args[0])
    dim = node.kwargs.get("dim", args[1] if len(args) > 1 else 0)
    dtype = imp.out_dtype(node)
    tensors = [as_dtype(imp, t, dtype) for t in tensors if _numel(t) != 0 or len(tensors) == 1]
    return R.concat(tensors, axis=_norm_dim(dim, tensors[0].struct_info.ndim))


def _numel(t):
    shape = t.struct_info.shape
    try:
        n = 1
        for s in shape:
            n *= int(s)
        return n
    except TypeError:
        return -1


@register("stack")
def _stack(imp, node):
    args = imp.retrieve_args(node)
    tensors = list(args[0])
    dim = node.kwargs.get("dim", args[1] if len(args) > 1 else 0)
    return R.stack(tensors, axis=dim % (tensors[0].struct_info.ndim + 1))


def _split_at(imp, node, x, sizes, dim):
    ndim = x.struct_info.ndim
    dim = _norm_dim(dim, ndim)
    indices, acc = [], 0
    for s in sizes[:-1]:
        acc += s
        indices.append(acc)
    if not indices:
        return [x]
    parts = imp.emit(R.split(x, indices, axis=dim))
    return [imp.emit(TupleGetItem(parts, i)) for i in range(len(sizes))]


def _static_dim(imp, arg_node, dim):
    size = imp.val(arg_node).shape[dim]
    return int(size)


@register("split.Tensor", "split_with_sizes", "split_with_sizes_copy", "split_copy.Tensor")
def _split(imp, node):
    args = imp.retrieve_args(node)
    x, sizes = args[:2]
    dim = node.kwargs.get("dim", args[2] if len(args) > 2 else 0)
    if isinstance(sizes, int):
        total = _static_dim(imp, node.args[0], dim)
        sizes = [min(sizes, total - i) for i in range(0, total, sizes)]
    return _split_at(imp, node, x, list(sizes), dim)


@register("chunk")
def _chunk(imp, node):
    args = imp.retrieve_args(node)
    x, chunks = args[:2]
    dim = node.kwargs.get("dim", args[2] if len(args) > 2 else 0)
    total = _static_dim(imp, node.args[0], dim)
    step = -(-total // chunks)
    sizes = [min(step, total - i) for i in range(0, total, step)]
    return _split_at(imp, node, x, sizes, dim)


@register("unbind.int")
def _unbind(imp, node):
    args = imp.retrieve_args(node)
    x = args[0]
    dim = _norm_dim(args[1] if len(args) > 1 else 0, x.struct_info.ndim)
    total = _static_dim(imp, node.args[0], dim)
    parts = _split_at(imp, node, x, [1] * total, dim)
    return [imp.emit(R.squeeze(p, [dim])) for p in parts]


# ----- slicing and indexing -------------------------------------------------------------------
@register("slice.Tensor", "slice_copy.Tensor")
def _slice(imp, node):
    args = imp.retrieve_args(node)
    x = args[0]
    ndim = x.struct_info.ndim
    dim = _norm_dim(args[1] if len(args) > 1 else 0, ndim)
    start = args[2] if len(args) > 2 and args[2] is not None else 0
    end = args[3] if len(args) > 3 and args[3] is not None else _BIG
    step = args[4] if len(args) > 4 else 1
    size = imp.val(node.args[0]).shape[dim]
    if isinstance(size, int) or str(size).isdigit():
        size = int(size)
        start = start + size if isinstance(start, int) and start < 0 else start
        end = end + size if isinstance(end, int) and end < 0 else end
        start = min(max(start, 0), size) if isinstance(start, int) else start
        end = min(max(end, 0), size) if isinstance(end, int) else end
        if start == 0 and end == size and step == 1:
            return x
    else:
        if isinstance(end, int) and end >= _BIG // 2:
            end = imp.sym_expr(size)
    return R.strided_slice(x, [dim], [start], [end], [step], assume_inbound=True)


@register("select.int", "select_copy.int")
def _select(imp, node):
    x, dim, index = imp.retrieve_args(node)[:3]
    ndim = x.struct_info.ndim
    dim = _norm_dim(dim, ndim)
    if isinstance(index, int) and index < 0:
        index += _static_dim(imp, node.args[0], dim)
    part = imp.emit(R.strided_slice(x, [dim], [index], [index + 1], assume_inbound=True))
    return R.squeeze(part, [dim])


@register("index.Tensor", "_unsafe_index.Tensor")
def _index(imp, node):
    """``x[..., idx, ...]``: integer index tensors (advanced indexing), as torch does.

    Index tensors on consecutive dims are combined into one index over those dims flattened
    together; the broadcast index shape replaces them in place. Index tensors on
    non-adjacent dims (``x[:, i, :, j]``) put the broadcast index shape first, followed by
    the other dims in order (torch's and NumPy's rule): the indexed dims are permuted to
    the front and indexed the same way. Negative indices count from the end.

    Boolean masks (``x[mask]``) are rejected with ``OpNotImplemented``: the result's length
    is the number of True elements, known only at run time, and pytvm's Relax has no op with
    a data-dependent output shape (no ``R.nonzero``). ``x[mask] = v`` / ``masked_fill`` and
    ``torch.where(mask, x, y)`` keep the shape and are supported.
    """
    x, indices = imp.retrieve_args(node)[:2]
    indices = list(indices)
    dims = [d for d, ix in enumerate(indices) if ix is not None]
    if not dims:
        return x
    if any(dtype_of(indices[d]) in ("bool", "uint8") for d in dims):
        raise OpNotImplemented(
            f"torch frontend: {node.name} (aten.{node.target.__name__}, at "
            f"{source_location(node)}) {_BOOL_MASK_REASON}"
        )
    shape = _shape(imp, node.args[0])
    ndim = len(shape)
    if dims != list(range(dims[0], dims[-1] + 1)):
        # Non-adjacent index tensors: move the indexed dims to the front (their broadcast
        # shape leads the result), keep the others in order after them.
        rest = [d for d in range(ndim) if d not in dims]
        x = imp.emit(R.permute_dims(x, dims + rest))
        shape = [shape[d] for d in dims + rest]
        dims = list(range(len(dims)))
    tensors = [ix for ix in indices if ix is not None]
    idx = [
        _wrap_negative(imp, as_dtype(imp, ix, "int64"), shape[d]) for d, ix in zip(dims, tensors)
    ]
    first = dims[0]
    if len(dims) == 1:
        return R.take(x, idx[0], axis=first)
    flat_index = None
    for d, ix in zip(dims, idx):
        flat_index = (
            ix
            if flat_index is None
            else imp.emit(R.add(R.multiply(flat_index, imp.const(int(shape[d]), "int64")), ix))
        )
    merged = 1
    for d in dims:
        merged *= int(shape[d])
    new_shape = list(shape[:first]) + [merged] + list(shape[dims[-1] + 1 :])
    flat = imp.emit(R.reshape(x, new_shape))
    return R.take(flat, flat_index, axis=first)


def _reject_bool_index(imp, node) -> str | None:
    for ix in node.args[1]:
        val = ix.meta.get("val") if ix is not None and hasattr(ix, "meta") else None
        if val is not None and str(val.dtype) in ("torch.bool", "torch.uint8"):
            return _BOOL_MASK_REASON
    return None


_BOOL_MASK_REASON = (
    "with a boolean mask (x[mask]): not supported, the result's length is the number of True "
    "elements, known only at run time, and Relax here has no op with a data-dependent output "
    "shape (no R.nonzero); torch.where(mask, x, other) and masked_fill keep the shape"
)
REJECTORS["index.Tensor"] = _reject_bool_index


def _wrap_negative(imp, ix, size):
    """``ix + size`` where ``ix < 0`` (torch's negative indices), for a static ``size``."""
    try:
        size = int(size)
    except TypeError:
        return ix
    zero, n = imp.const(0, "int64"), imp.const(size, "int64")
    return imp.emit(R.where(R.less(ix, zero), R.add(ix, n), ix))


@register("index_select")
def _index_select(imp, node):
    x, dim, index = imp.retrieve_args(node)[:3]
    return R.take(x, index, axis=_norm_dim(dim, x.struct_info.ndim))


@register("gather")
def _gather(imp, node):
    x, dim, index = imp.retrieve_args(node)[:3]
    return R.gather_elements(x, index, axis=_norm_dim(dim, x.struct_info.ndim))


@register("where.self", "where.ScalarSelf", "where.ScalarOther", "where.Scalar")
def _where(imp, node):
    cond, a, b = imp.retrieve_args(node)[:3]
    dtype = imp.out_dtype(node)
    return R.where(as_dtype(imp, cond, "bool"), as_dtype(imp, a, dtype), as_dtype(imp, b, dtype))


@register("masked_fill.Scalar", "masked_fill.Tensor")
def _masked_fill(imp, node):
    x, mask, value = imp.retrieve_args(node)[:3]
    dtype = dtype_of(x)
    return R.where(as_dtype(imp, mask, "bool"), as_dtype(imp, value, dtype), x)


@register("tril", "triu")
def _tri(imp, node):
    args = imp.retrieve_args(node)
    k = node.kwargs.get("diagonal", args[1] if len(args) > 1 else 0)
    return (R.tril if node.target.__name__.startswith("tril") else R.triu)(args[0], k)


@register("flip")
def _flip(imp, node):
    x, dims = imp.retrieve_args(node)[:2]
    for d in dims:
        x = imp.emit(R.flip(x, _norm_dim(d, x.struct_info.ndim)))
    return x


@register("repeat")
def _repeat(imp, node):
    x, repeats = imp.retrieve_args(node)[:2]
    return R.tile(x, list(repeats))


# ----- creation ------------------------------------------------------------------------------
@register(
    "full",
    "full_like",
    "zeros",
    "zeros_like",
    "ones",
    "ones_like",
    "empty",
    "empty_like",
    "new_zeros",
    "new_ones",
    "new_full",
    "scalar_tensor",
    "empty_strided",
)
def _creation(imp, node):
    name = node.target.__name__.split(".")[0]
    args = imp.retrieve_args(node)
    if name in ("full", "new_full"):
        value = args[1] if name == "full" else args[2]
    elif name == "full_like":
        value = args[1]
    elif name == "scalar_tensor":
        value = args[0]
    elif "ones" in name:
        value = 1
    else:
        value = 0  # zeros, and empty tensors (filled with zeros here)
    dtype = imp.out_dtype(node)
    shape = imp.out_shape(node)
    if isinstance(value, Expr):
        return R.broadcast_to(as_dtype(imp, value, dtype), shape)
    if dtype == "bool":
        value = bool(value)
    elif not dtype.startswith(("float", "bfloat")):
        value = int(value)
    return R.full(shape, imp.const(value, dtype), dtype)


@register("arange")
def _arange(imp, node):
    args = imp.retrieve_args(node)
    key = node.target.__name__
    if key == "arange.default":
        start, end, step = 0, args[0], 1
    else:
        start, end = args[0], args[1]
        step = args[2] if len(args) > 2 else node.kwargs.get("step", 1)
    return R.arange(start, end, step, imp.out_dtype(node))


@register("sym_size.int", "sym_numel.default")
def _sym_size(imp, node):
    return imp.sym_expr(imp.val(node))


@register("operator.ge", "operator.le", "operator.gt", "operator.lt", "operator.eq")
def _sym_compare(imp, node):
    """Comparisons of symbolic sizes (they feed torch's shape assertions)."""
    a, b = imp.retrieve_args(node)[:2]
    if isinstance(a, Expr) or isinstance(b, Expr):
        raise TypeError(f"torch frontend: {node.name} compares tensors with a Python operator")
    return getattr(operator, node.target.__name__)(a, b)


@register("operator.getitem")
def _getitem(imp, node):
    seq, index = imp.retrieve_args(node)[:2]
    if isinstance(seq, list):
        value = seq[index]
        if value is None or type(value).__name__ == "_NotComputed":
            raise ValueError(
                f"torch frontend: {node.name} reads result {index} of {node.args[0].name}, "
                f"which this frontend does not compute ({value!r}); it is not supported yet"
            )
        return value
    if isinstance(seq, Expr):
        return TupleGetItem(seq, index)
    raise ValueError(f"torch frontend: getitem on {type(seq).__name__} is not supported")
