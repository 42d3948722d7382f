"""``FPrimalGradient`` rules of the binary family (add, multiply, power, comparisons, ...)."""

from __future__ import annotations

from ..binary import (
    add,
    divide,
    greater_equal,
    less,
    multiply,
    power,
    subtract,
)
from ..grad.grad import fit_shape, no_grad_all, register_gradient, scalar
from ..ternary import where
from ..unary import exp, floor, log, negative, trunc


@register_gradient("relax.add")
def _add_grad(orig_var, orig_call, output_grad, ctx):
    x, y = orig_call.args
    return [fit_shape(ctx, output_grad, x), fit_shape(ctx, output_grad, y)]


@register_gradient("relax.subtract")
def _subtract_grad(orig_var, orig_call, output_grad, ctx):
    x, y = orig_call.args
    return [fit_shape(ctx, output_grad, x), fit_shape(ctx, negative(output_grad), y)]


@register_gradient("relax.multiply")
def _multiply_grad(orig_var, orig_call, output_grad, ctx):
    x, y = orig_call.args
    return [
        fit_shape(ctx, multiply(output_grad, y), x),
        fit_shape(ctx, multiply(output_grad, x), y),
    ]


@register_gradient("relax.divide")
def _divide_grad(orig_var, orig_call, output_grad, ctx):
    # z = x / y: dz/dx = 1 / y, dz/dy = -z / y.
    x, y = orig_call.args
    return [
        fit_shape(ctx, divide(output_grad, y), x),
        fit_shape(ctx, divide(multiply(negative(output_grad), orig_var), y), y),
    ]


@register_gradient("relax.power")
def _power_grad(orig_var, orig_call, output_grad, ctx):
    # z = x ** y: dz/dx = y * x ** (y - 1), dz/dy = z * log(x).
    x, y = orig_call.args
    one = scalar(1.0, y)
    return [
        fit_shape(ctx, multiply(multiply(output_grad, y), power(x, subtract(y, one))), x),
        fit_shape(ctx, multiply(multiply(output_grad, orig_var), log(x)), y),
    ]


@register_gradient("relax.maximum")
def _maximum_grad(orig_var, orig_call, output_grad, ctx):
    # Ties send the gradient to x.
    x, y = orig_call.args
    zero = scalar(0.0, orig_var)
    return [
        fit_shape(ctx, where(less(x, y), zero, output_grad), x),
        fit_shape(ctx, where(greater_equal(x, y), zero, output_grad), y),
    ]


@register_gradient("relax.minimum")
def _minimum_grad(orig_var, orig_call, output_grad, ctx):
    x, y = orig_call.args
    zero = scalar(0.0, orig_var)
    return [
        fit_shape(ctx, where(greater_equal(x, y), zero, output_grad), x),
        fit_shape(ctx, where(less(x, y), zero, output_grad), y),
    ]


def _no_grad_rule(orig_var, orig_call, output_grad, ctx):
    return no_grad_all(orig_call)


for _name in ("equal", "greater", "greater_equal", "less", "less_equal", "not_equal"):
    register_gradient(f"relax.{_name}", _no_grad_rule)


# --- beyond TVM 0.27's list --------------------------------------------------------------------


def _remainder_grad(rounding):
    # r = x - round(x / y) * y with a piecewise-constant rounding: dr/dx = 1, dr/dy = -round(x/y)
    def rule(orig_var, orig_call, output_grad, ctx):
        x, y = orig_call.args
        quotient = rounding(divide(x, y))
        return [
            fit_shape(ctx, output_grad, x),
            fit_shape(ctx, negative(multiply(output_grad, quotient)), y),
        ]

    return rule


register_gradient("relax.floor_mod", _remainder_grad(floor))
register_gradient("relax.mod", _remainder_grad(trunc))
# floor_divide and the logical ops are piecewise constant: no gradient flows through them.
for _name in ("floor_divide", "logical_and", "logical_or", "logical_xor"):
    register_gradient(f"relax.{_name}", _no_grad_rule)


@register_gradient("relax.atan2")
def _atan2_grad(orig_var, orig_call, output_grad, ctx):
    # z = atan2(y, x): dz/dy = x / (x^2 + y^2), dz/dx = -y / (x^2 + y^2).
    y, x = orig_call.args
    norm = add(multiply(x, x), multiply(y, y))
    return [
        fit_shape(ctx, divide(multiply(output_grad, x), norm), y),
        fit_shape(ctx, divide(negative(multiply(output_grad, y)), norm), x),
    ]


@register_gradient("relax.log_add_exp")
def _log_add_exp_grad(orig_var, orig_call, output_grad, ctx):
    # z = log(exp(a) + exp(b)): dz/da = exp(a - z), dz/db = exp(b - z).
    a, b = orig_call.args
    return [
        fit_shape(ctx, multiply(output_grad, exp(subtract(a, orig_var))), a),
        fit_shape(ctx, multiply(output_grad, exp(subtract(b, orig_var))), b),
    ]
