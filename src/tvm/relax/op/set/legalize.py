"""Legalization of ``unique``: a call of the runtime builtin ``relax.run.unique`` (its output
extents depend on the data, so there is no TIR kernel; TVM lowers it the same way)."""

from __future__ import annotations

from ...op.base import call_pure_packed
from ...transform.legalize_ops.common import register_legalize


@register_legalize("relax.unique")
def _unique(bb, call):
    return call_pure_packed("relax.run.unique", *call.args, ty_args=[call.ty])
_unique.legalizes_unknown_output_shape = True
