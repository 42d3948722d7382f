"""``FPrimalGradient`` rules of the ternary family (``where``, ``ewise_fma``)."""

from __future__ import annotations

from ..binary import multiply
from ..grad import no_grad
from ..grad.grad import fit_shape, register_gradient, scalar
from ..ternary import where


@register_gradient("relax.where")
def _where_grad(orig_var, orig_call, output_grad, ctx):
    cond, x, y = orig_call.args
    zero = scalar(0.0, orig_var)
    return [
        no_grad(cond),
        fit_shape(ctx, where(cond, output_grad, zero), x),
        fit_shape(ctx, where(cond, zero, output_grad), y),
    ]


@register_gradient("relax.ewise_fma")
def _ewise_fma_grad(orig_var, orig_call, output_grad, ctx):
    x, y, z = orig_call.args
    return [
        fit_shape(ctx, multiply(output_grad, y), x),
        fit_shape(ctx, multiply(output_grad, x), y),
        fit_shape(ctx, output_grad, z),
    ]
