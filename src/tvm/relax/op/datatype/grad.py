"""``FPrimalGradient`` rules of the datatype family: casts cast the gradient back."""

from __future__ import annotations

from ..datatype import astype
from ..grad.grad import register_gradient


def _cast_back(orig_var, orig_call, output_grad, ctx):
    return [astype(output_grad, orig_call.args[0].ty.dtype)]


register_gradient("relax.astype", _cast_back)
register_gradient("relax.wrap_param", _cast_back)
