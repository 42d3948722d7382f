"""``FPrimalGradient`` rules of the linear algebra family.

``matmul`` follows TVM 0.27 exactly: ``g @ T(b)`` and ``T(a) @ g`` (``T`` swaps the last two
axes), 1-D operands promoted with ``expand_dims`` and the results fitted back to the operands'
shapes (collapse-sum over broadcast batch dims, squeeze of a promoted 1-D ``b``).
"""

from __future__ import annotations

from ..binary import multiply
from ..grad.grad import fit_shape, register_gradient
from ..linear_algebra import matmul
from ..manipulate import expand_dims, permute_dims, squeeze


def _transpose(x, ndim):
    axes = list(range(ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    return permute_dims(x, axes)


@register_gradient("relax.matmul")
def _matmul_grad(orig_var, orig_call, output_grad, ctx):
    a, b = orig_call.args
    a_dim, b_dim = a.ty.ndim, b.ty.ndim
    # As in TVM 0.27, the gradient matmuls compute in the operands' dtype (out_dtype=None).
    out_dtype = None
    g = output_grad
    if a_dim == 1 and b_dim == 1:
        return [fit_shape(ctx, multiply(g, b), a), fit_shape(ctx, multiply(g, a), b)]
    if a_dim == 1:
        g = ctx.emit(expand_dims(g, [-2]))
        a_grad = matmul(g, _transpose(b, b_dim), out_dtype)
        b_grad = matmul(expand_dims(a, [1]), g, out_dtype)
    elif b_dim == 1:
        g = ctx.emit(expand_dims(g, [-1]))
        a_grad = matmul(g, expand_dims(b, [0]), out_dtype)
        b_grad = squeeze(matmul(_transpose(a, a_dim), g, out_dtype), [-1])
    else:
        a_grad = matmul(g, _transpose(b, b_dim), out_dtype)
        b_grad = matmul(_transpose(a, a_dim), g, out_dtype)
    return [fit_shape(ctx, a_grad, a), fit_shape(ctx, b_grad, b)]


@register_gradient("relax.outer")
def _outer_grad(orig_var, orig_call, output_grad, ctx):
    # z = a b^T: dz/da = g @ b, dz/db = g^T @ a
    a, b = orig_call.args
    return [matmul(output_grad, b), matmul(permute_dims(output_grad, [1, 0]), a)]
