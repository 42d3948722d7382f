"""``FPrimalGradient`` rules of the search family.

``topk`` routes the gradient of its values back to the positions they were taken from.
``sort`` keeps no rule, as in TVM 0.27 (it is the example of spec F.2's missing-rule error);
argmax, argmin and argsort have integer outputs.
"""

from __future__ import annotations

from ...expr import TupleGetItem
from ...ty import TupleType
from ..create import zeros_like
from ..datatype import astype
from ..grad.grad import no_grad_all, register_gradient
from ..manipulate import scatter_elements
from ..search import topk


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
