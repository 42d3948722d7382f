"""Legalization rules of the core shape ops declared in ``relax/op/base.py``.

``tensor_to_shape`` and ``shape_to_tensor`` move values between a 1-d int64 tensor and a
shape; they become pure calls of the VM runtime builtins of the same name, as in TVM 0.27.
"""

from __future__ import annotations

from ...op.base import call_pure_packed
from .common import register_legalize


@register_legalize("relax.tensor_to_shape")
def _tensor_to_shape(bb, call):
    return call_pure_packed("vm.builtin.tensor_to_shape", call.args[0], ty_args=call.ty)


@register_legalize("relax.shape_to_tensor")
def _shape_to_tensor(bb, call):
    return call_pure_packed("vm.builtin.shape_to_tensor", call.args[0], ty_args=call.ty)
