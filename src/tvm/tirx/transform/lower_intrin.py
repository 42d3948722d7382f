"""``LowerIntrin``: replace math intrinsics by the target's implementation.

Each target kind registers rules as the op attribute ``"<kind>.FLowerIntrinsic"`` (for
``llvm``: ``src/tvm/backend/llvm/intrin.py``). The pass rewrites every ``Call`` of an op that
has a rule for the function's target (attribute ``target``, else ``llvm``), e.g.
``T.exp(x)`` -> ``T.call_llvm_pure_intrin("float32", "llvm.exp", x)`` and
``T.tanh(x)`` -> ``T.call_pure_extern("float32", "tanhf", x)``. Ops without a rule are kept
(the code generator reports them).
"""

from __future__ import annotations

from ...ir.op import Op
from ...ir.transform import PassInfo
from ..expr import Call
from ..function import PrimFunc
from ..stmt_functor import StmtExprMutator
from .common import PrimFuncPass

__all__ = ["LowerIntrin", "lower_intrin"]


def _target_kind(func: PrimFunc, default="llvm") -> str:
    target = func.get_attr("target")
    if target is None:
        return default
    kind = getattr(target, "kind", None)
    name = getattr(kind, "name", kind)
    if name is None and isinstance(target, str):
        name = target.split()[0]
    return str(name or default)


class _Lowerer(StmtExprMutator):
    def __init__(self, attr_key):
        super().__init__()
        self.attr_key = attr_key

    def visit_call_(self, op: Call):
        op = super().visit_call_(op)
        if not isinstance(op, Call) or not isinstance(op.op, Op):
            return op
        rule = op.op.get_attr(self.attr_key)
        if rule is None:
            return op
        lowered = rule(op)
        return self.visit_expr(lowered) if lowered is not op else op


def lower_intrin(func: PrimFunc, target_kind: str | None = None) -> PrimFunc:
    """Lower the intrinsics of one function for ``target_kind`` (default: its target)."""
    kind = target_kind or _target_kind(func)
    body = _Lowerer(f"{kind}.FLowerIntrinsic")(func.body)
    return func if body is func.body else func.with_body(body)


def LowerIntrin():
    """The pass object: ``tvm.tirx.transform.LowerIntrin()(mod)``."""
    return PrimFuncPass(lambda f, m, c: lower_intrin(f), PassInfo(0, "tirx.LowerIntrin"))
