"""``FPrimalGradient`` rules of the indexing family: ``take``, ``strided_slice`` and
``dynamic_strided_slice`` scatter the gradient back with ``grad.take_backward`` (indices and
slice bounds get no gradient)."""

from __future__ import annotations

import math

import numpy as np

from ...expr import const
from ..binary import floor_mod
from ..create import arange, zeros
from ..grad import take_backward
from ..grad.grad import no_grad_all, register_gradient, static_dims
from ..index import dynamic_strided_slice
from ..manipulate import reshape
from ..unary import clip


@register_gradient("relax.take")
def _take_grad(orig_var, orig_call, output_grad, ctx):
    x, indices = orig_call.args
    axis = orig_call.attrs.axis
    grads = no_grad_all(orig_call)
    mode = str(orig_call.attrs.mode)
    if mode in ("wrap", "clip"):
        # Map the indices into range the way the forward op did, so take_backward can
        # scatter-add them (it expects in-range indices).
        dims = static_dims(x)
        if dims is None:
            raise ValueError(
                f"the take gradient with mode={mode!r} is supported for static shapes only"
            )
        size = dims[int(axis) % len(dims)] if axis is not None else math.prod(dims)
        dtype = indices.ty.dtype
        if mode == "wrap":
            indices = floor_mod(indices, const(size, dtype))
        else:
            indices = clip(indices, 0, size - 1)
    grads[0] = take_backward(output_grad, x, indices, None if axis is None else int(axis))
    return grads


def _ints(expr):
    """The Python ints of a Tuple of PrimValues (a strided_slice argument)."""
    values = []
    for field in expr.fields:
        value = getattr(field, "value", field)
        values.append(int(getattr(value, "value", value)))
    return values


@register_gradient("relax.strided_slice")
def _strided_slice_grad(orig_var, orig_call, output_grad, ctx):
    # Scatter the gradient back axis by axis: take_backward adds each gradient row at the
    # input position it was sliced from, into zeros of the partially restored shape.
    x, axes, begin, end, *rest = orig_call.args
    dims = static_dims(x)
    if dims is None:
        raise ValueError("the strided_slice gradient is supported for static shapes only")
    strides = _ints(rest[0]) if rest else [1] * len(axes.fields)
    shape = list(static_dims(orig_var))
    grad = output_grad
    for axis, b, e, s in zip(_ints(axes), _ints(begin), _ints(end), strides):
        axis %= len(dims)
        positions = list(range(*slice(b, e, s).indices(dims[axis])))
        shape[axis] = dims[axis]
        target = zeros(shape, x.ty.dtype)
        index = const(np.array(positions, "int64"), "int64")
        grad = take_backward(grad, target, index, axis)
    grads = no_grad_all(orig_call)
    grads[0] = grad
    return grads


@register_gradient("relax.dynamic_strided_slice")
def _dynamic_strided_slice_grad(orig_var, orig_call, output_grad, ctx):
    # The slice is linear in x: it reads x.flat[p] for p the same slice of the row-major
    # positions of x, so its gradient scatters output_grad back to those positions
    # (take_backward with axis=None). begin, end and strides are integer: no gradient.
    x, begin, end, strides = orig_call.args
    dims = static_dims(x)
    if dims is None:
        raise ValueError("the dynamic_strided_slice gradient is supported for static shapes only")
    positions = reshape(arange(0, math.prod(dims), 1, "int64"), dims)
    picked = ctx.emit(dynamic_strided_slice(positions, begin, end, strides))
    grads = no_grad_all(orig_call)
    grads[0] = take_backward(output_grad, x, picked, None)
    return grads
