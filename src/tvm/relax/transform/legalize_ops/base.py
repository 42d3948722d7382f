"""Legalization rules of the core shape ops declared in ``relax/op/base.py``.

``tensor_to_shape`` and ``shape_to_tensor`` move values between a 1-d int64 tensor and a
shape; ``tensor_to_shape`` is a pure call of the VM builtin; ``shape_to_tensor`` a small kernel, as
in TVM 0.27.
"""

from __future__ import annotations

from .... import te, tirx
from ...expr import ShapeExpr
from ...op.base import call_pure_packed
from .common import register_legalize


@register_legalize("relax.tensor_to_shape")
def _tensor_to_shape(bb, call):
    return call_pure_packed("vm.builtin.tensor_to_shape", call.args[0], ty_args=call.ty)


@register_legalize("relax.shape_to_tensor")
def _shape_to_tensor(bb, call):
    """A ``shape_to_tensor`` kernel when the shape's values are known (symbolic ones passed as
    scalar parameters), else the runtime builtin ``relax.run.shape_to_tensor`` (TVM's)."""
    shape = call.args[0]
    values = shape.values if isinstance(shape, ShapeExpr) else getattr(shape.ty, "values", None)
    if values is None:
        return call_pure_packed("relax.run.shape_to_tensor", shape, ty_args=call.ty)
    values = list(values)
    symbolic = [v for v in values if not isinstance(v, tirx.IntImm)]

    def shape_to_tensor(*sym):
        sym = list(sym)
        resolved = [v if isinstance(v, tirx.IntImm) else sym.pop(0) for v in values]

        def element(i):
            out = tirx.const(0, "int64")
            for k in range(len(resolved) - 1, -1, -1):
                out = tirx.if_then_else(i == tirx.const(k, "int64"),
                                        tirx.Cast("int64", resolved[k]), out)
            return out

        return te.compute((tirx.const(len(resolved), "int64"),), element,
                          name="shape_to_tensor")

    return bb.call_te(shape_to_tensor, *symbolic, primfunc_name_hint="shape_to_tensor")
