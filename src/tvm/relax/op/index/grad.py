"""``FPrimalGradient`` rules of the indexing family: ``take`` scatters the gradient back with
``grad.take_backward`` (indices get no gradient)."""

from __future__ import annotations

from ...expr import const
from ..binary import floor_mod
from ..grad import take_backward
from ..grad.grad import no_grad_all, register_gradient, static_dims
from ..unary import clip


def _prod(dims):
    total = 1
    for dim in dims:
        total *= dim
    return total


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
        size = dims[int(axis) % len(dims)] if axis is not None else _prod(dims)
        dtype = indices.ty.dtype
        if mode == "wrap":
            indices = floor_mod(indices, const(size, dtype))
        else:
            indices = clip(indices, 0, size - 1)
    grads[0] = take_backward(output_grad, x, indices, None if axis is None else int(axis))
    return grads
