"""``FPrimalGradient`` rules of the creation family: the ``*_like``/fill ops stop gradients;
``triu``/``tril`` mask the gradient the same way as the forward value."""

from __future__ import annotations

from ..create import tril, triu
from ..grad.grad import no_grad_all, register_gradient


def _stop(orig_var, orig_call, output_grad, ctx):
    return no_grad_all(orig_call)


for _name in ("zeros_like", "ones_like", "full_like", "zeros", "ones", "full", "arange", "eye"):
    register_gradient(f"relax.{_name}", _stop)


def _offset(call):
    k = call.args[1]
    value = getattr(k, "value", k)
    return int(getattr(value, "value", value))


@register_gradient("relax.triu")
def _triu_grad(orig_var, orig_call, output_grad, ctx):
    grads = no_grad_all(orig_call)
    grads[0] = triu(output_grad, _offset(orig_call))
    return grads


@register_gradient("relax.tril")
def _tril_grad(orig_var, orig_call, output_grad, ctx):
    grads = no_grad_all(orig_call)
    grads[0] = tril(output_grad, _offset(orig_call))
    return grads
