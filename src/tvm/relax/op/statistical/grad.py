"""``FPrimalGradient`` rules of the statistical family (sum, mean, variance as in TVM 0.27;
max, min, prod, std and cumsum/cumprod beyond it)."""

from __future__ import annotations

from ...expr import const
from ..binary import divide, equal, multiply, subtract
from ..create import ones_like
from ..grad.grad import broadcast_like, register_gradient, scalar, shape_of, static_dims
from ..manipulate import broadcast_to, expand_dims, flip, reshape
from ..statistical import cumsum, mean, sum
from ..ternary import where


def _axes(call):
    axis = call.attrs.axis
    return None if axis is None else [int(a) for a in axis]


def _restore_dims(call, grad):
    """Re-insert the reduced axes into ``grad`` (when the reduction dropped them)."""
    axis = _axes(call)
    if axis is None or call.attrs.keepdims:
        return grad
    return expand_dims(grad, axis)


def _count(call):
    """The number of elements each output element reduces, or None for symbolic or unknown
    shapes."""
    x = call.args[0]
    dims = None if getattr(x.ty.shape, "values", None) is None else static_dims(x)
    if dims is None:
        return None
    axis = _axes(call)
    count = 1
    for i, dim in enumerate(dims):
        if axis is None or i in {a % len(dims) for a in axis}:
            count *= dim
    return count


def _count_tensor(ctx, call, keepdims):
    """The reduced element count as a tensor (for symbolic shapes): the sum of ones."""
    x = call.args[0]
    return ctx.emit(sum(ones_like(x), _axes(call), keepdims=keepdims))


@register_gradient("relax.sum")
def _sum_grad(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    return [broadcast_like(_restore_dims(orig_call, output_grad), x)]


@register_gradient("relax.mean")
def _mean_grad(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    count = _count(orig_call)
    if count is not None:
        scaled = divide(output_grad, const(float(count), x.ty.dtype))
    else:
        scaled = divide(output_grad, _count_tensor(ctx, orig_call, orig_call.attrs.keepdims))
    return [broadcast_like(_restore_dims(orig_call, scaled), x)]


@register_gradient("relax.variance")
def _variance_grad(orig_var, orig_call, output_grad, ctx):
    # d var / dx = 2 / N * x - 2 / N^2 * sum(x)
    x = orig_call.args[0]
    axis = _axes(orig_call)
    total = sum(x, axis, keepdims=True)
    count = _count(orig_call)
    if count is not None:
        n = float(count)
        inner = subtract(multiply(scalar(2.0 / n, x), x), multiply(scalar(2.0 / (n * n), x), total))
    else:
        n = _count_tensor(ctx, orig_call, True)
        two_over_n = ctx.emit(divide(scalar(2.0, x), n))
        inner = subtract(multiply(two_over_n, x), multiply(divide(two_over_n, n), total))
    return [multiply(_restore_dims(orig_call, output_grad), inner)]


# --- beyond TVM 0.27's list --------------------------------------------------------------------


@register_gradient("relax.std")
def _std_grad(orig_var, orig_call, output_grad, ctx):
    # d std / dx = (x - mean) / (N * std)
    x = orig_call.args[0]
    count = _count(orig_call)
    n = scalar(float(count), x) if count is not None else _count_tensor(ctx, orig_call, True)
    axis = _axes(orig_call)
    centered = subtract(x, mean(x, axis, keepdims=True))
    denom = multiply(n, _restore_dims(orig_call, orig_var))
    return [multiply(_restore_dims(orig_call, output_grad), divide(centered, denom))]


def _extremum_grad(orig_var, orig_call, output_grad, ctx):
    # The gradient goes to every element equal to the extremum (ties share it fully).
    x = orig_call.args[0]
    shape = shape_of(x)
    value = broadcast_to(_restore_dims(orig_call, orig_var), shape)
    grad = broadcast_to(_restore_dims(orig_call, output_grad), shape)
    return [where(equal(x, value), grad, scalar(0.0, x))]


register_gradient("relax.max", _extremum_grad)
register_gradient("relax.min", _extremum_grad)


@register_gradient("relax.prod")
def _prod_grad(orig_var, orig_call, output_grad, ctx):
    # d prod / dx_i = prod / x_i (inputs must be nonzero)
    x = orig_call.args[0]
    shape = shape_of(x)
    value = broadcast_to(_restore_dims(orig_call, orig_var), shape)
    grad = broadcast_to(_restore_dims(orig_call, output_grad), shape)
    return [divide(multiply(grad, value), x)]


def _scan_axis(call):
    axis = call.attrs.axis
    return None if axis is None else int(axis)


@register_gradient("relax.cumsum")
def _cumsum_grad(orig_var, orig_call, output_grad, ctx):
    # Reversed cumsum along the axis: sum(g) - cumsum(g) (+ g when inclusive).
    x = orig_call.args[0]
    axis = _scan_axis(orig_call)
    grad = output_grad
    scan_axis = 0 if axis is None else axis
    total = sum(grad, [scan_axis], keepdims=True)
    result = subtract(total, cumsum(grad, scan_axis))
    if not orig_call.attrs.exclusive:
        from ..binary import add

        result = add(result, grad)
    if axis is None:
        result = reshape(result, shape_of(x))
    return [result]


@register_gradient("relax.cumprod")
def _cumprod_grad(orig_var, orig_call, output_grad, ctx):
    # y_j = prod_{i<=j} x_i (i<j when exclusive): dL/dx_i = sum_{j>=i} g_j y_j / x_i (j>i when
    # exclusive), a reversed cumulative sum; the inputs must be nonzero.
    x = orig_call.args[0]
    exclusive = bool(orig_call.attrs.exclusive)
    axis = _scan_axis(orig_call)
    scan_axis = 0 if axis is None else axis
    weighted = multiply(output_grad, orig_var)
    reversed_sum = flip(
        cumsum(flip(weighted, scan_axis), scan_axis, exclusive=exclusive), scan_axis
    )
    if axis is None:
        reversed_sum = reshape(reversed_sum, shape_of(x))
    return [divide(reversed_sum, x)]
