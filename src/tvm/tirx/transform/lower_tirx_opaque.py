"""``LowerTIRxOpaque``: the loop forms a TIRx kernel may still hold become plain TIR.

As Apache TVM 0.27's pass of that name, after ``LowerTIRx``:

* a thread-binding loop (``for tx in T.thread_binding(128, "threadIdx.x")``) becomes
  ``T.launch_thread`` (an ``AttrStmt`` ``thread_extent``, ``virtual_thread`` for ``vthread*``);
* a unit loop (extent 1, no annotations) is removed and its variable replaced by the loop's
  start (cast to the variable's dtype);
* ``pragma_*`` loop annotations (except ``pragma_unroll``, kept on the loop) become
  ``AttrStmt``s about the loop variable around the loop, in key order; other annotations stay.
"""

from __future__ import annotations

from ...ir.expr import Range
from ...ir.transform import PassInfo
from ..expr import Cast, IntImm, StringImm
from ..stmt import AttrStmt, For, ForKind, IterVar
from ..stmt_functor import StmtExprMutator
from .common import PrimFuncPass

__all__ = ["LowerTIRxOpaque", "lower_tirx_opaque"]


class _Opaque(StmtExprMutator):
    def __init__(self):
        super().__init__()
        self.unit: dict = {}  # id(loop var) -> start value

    def visit_var_(self, op):
        value = self.unit.get(id(op))
        if value is None:
            return op
        return value if value.dtype == op.dtype else Cast(op.dtype, value)

    def visit_for_(self, op: For):
        lo = self.visit_expr(op.min)
        extent = self.visit_expr(op.extent)
        annotations = dict(op.annotations or {})
        unit = isinstance(extent, IntImm) and extent.value == 1 and not annotations
        if unit and op.kind != ForKind.THREAD_BINDING:
            self.unit[id(op.loop_var)] = lo
        body = self.visit_stmt(op.body)
        pragmas = sorted((k, v) for k, v in annotations.items()
                         if k.startswith("pragma_") and k != "pragma_unroll")
        kept = {k: v for k, v in annotations.items() if k not in dict(pragmas)}
        if op.kind == ForKind.THREAD_BINDING:
            tag = op.thread_binding.thread_tag
            iv = IterVar(Range.from_min_extent(lo, extent), op.loop_var, IterVar.ThreadIndex,
                         tag)
            key = "virtual_thread" if tag.startswith("vthread") else "thread_extent"
            out = AttrStmt(iv, key, extent, body)
        elif unit:
            return body
        elif not pragmas and lo is op.min and extent is op.extent and body is op.body:
            return op
        else:
            out = For(op.loop_var, lo, extent, op.kind, body, None, kept or None, op.step)
        for key, value in reversed(pragmas):
            if isinstance(value, str):
                value = StringImm(value)
            elif isinstance(value, (bool, int)):
                value = IntImm("int32", int(value))
            out = AttrStmt(op.loop_var, key, value, out)
        return out


def lower_tirx_opaque(func):
    """Apply the rewrite to one PrimFunc (see the module docstring)."""
    body = _Opaque()(func.body)
    return func if body is func.body else func.with_body(body)


def LowerTIRxOpaque():
    """The pass object: ``tvm.tirx.transform.LowerTIRxOpaque()(mod)``."""
    return PrimFuncPass(lambda f, m, c: lower_tirx_opaque(f), PassInfo(0, "tirx.LowerTIRxOpaque"))
