"""``FPrimalGradient`` rules of the search family.

``topk`` and ``sort`` route the gradient of their values back to the positions they were taken
from (TVM 0.27 has no ``sort`` rule; spec F.2 used it as its missing-rule example). argmax,
argmin and argsort have integer outputs: piecewise constant, so no gradient flows (a rule is
still registered, for when an adjoint reaches them through ``astype``).
"""

from __future__ import annotations

from ...expr import TupleGetItem
from ...ty import TupleType
from ..create import zeros_like
from ..datatype import astype
from ..grad.grad import no_grad_all, register_gradient
from ..manipulate import scatter_elements
from ..search import argsort, topk


@register_gradient("relax.topk")
def _topk_grad(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    attrs = orig_call.attrs
    if attrs.ret_type == "indices":
        return no_grad_all(orig_call)
    if isinstance(orig_var.ty, TupleType):
        values_grad, indices = TupleGetItem(output_grad, 0), TupleGetItem(orig_var, 1)
    else:
        # Only the values were returned: recompute the positions they came from.
        positions = topk(x, attrs.k, attrs.axis, "indices", attrs.largest, "int64")
        values_grad, indices = output_grad, positions
    indices = astype(indices, "int64")
    axis = int(attrs.axis)
    return [scatter_elements(zeros_like(x), indices, values_grad, axis, "add")]


@register_gradient("relax.sort")
def _sort_grad(orig_var, orig_call, output_grad, ctx):
    x = orig_call.args[0]
    attrs = orig_call.attrs
    axis = int(attrs.axis)
    # The positions the sorted values came from; ties keep one order, as the forward does.
    positions = argsort(x, axis, bool(attrs.descending), "int64")
    return [scatter_elements(zeros_like(x), positions, output_grad, axis, "add")]


def _no_gradient(orig_var, orig_call, output_grad, ctx):
    return no_grad_all(orig_call)


for _name in ("relax.argmax", "relax.argmin", "relax.argsort"):
    register_gradient(_name, _no_gradient)
