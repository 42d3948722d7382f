"""Type inference of shape manipulation: ``broadcast_to``, ``permute_dims``, ``reshape``."""

from __future__ import annotations

from ...ir_types import IntImm64
from ..infer_utils import (
    dim_text,
    is_one,
    known_shape,
    make_tensor_type,
    normalize_axes,
    op_name,
    prove_equal,
    shape_arg_values,
    shape_text,
    static_dim,
    tensor_arg,
)


def infer_broadcast_to(call, _bb=None):
    """The target shape, after checking each input dim is 1 or equal to the target's."""
    data = tensor_arg(call, 0)
    target, target_ndim = shape_arg_values(call, 1)
    if data.ndim != -1 and target_ndim != -1 and data.ndim > target_ndim:
        raise ValueError(
            "broadcast_to expects the input shape to have the number of ndim at least as the "
            f"input tensor's. However, the given tensor has ndim {data.ndim} while the target "
            f"shape has ndim {target_ndim}"
        )
    values = known_shape(data)
    if values is not None and target is not None:
        offset = len(target) - len(values)
        for i, dim in enumerate(values):
            want = target[offset + i]
            if not is_one(dim) and prove_equal(dim, want) is False:
                raise ValueError(
                    "broadcast_to expects the input tensor shape is broadcastable to the "
                    f"target shape. The target shape at dim {offset + i} is {dim_text(want)} "
                    f"while the input tensor shape at dim {i} is {dim_text(dim)}, which are "
                    "not equal."
                )
    shape = call.args[1]
    if hasattr(shape, "name_hint"):
        # A shape variable: the result's shape is that variable, as in TVM.
        return _shape_var_type(shape, data, target_ndim)
    return make_tensor_type(target, data.dtype, target_ndim, data.vdevice)


def _shape_var_type(shape, data, ndim):
    from ...ty import TensorType

    if hasattr(shape, "name_hint"):  # a shape-typed Var: the type refers to it
        return TensorType(shape, data.dtype, data.vdevice)
    return TensorType(None, data.dtype, data.vdevice, ndim)


def infer_permute_dims(call, _bb=None):
    """Permute the dims by ``attrs.axes`` (reverse them when None)."""
    data = tensor_arg(call, 0)
    axes = call.attrs.axes
    if data.ndim == -1:
        ndim = -1 if axes is None else len(axes)
        return make_tensor_type(None, data.dtype, ndim, data.vdevice)
    if axes is None:
        order = list(range(data.ndim - 1, -1, -1))
    else:
        if len(axes) != data.ndim:
            raise ValueError(
                f"PermuteDims expects the number of input axes to equal the ndim of the input "
                f"tensor. However, the tensor ndim is {data.ndim} while the given number of "
                f"axes is {len(axes)}"
            )
        order = normalize_axes(call, data.ndim, axes)
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, data.dtype, data.ndim, data.vdevice)
    return make_tensor_type([values[i] for i in order], data.dtype, data.ndim, data.vdevice)


def normalize_reshape(_bb, call):
    """``FNormalize`` of reshape: a ``-1`` in a literal new shape is replaced by the solved dim.

    ``R.reshape(x, R.shape([-1]))`` with ``x: R.Tensor((n, 4))`` becomes
    ``R.reshape(x, R.shape([n * 4]))``, as Apache TVM prints it. Unsolvable cases (unknown
    input shape) are left as written.
    """
    shape = call.args[1]
    values = getattr(shape, "values", None)
    if values is None or not any(static_dim(v) == -1 for v in values):
        return call
    solved = known_shape(infer_reshape(call))
    if solved is None:
        return call
    from ...expr import Call, ShapeExpr

    return Call(
        call.op, [call.args[0], ShapeExpr(solved)], call.attrs, call.ty_args, span=call.span
    )


def infer_reshape(call, _bb=None):
    """The new shape; a ``-1`` dim is solved from the element count when it is static."""
    data = tensor_arg(call, 0)
    target, target_ndim = shape_arg_values(call, 1)
    if target is None:
        return make_tensor_type(None, data.dtype, target_ndim, data.vdevice)
    values = known_shape(data)
    statics = [static_dim(v) for v in target]
    if statics.count(-1) > 1:
        raise ValueError(
            'Reshape accepts at most one "-1" in the new shape. However, there are multiple '
            f'"-1" in the given new shape  ({", ".join(str(v) for v in statics)})'
        )
    old_static = None if values is None else [static_dim(v) for v in values]
    old_count = None
    if old_static is not None and None not in old_static:
        old_count = 1
        for v in old_static:
            old_count *= v
    if -1 in statics:
        known = 1
        for v in statics:
            if v is None:
                known = None
                break
            if v != -1:
                known *= v
        if known is not None and known != 0 and old_count is None and values is not None:
            # Symbolic input dims: the -1 dim is the element count divided by the rest.
            from ..infer_utils import product, simplify

            target = list(target)
            target[statics.index(-1)] = simplify(product(values) // IntImm64(known))
            return make_tensor_type(target, data.dtype, len(target), data.vdevice)
        if known is None or old_count is None:
            return make_tensor_type(None, data.dtype, len(target), data.vdevice)
        target = list(target)
        target[statics.index(-1)] = IntImm64(old_count // known if known else 0)
        statics = [static_dim(v) for v in target]
    if old_count is not None and None not in statics:
        new_count = 1
        for v in statics:
            new_count *= v
        if new_count != old_count:
            raise ValueError(
                "Reshape expects the new shape to be convertible from the old shape. However, "
                f"the old shape is {shape_text(data)}, with product T.int64({old_count}), while "
                f"the new shape is R.shape([{', '.join(str(v) for v in statics)}]), with "
                f"product T.int64({new_count})"
            )
    return make_tensor_type(target, data.dtype, len(target), data.vdevice)


# --- the op library's shape manipulation rules -------------------------------------------------

from ...ir_types import IntImm64 as _I64
from ...ty import TensorType as _TensorType
from ..infer_utils import (
    normalize_axis,
    product,
    require_int,
    same_type_as,
    tensor_args,
    text,
)


def infer_expand_dims(call, _bb=None):
    """Insert size-1 dims at ``attrs.axis`` (positions in the output)."""
    data = tensor_arg(call, 0, "input x")
    axes = list(call.attrs.axis)
    if data.ndim == -1:
        return make_tensor_type(None, data.dtype, -1, data.vdevice)
    out_ndim = data.ndim + len(axes)
    norm = sorted(normalize_axis(call, out_ndim, a) for a in axes)
    if len(set(norm)) != len(norm):
        raise ValueError(f"expand_dims expects the input axes to be unique, got {axes}")
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, data.dtype, out_ndim, data.vdevice)
    out, it = [], iter(values)
    for i in range(out_ndim):
        out.append(_I64(1) if i in norm else next(it))
    return make_tensor_type(out, data.dtype, out_ndim, data.vdevice)


def infer_squeeze(call, _bb=None):
    """Remove size-1 dims (``attrs.axis`` or all); like TVM, a given static non-1 dim is kept."""
    data = tensor_arg(call, 0, "input x")
    axis = call.attrs.axis
    values = known_shape(data)
    if data.ndim == -1:
        return make_tensor_type(None, data.dtype, -1, data.vdevice)
    if axis is None:
        if values is None:
            return make_tensor_type(None, data.dtype, -1, data.vdevice)
        if any(static_dim(v) is None for v in values):
            return make_tensor_type(None, data.dtype, -1, data.vdevice)
        out = [v for v in values if static_dim(v) != 1]
        return make_tensor_type(out, data.dtype, len(out), data.vdevice)
    axes = normalize_axes(call, data.ndim, axis)
    if values is None:
        return make_tensor_type(None, data.dtype, data.ndim - len(axes), data.vdevice)
    out = [v for i, v in enumerate(values) if i not in axes or static_dim(v) not in (None, 1)]
    return make_tensor_type(out, data.dtype, len(out), data.vdevice)


def infer_flatten(call, _bb=None):
    """A 1-D tensor of all the elements (a 0-d input gives shape ``(1,)``)."""
    data = tensor_arg(call, 0, "input x")
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, data.dtype, 1, data.vdevice)
    return make_tensor_type([product(values)], data.dtype, 1, data.vdevice)


def _tuple_tensor_types(call, index=0):
    arg = call.args[index]
    fields = getattr(arg.ty, "fields", None)
    if fields is None:
        raise TypeError(
            f"{op_name(call)} expects the input to be a Tuple of Tensors, but "
            f"{text(arg)} has type {text(arg.ty)}"
        )
    for i, ty in enumerate(fields):
        if not isinstance(ty, _TensorType):
            raise TypeError(
                f"{op_name(call)} expects the input to be a Tuple of Tensors, but "
                f"field {i} has type {text(ty)}"
            )
    if not fields:
        raise ValueError(f"{op_name(call)} expects at least one tensor in the input Tuple")
    return list(fields)


def _common_dtype(call, tys):
    dtypes = {t.dtype for t in tys if t.dtype != "void"}
    if len(dtypes) > 1:
        raise TypeError(
            f"{op_name(call)} expects all input tensors to have the same dtype. "
            f"However, the input contains tensors of dtypes "
            f"{', '.join('T.' + d for d in sorted(dtypes))}"
        )
    return dtypes.pop() if dtypes else "void"


def infer_concat(call, _bb=None):
    """Join along ``attrs.axis``; the other dims must agree (``axis=None``: flatten first)."""
    tys = _tuple_tensor_types(call)
    dtype = _common_dtype(call, tys)
    axis = call.attrs.axis
    shapes = [known_shape(t) for t in tys]
    if axis is None:
        if any(s is None for s in shapes):
            return make_tensor_type(None, dtype, 1)
        return make_tensor_type([sum_dims([product(s) for s in shapes])], dtype, 1)
    ndims = {t.ndim for t in tys if t.ndim != -1}
    if len(ndims) > 1:
        raise ValueError(
            "Concat expects all input tensors to have the same ndim. However, "
            f"the input contains tensors with ndim {sorted(ndims)}"
        )
    if not ndims:
        return make_tensor_type(None, dtype, -1)
    ndim = ndims.pop()
    axis = normalize_axis(call, ndim, axis)
    if any(s is None for s in shapes):
        return make_tensor_type(None, dtype, ndim)
    out = list(shapes[0])
    for dim in range(ndim):
        if dim == axis:
            out[dim] = sum_dims([s[dim] for s in shapes])
            continue
        for s in shapes[1:]:
            if prove_equal(shapes[0][dim], s[dim]) is False:
                raise ValueError(
                    "Concat expects the input tensors to have the same shape on every "
                    "dimension except the one indicated by the input axis. However, the input "
                    f"contains tensors whose shapes on dimension {dim} is "
                    f"{dim_text(shapes[0][dim])} and {dim_text(s[dim])}"
                )
    return make_tensor_type(out, dtype, ndim)


def sum_dims(values):
    """The sum of dims (PrimExpr arithmetic folds constants)."""
    total = _I64(0)
    for v in values:
        total = total + v
    return total


def infer_stack(call, _bb=None):
    """Stack equal-shaped tensors along a new ``attrs.axis``."""
    tys = _tuple_tensor_types(call)
    dtype = _common_dtype(call, tys)
    ndims = {t.ndim for t in tys if t.ndim != -1}
    if len(ndims) > 1:
        raise ValueError(
            "Stack expects all input tensors to have the same ndim. However, "
            f"the input contains tensors with ndim {sorted(ndims)}"
        )
    if not ndims:
        return make_tensor_type(None, dtype, -1)
    ndim = ndims.pop()
    axis = normalize_axis(call, ndim + 1, call.attrs.axis)
    shapes = [known_shape(t) for t in tys]
    if any(s is None for s in shapes):
        return make_tensor_type(None, dtype, ndim + 1)
    for s in shapes[1:]:
        for dim, (a, b) in enumerate(zip(shapes[0], s)):
            if prove_equal(a, b) is False:
                raise ValueError(
                    "Stack expects all input tensors to have identical shapes. "
                    f"Dimension {dim} differs between tensors: {dim_text(a)} vs "
                    f"{dim_text(b)}"
                )
    out = list(shapes[0])
    out.insert(axis, _I64(len(tys)))
    return make_tensor_type(out, dtype, ndim + 1)


def split_bounds(call, dim_value, indices_or_sections):
    """Static [start, end) pieces of a split, TVM's way (sections of ceil(n / k) each)."""
    n = dim_value if isinstance(dim_value, int) else static_dim(dim_value)
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise ValueError(f"split expects a positive number of sections, got {k}")
        if n is None:
            return None
        size = -(-n // k)
        cuts = [min(size * i, n) for i in range(1, k)]
    else:
        cuts = [int(i) for i in indices_or_sections]
        if n is None:
            return None
    starts = [0] + cuts
    ends = cuts + [n]
    return [(s, max(s, e)) for s, e in zip(starts, ends)]


def _symbolic_split(values, axis, indices_or_sections):
    """Piece shapes along a symbolic extent ``n`` (sections of ``ceil(n / k)``, as TVM)."""
    from ..infer_utils import simplify_dim

    n = values[axis]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        size = simplify_dim((n + (k - 1)) // k)
        extents = [size] * (k - 1) + [simplify_dim(n - size * (k - 1))]
    else:
        cuts = [int(i) for i in indices_or_sections]
        extents = [_I64(b - a) for a, b in zip([0] + cuts, cuts)]
        extents.append(simplify_dim(n - cuts[-1]) if cuts else n)
    pieces = []
    for extent in extents:
        dims = list(values)
        dims[axis] = extent
        pieces.append(dims)
    return pieces


def infer_split(call, _bb=None):
    """A tuple of tensors, one per piece along ``attrs.axis``."""
    from ....ir.type import TupleType

    data = tensor_arg(call, 0, "input x")
    ios = call.attrs.indices_or_sections
    count = ios if isinstance(ios, int) else len(ios) + 1
    if data.ndim == -1:
        return TupleType([make_tensor_type(None, data.dtype, -1)] * count)
    axis = normalize_axis(call, data.ndim, call.attrs.axis)
    values = known_shape(data)
    pieces = None if values is None else split_bounds(call, values[axis], ios)
    if pieces is None and values is not None:
        return TupleType(
            [
                make_tensor_type(dims, data.dtype, data.ndim, data.vdevice)
                for dims in _symbolic_split(values, axis, ios)
            ]
        )
    if pieces is None:
        return TupleType([make_tensor_type(None, data.dtype, data.ndim)] * count)
    out = []
    for start, end in pieces:
        dims = list(values)
        dims[axis] = _I64(end - start)
        out.append(make_tensor_type(dims, data.dtype, data.ndim, data.vdevice))
    return TupleType(out)


def _collapse_to(call, data, target_values, target_ndim, target_expr=None):
    if data.ndim != -1 and target_ndim != -1 and target_ndim > data.ndim:
        raise ValueError(
            f"{op_name(call)} expects the target shape to have no more dims than "
            f"the input; the input has ndim {data.ndim}, the target {target_ndim}"
        )
    values = known_shape(data)
    if values is not None and target_values is not None:
        offset = len(values) - len(target_values)
        for i, want in enumerate(target_values):
            have = values[offset + i]
            if not is_one(want) and prove_equal(have, want) is False:
                raise ValueError(
                    f"{op_name(call)}: the input shape {shape_text(data)} cannot be collapsed "
                    f"(summed) to the target shape; dim {offset + i} is {dim_text(have)} but "
                    f"the target has {dim_text(want)}"
                )
    if target_values is not None:
        return make_tensor_type(target_values, data.dtype, target_ndim, data.vdevice)
    if target_expr is not None and hasattr(target_expr, "name_hint"):
        return _TensorType(target_expr, data.dtype, data.vdevice)
    return make_tensor_type(None, data.dtype, target_ndim, data.vdevice)


def infer_collapse_sum_like(call, _bb=None):
    """Sum ``data`` down to the shape of ``collapse_target`` (the reverse of broadcasting)."""
    data, target = tensor_args(call, 2)
    return _collapse_to(call, data, known_shape(target), target.ndim)


def infer_collapse_sum_to(call, _bb=None):
    """Sum ``data`` down to the given shape (the reverse of broadcasting)."""
    data = tensor_arg(call, 0, "input data")
    values, ndim = shape_arg_values(call, 1)
    return _collapse_to(call, data, values, ndim, call.args[1])


def infer_repeat(call, _bb=None):
    """Repeat each element ``attrs.repeats`` times along ``attrs.axis`` (None: flattened)."""
    data = tensor_arg(call, 0, "input data")
    repeats, axis = int(call.attrs.repeats), call.attrs.axis
    if repeats < 0:
        raise ValueError(f"repeat expects a non-negative repeats, got {repeats}")
    values = known_shape(data)
    if axis is None:
        if values is None:
            return make_tensor_type(None, data.dtype, 1, data.vdevice)
        return make_tensor_type([product(values) * repeats], data.dtype, 1, data.vdevice)
    if data.ndim == -1:
        return make_tensor_type(None, data.dtype, -1, data.vdevice)
    axis = normalize_axis(call, data.ndim, axis)
    if values is None:
        return make_tensor_type(None, data.dtype, data.ndim, data.vdevice)
    out = list(values)
    out[axis] = out[axis] * repeats
    return make_tensor_type(out, data.dtype, data.ndim, data.vdevice)


def infer_tile(call, _bb=None):
    """Tile by ``attrs.repeats``; the shorter of input dims and repeats is padded with 1s."""
    data = tensor_arg(call, 0, "input data")
    reps = [int(r) for r in call.attrs.repeats]
    if any(r < 0 for r in reps):
        raise ValueError(f"tile expects non-negative repeats, got {reps}")
    if data.ndim == -1:
        return make_tensor_type(None, data.dtype, -1, data.vdevice)
    ndim = max(data.ndim, len(reps))
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, data.dtype, ndim, data.vdevice)
    dims = [_I64(1)] * (ndim - len(values)) + list(values)
    reps = [1] * (ndim - len(reps)) + reps
    return make_tensor_type([d * r for d, r in zip(dims, reps)], data.dtype, ndim, data.vdevice)


def infer_flip(call, _bb=None):
    """The input's type (``attrs.axis`` is range-checked)."""
    data = tensor_arg(call, 0, "input data")
    axis = int(call.attrs.axis)
    if data.ndim != -1 and not -data.ndim <= axis < data.ndim:
        raise ValueError(
            "Flip requires the input axis belongs range [-ndim, ndim - 1]. "
            f"However, the input axis is {axis}, while ndim is {data.ndim}"
        )
    return data


def infer_gather_elements(call, _bb=None):
    """The shape of ``indices`` with the dtype of ``data``; same ranks required."""
    data, indices = tensor_args(call, 2)
    require_int(call, indices, "input indices", "GatherElements")
    if -1 not in (data.ndim, indices.ndim) and data.ndim != indices.ndim:
        raise ValueError(
            "GatherElements requires data and indices to have the same rank. "
            f"However, data has rank {data.ndim} while indices has rank "
            f"{indices.ndim}"
        )
    if data.ndim != -1:
        normalize_axis(call, data.ndim, call.attrs.axis)
    return same_type_as(indices, data.dtype)


def infer_scatter_elements(call, _bb=None):
    """The type of ``data``; ``indices`` and ``updates`` have the same shape."""
    data, indices, updates = tensor_args(call, 3)
    require_int(call, indices, "input indices", "ScatterElements")
    if "void" not in (data.dtype, updates.dtype) and data.dtype != updates.dtype:
        raise TypeError(
            "ScatterElements requires data and updates to have the same dtype. "
            f"However, data has dtype T.{data.dtype} while updates has dtype "
            f"T.{updates.dtype}"
        )
    if call.attrs.reduction not in ("update", "add", "mul", "mean", "max", "min"):
        raise ValueError(
            "ScatterElements expects reduction to be one of update, add, mul, "
            f"mean, max, min, got {call.attrs.reduction!r}"
        )
    if data.ndim != -1:
        normalize_axis(call, data.ndim, call.attrs.axis)
    return data


def infer_one_hot(call, _bb=None):
    """Insert a ``depth``-sized dim at ``attrs.axis``; the dtype of ``on_value``."""
    from ..infer_utils import prim_arg

    indices = tensor_arg(call, 0, "input indices")
    require_int(call, indices, "input indices", "one_hot op")
    on, off = prim_arg(call, 1, "on_value"), prim_arg(call, 2, "off_value")
    if on.dtype != off.dtype:
        raise TypeError(
            f"one_hot op requires on_value and off_value to have the same dtype, "
            f"got T.{on.dtype} and T.{off.dtype}"
        )
    depth = int(call.attrs.depth)
    if depth <= 0:
        raise ValueError(f"one_hot op expects a positive depth, got {depth}")
    if indices.ndim == -1:
        return make_tensor_type(None, on.dtype, -1)
    axis = normalize_axis(call, indices.ndim + 1, call.attrs.axis)
    values = known_shape(indices)
    if values is None:
        return make_tensor_type(None, on.dtype, indices.ndim + 1)
    out = list(values)
    out.insert(axis, _I64(depth))
    return make_tensor_type(out, on.dtype, indices.ndim + 1)


def infer_layout_transform(call, _bb=None):
    """The index map's ``map_shape`` of the input shape (padded when a split does not divide).
    """
    data = tensor_arg(call, 0, "input x")
    index_map = call.attrs.index_map
    ndim_in = len(index_map.initial_indices)
    ndim_out = len(index_map.final_indices)
    if data.ndim not in (-1, ndim_in):
        raise ValueError(
            f"layout_transform expects the index map to take {data.ndim} indices (the input "
            f"x's ndim), but it takes {ndim_in}"
        )
    pad = call.attrs.pad_value
    if pad is not None and data.dtype != "void" and pad.dtype != data.dtype:
        raise TypeError(
            f"layout_transform expects pad_value to have the input's dtype {data.dtype}, "
            f"got {pad.dtype}"
        )
    values = known_shape(data)
    if values is None:
        return make_tensor_type(None, data.dtype, ndim_out, data.vdevice)
    out = index_map.map_shape(values)
    return make_tensor_type(out, data.dtype, ndim_out, data.vdevice)


def as_dim(value):
    """An int or PrimExpr dim as a PrimExpr."""
    return _I64(value) if isinstance(value, int) else value
