"""``FPrimalGradient`` rules of the indexing family: ``take`` scatters the gradient back with
``grad.take_backward`` (indices get no gradient)."""

from __future__ import annotations

from ..grad import take_backward
from ..grad.grad import no_grad_all, register_gradient


@register_gradient("relax.take")
def _take_grad(orig_var, orig_call, output_grad, ctx):
    x, indices = orig_call.args
    axis = orig_call.attrs.axis
    grads = no_grad_all(orig_call)
    grads[0] = take_backward(output_grad, x, indices, None if axis is None else int(axis))
    return grads
