"""``FPrimalGradient`` rules of the shape-manipulation family (permute_dims ... broadcast_to as
in TVM 0.27; squeeze, flatten, collapse_sum_*, flip, stack, tile, repeat, gather/scatter beyond
it)."""

from __future__ import annotations

import math

import numpy as np

from ...expr import Tuple, TupleGetItem, const
from ...ty import TupleType
from ..binary import add, divide, equal, floor_mod, logical_and, multiply, power
from ..create import ones_like, zeros_like
from ..datatype import astype
from ..grad.grad import no_grad_all, register_gradient, scalar, shape_of, static_dims
from ..index import strided_slice
from ..manipulate import (
    broadcast_to,
    collapse_sum_to,
    concat,
    expand_dims,
    flip,
    gather_elements,
    layout_transform,
    permute_dims,
    reshape,
    scatter_elements,
    split,
    squeeze,
)
from ..statistical import sum


@register_gradient("relax.permute_dims")
def _permute_dims_grad(orig_var, orig_call, output_grad, ctx):
    axes = orig_call.attrs.axes
    if axes is None:
        return [permute_dims(output_grad, None)]
    axes = [int(a) % len(axes) for a in axes]
    inverse = [0] * len(axes)
    for i, axis in enumerate(axes):
        inverse[axis] = i
    return [permute_dims(output_grad, inverse)]


def _field_types(expr):
    ty = expr.ty
    if isinstance(ty, TupleType):
        return list(ty.fields)
    raise ValueError(f"expected a tuple of tensors, got {expr} of type {ty}")


@register_gradient("relax.concat")
def _concat_grad(orig_var, orig_call, output_grad, ctx):
    # Split the gradient back at the cumulative sizes of the inputs along the axis.
    (tensors,) = orig_call.args
    axis = orig_call.attrs.axis
    fields = _field_types(tensors)
    if axis is None:
        # concat(axis=None) flattens: split the flat gradient, then reshape each piece.
        sizes = [math.prod(_static_ty(ty)) for ty in fields]
        pieces = ctx.emit(split(output_grad, _cumulative(sizes), 0))
        return [Tuple([reshape(TupleGetItem(pieces, i), ty.shape) for i, ty in enumerate(fields)])]
    axis = int(axis)
    sizes = [ty.shape.values[axis % len(ty.shape.values)] for ty in fields]
    return [split(output_grad, _cumulative(sizes), axis)]


def _cumulative(sizes):
    indices, total = [], 0
    for size in sizes[:-1]:
        total = total + size
        indices.append(total)
    return indices


def _static_ty(ty):
    dims = [getattr(d, "value", d) for d in ty.shape.values]
    if not all(isinstance(d, int) for d in dims):
        raise ValueError(
            f"the concat(axis=None) gradient is supported for static shapes only, got {ty}"
        )
    return dims


@register_gradient("relax.split")
def _split_grad(orig_var, orig_call, output_grad, ctx):
    return [concat(output_grad, int(orig_call.attrs.axis))]


@register_gradient("relax.expand_dims")
def _expand_dims_grad(orig_var, orig_call, output_grad, ctx):
    return [squeeze(output_grad, list(orig_call.attrs.axis))]


@register_gradient("relax.reshape")
def _reshape_grad(orig_var, orig_call, output_grad, ctx):
    grads = no_grad_all(orig_call)
    grads[0] = reshape(output_grad, shape_of(orig_call.args[0]))
    return grads


@register_gradient("relax.broadcast_to")
def _broadcast_to_grad(orig_var, orig_call, output_grad, ctx):
    grads = no_grad_all(orig_call)
    grads[0] = collapse_sum_to(output_grad, shape_of(orig_call.args[0]))
    return grads


# --- beyond TVM 0.27's list --------------------------------------------------------------------


def _reshape_back(orig_var, orig_call, output_grad, ctx):
    return [reshape(output_grad, shape_of(orig_call.args[0]))]


register_gradient("relax.squeeze", _reshape_back)
register_gradient("relax.flatten", _reshape_back)


def _broadcast_back(orig_var, orig_call, output_grad, ctx):
    grads = no_grad_all(orig_call)
    grads[0] = broadcast_to(output_grad, shape_of(orig_call.args[0]))
    return grads


register_gradient("relax.collapse_sum_to", _broadcast_back)
register_gradient("relax.collapse_sum_like", _broadcast_back)


@register_gradient("relax.flip")
def _flip_grad(orig_var, orig_call, output_grad, ctx):
    return [flip(output_grad, int(orig_call.attrs.axis))]


@register_gradient("relax.stack")
def _stack_grad(orig_var, orig_call, output_grad, ctx):
    # Each input gets its slice of the gradient along the new axis.
    (tensors,) = orig_call.args
    count = len(_field_types(tensors))
    axis = int(orig_call.attrs.axis)
    ndim = orig_var.ty.ndim
    axis = axis % ndim
    pieces = ctx.emit(split(output_grad, count, axis))
    return [Tuple([squeeze(TupleGetItem(pieces, i), [axis]) for i in range(count)])]


def _static(expr, what):
    dims = static_dims(expr)
    if dims is None:
        raise ValueError(f"the gradient of {what} needs static shapes, but {expr} is {expr.ty}")
    return dims


@register_gradient("relax.tile")
def _tile_grad(orig_var, orig_call, output_grad, ctx):
    # Output dim i is reps_i copies of input dim i: view it as (reps_i, d_i) and sum the copies.
    x = orig_call.args[0]
    in_dims = _static(x, "tile")
    out_dims = _static(orig_var, "tile")
    lead = len(out_dims) - len(in_dims)
    padded = [1] * lead + in_dims
    split_shape, axes = [], []
    for out_dim, in_dim in zip(out_dims, padded):
        axes.append(len(split_shape))
        split_shape += [out_dim // in_dim, in_dim]
    grad = sum(reshape(output_grad, split_shape), axes)
    return [reshape(grad, shape_of(x))]


@register_gradient("relax.repeat")
def _repeat_grad(orig_var, orig_call, output_grad, ctx):
    # Each element is copied ``repeats`` times in a row: view as (..., d, repeats, ...) and sum.
    x = orig_call.args[0]
    repeats = int(orig_call.attrs.repeats)
    axis = orig_call.attrs.axis
    dims = _static(x, "repeat")
    if axis is None:
        grad = sum(reshape(output_grad, [math.prod(dims), repeats]), [1])
        return [reshape(grad, shape_of(x))]
    axis = int(axis) % len(dims)
    view = dims[: axis + 1] + [repeats] + dims[axis + 1 :]
    return [sum(reshape(output_grad, view), [axis + 1])]


@register_gradient("relax.gather_elements")
def _gather_elements_grad(orig_var, orig_call, output_grad, ctx):
    data, indices = orig_call.args
    axis = int(orig_call.attrs.axis)
    grad = scatter_elements(zeros_like(data), indices, output_grad, axis, "add")
    return [grad, no_grad_all(orig_call)[1]]


@register_gradient("relax.scatter_elements")
def _scatter_elements_grad(orig_var, orig_call, output_grad, ctx):
    # update: overwritten positions get no gradient, the updates get theirs. add: both pass the
    # gradient through. mul: out = data * M (M the product of the updates scattered at each
    # position), and each update's gradient is g * out / update (updates must be nonzero).
    # mean: each update halves what was there, in index order, so a position hit c times
    # keeps data / 2^c, and an update followed by k later ones at its position counts
    # 1 / 2^(k+1).
    data, indices, updates = orig_call.args
    axis = int(orig_call.attrs.axis)
    reduction = str(orig_call.attrs.reduction)
    if reduction not in ("update", "add", "mul", "mean"):
        raise ValueError(
            "the gradient of scatter_elements is supported for reduction 'update', 'add', "
            f"'mul' and 'mean' only, not {reduction!r}"
        )
    grads = no_grad_all(orig_call)
    per_position = output_grad
    update_factor = None
    if reduction == "update":
        grads[0] = scatter_elements(output_grad, indices, zeros_like(updates), axis, "update")
    elif reduction == "add":
        grads[0] = output_grad
    elif reduction == "mean":
        hits = scatter_elements(zeros_like(data), indices, ones_like(updates), axis, "add")
        grads[0] = multiply(output_grad, power(scalar(0.5, data), hits))
        update_factor = _mean_update_factor(ctx, data, indices, updates, axis)
    else:
        factor = scatter_elements(ones_like(data), indices, updates, axis, "mul")
        grads[0] = multiply(output_grad, factor)
        per_position = ctx.emit(multiply(output_grad, orig_var))
    # gather_elements reads an indices-shaped window: cut the gradient to it off the axis.
    g_dims, i_dims = static_dims(output_grad), static_dims(indices)
    window = per_position
    if g_dims is not None and i_dims is not None:
        axes = [d for d in range(len(g_dims)) if d != axis % len(g_dims) and i_dims[d] != g_dims[d]]
        if axes:
            window = strided_slice(per_position, axes, [0] * len(axes), [i_dims[d] for d in axes])
    gathered = gather_elements(window, indices, axis)
    if reduction == "mul":
        gathered = divide(gathered, updates)
    elif update_factor is not None:
        gathered = multiply(gathered, update_factor)
    grads[2] = gathered
    return grads


def _mean_update_factor(ctx, data, indices, updates, axis):
    """``1 / 2^(k+1)`` per update of a ``mean`` scatter, ``k`` the number of later updates (along
    ``axis``, the only coordinate in which two updates of one position can differ) that hit
    the same position."""
    dims, i_dims = static_dims(data), static_dims(indices)
    if dims is None or i_dims is None:
        raise ValueError(
            "the gradient of scatter_elements with reduction 'mean' is supported for static "
            "shapes only"
        )
    axis %= len(dims)
    length = i_dims[axis]
    # Negative indices count from the end: compare positions, not raw indices.
    position = floor_mod(indices, const(dims[axis], indices.ty.dtype))
    same = equal(expand_dims(position, [axis + 1]), expand_dims(position, [axis]))
    later = np.arange(length)[None, :] > np.arange(length)[:, None]
    later = later.reshape([1] * axis + [length, length] + [1] * (len(i_dims) - axis - 1))
    count = sum(astype(logical_and(same, const(later, "bool")), updates.ty.dtype), [axis + 1])
    return ctx.emit(power(scalar(0.5, updates), add(count, scalar(1.0, updates))))


@register_gradient("relax.layout_transform")
def _layout_transform_grad(orig_var, orig_call, output_grad, ctx):
    # The gradient moves back through the inverse map; padding positions (a split that does
    # not divide a dim) map past the input's end and are cut off.
    in_shape = list(shape_of(orig_call.args[0]).values)
    inverse, _padding = orig_call.attrs.index_map.non_surjective_inverse(in_shape)
    grad = layout_transform(output_grad, inverse)
    padded = inverse.map_shape(list(shape_of(orig_var).values))
    cut = [k for k, (p, n) in enumerate(zip(padded, in_shape)) if not _same_dim(p, n)]
    if cut:
        grad = strided_slice(grad, cut, [0] * len(cut), [in_shape[k] for k in cut])
    return [grad]


def _same_dim(a, b):
    """Whether two dims are provably equal (ints or PrimExprs)."""
    from ....arith import Analyzer  # local: only this rule compares symbolic dims

    return Analyzer().can_prove_equal(a, b)
