"""``FPrimalGradient`` rules of the unary family.

The first nine (abs ... tanh) emit exactly the expressions of Apache TVM 0.27; the others
follow the usual derivatives. Piecewise-constant ops (ceil, floor, round, sign, trunc) have a
zero gradient almost everywhere: they stop gradients (``no_grad``).
"""

from __future__ import annotations

import math

from ..binary import add, divide, greater_equal, less, less_equal, logical_and, multiply, subtract
from ..grad.grad import no_grad_all, register_gradient, scalar
from ..ternary import where
from ..unary import cos, cosh, exp, negative, sin, sinh, sqrt


def _x(call):
    return call.args[0]


@register_gradient("relax.abs")
def _abs_grad(orig_var, orig_call, output_grad, ctx):
    x = _x(orig_call)
    sign = where(less(x, scalar(0.0, x)), negative(scalar(1.0, x)), scalar(1.0, x))
    return [multiply(output_grad, sign)]


@register_gradient("relax.cos")
def _cos_grad(orig_var, orig_call, output_grad, ctx):
    return [multiply(negative(output_grad), sin(_x(orig_call)))]


@register_gradient("relax.exp")
def _exp_grad(orig_var, orig_call, output_grad, ctx):
    return [multiply(output_grad, orig_var)]


@register_gradient("relax.log")
def _log_grad(orig_var, orig_call, output_grad, ctx):
    return [divide(output_grad, _x(orig_call))]


@register_gradient("relax.negative")
def _negative_grad(orig_var, orig_call, output_grad, ctx):
    return [negative(output_grad)]


@register_gradient("relax.sigmoid")
def _sigmoid_grad(orig_var, orig_call, output_grad, ctx):
    y = orig_var
    return [multiply(multiply(output_grad, y), subtract(scalar(1.0, y), y))]


@register_gradient("relax.sin")
def _sin_grad(orig_var, orig_call, output_grad, ctx):
    return [multiply(output_grad, cos(_x(orig_call)))]


@register_gradient("relax.sqrt")
def _sqrt_grad(orig_var, orig_call, output_grad, ctx):
    return [divide(multiply(scalar(0.5, orig_var), output_grad), orig_var)]


@register_gradient("relax.tanh")
def _tanh_grad(orig_var, orig_call, output_grad, ctx):
    y = orig_var
    return [multiply(output_grad, subtract(scalar(1.0, y), multiply(y, y)))]


# --- beyond TVM 0.27's list --------------------------------------------------------------------


def _one_minus_x2(x):
    return subtract(scalar(1.0, x), multiply(x, x))


@register_gradient("relax.acos")
def _acos_grad(orig_var, orig_call, output_grad, ctx):
    x = _x(orig_call)
    return [negative(divide(output_grad, sqrt(_one_minus_x2(x))))]


@register_gradient("relax.asin")
def _asin_grad(orig_var, orig_call, output_grad, ctx):
    return [divide(output_grad, sqrt(_one_minus_x2(_x(orig_call))))]


@register_gradient("relax.acosh")
def _acosh_grad(orig_var, orig_call, output_grad, ctx):
    x = _x(orig_call)
    return [divide(output_grad, sqrt(subtract(multiply(x, x), scalar(1.0, x))))]


@register_gradient("relax.asinh")
def _asinh_grad(orig_var, orig_call, output_grad, ctx):
    x = _x(orig_call)
    return [divide(output_grad, sqrt(add(multiply(x, x), scalar(1.0, x))))]


@register_gradient("relax.atan")
def _atan_grad(orig_var, orig_call, output_grad, ctx):
    x = _x(orig_call)
    return [divide(output_grad, add(scalar(1.0, x), multiply(x, x)))]


@register_gradient("relax.atanh")
def _atanh_grad(orig_var, orig_call, output_grad, ctx):
    return [divide(output_grad, _one_minus_x2(_x(orig_call)))]


@register_gradient("relax.cosh")
def _cosh_grad(orig_var, orig_call, output_grad, ctx):
    return [multiply(output_grad, sinh(_x(orig_call)))]


@register_gradient("relax.sinh")
def _sinh_grad(orig_var, orig_call, output_grad, ctx):
    return [multiply(output_grad, cosh(_x(orig_call)))]


@register_gradient("relax.tan")
def _tan_grad(orig_var, orig_call, output_grad, ctx):
    y = orig_var
    return [multiply(output_grad, add(scalar(1.0, y), multiply(y, y)))]


@register_gradient("relax.erf")
def _erf_grad(orig_var, orig_call, output_grad, ctx):
    # d/dx erf(x) = 2 / sqrt(pi) * exp(-x^2)
    x = _x(orig_call)
    density = multiply(scalar(2.0 / math.sqrt(math.pi), x), exp(negative(multiply(x, x))))
    return [multiply(output_grad, density)]


@register_gradient("relax.rsqrt")
def _rsqrt_grad(orig_var, orig_call, output_grad, ctx):
    # y = x ** -0.5: dy/dx = -0.5 * y / x
    x = _x(orig_call)
    return [divide(multiply(scalar(-0.5, x), multiply(output_grad, orig_var)), x)]


@register_gradient("relax.square")
def _square_grad(orig_var, orig_call, output_grad, ctx):
    x = _x(orig_call)
    return [multiply(multiply(scalar(2.0, x), output_grad), x)]


@register_gradient("relax.clip")
def _clip_grad(orig_var, orig_call, output_grad, ctx):
    # The gradient passes where min <= x <= max; the bounds are PrimValues (no gradient).
    x, low, high = orig_call.args
    from ...expr import PrimValue

    def bound(value):
        inner = value.value if isinstance(value, PrimValue) else value
        return scalar(float(getattr(inner, "value", inner)), x)

    inside = logical_and(greater_equal(x, bound(low)), less_equal(x, bound(high)))
    grads = no_grad_all(orig_call)
    grads[0] = where(inside, output_grad, scalar(0.0, x))
    return grads


def _stop(orig_var, orig_call, output_grad, ctx):
    return no_grad_all(orig_call)


# isfinite/isinf/isnan have boolean results: piecewise constant in x.
for _name in ("ceil", "floor", "round", "sign", "trunc", "logical_not", "isfinite", "isinf",
              "isnan"):
    register_gradient(f"relax.{_name}", _stop)
