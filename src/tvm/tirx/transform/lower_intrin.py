"""``LowerIntrin``: replace math intrinsics by the target's implementation.

The rules of a target kind are the ``intrin_rules`` of its backend in the ``tvm.backend``
table (for ``llvm``: ``src/tvm/backend/llvm/intrin.py``). The pass rewrites every ``Call`` of
an op that has a rule for the function's target kind (attribute ``target``, else the host
kind ``llvm``), e.g. ``T.exp(x)`` -> ``T.call_llvm_pure_intrin("float32", "llvm.exp", x)`` and
``T.tanh(x)`` -> ``T.call_pure_extern("float32", "tanhf", x)``. An op the backend has no rule
for may still have one registered as the op attribute ``"<kind>.FLowerIntrinsic"`` (TVM's
way, also for kinds without a backend). Ops without any rule are kept (the code generator
reports them).
"""

from __future__ import annotations

from ...ir.op import Op
from ...ir.transform import PassInfo
from ...target import Target
from ..expr import Call
from ..function import PrimFunc
from ..stmt_functor import StmtExprMutator
from .common import PrimFuncPass

__all__ = ["LowerIntrin", "lower_intrin"]

#: The kind of a function without a ``target`` attribute (host code).
DEFAULT_KIND = "llvm"


def _target_kind(func: PrimFunc, default=DEFAULT_KIND) -> str:
    target = func.get_attr("target")
    if target is None:
        return default
    if not isinstance(target, Target):
        target = Target(target)  # a string or config dict set by hand
    return target.kind.name


def _backend_rules(kind: str):
    """The ``intrin_rules`` of the backend of ``kind``, or an empty dict when it has none."""
    # Lazy: the backend table sits above tirx (backends register into it; tirx only reads).
    from ...backend import find_backend

    backend = find_backend(kind)
    return backend.intrin_rules if backend is not None else {}


class _Lowerer(StmtExprMutator):
    def __init__(self, rules, attr_key):
        super().__init__()
        self.rules = rules
        self.attr_key = attr_key

    def visit_call_(self, op: Call):
        op = super().visit_call_(op)
        if not isinstance(op, Call) or not isinstance(op.op, Op):
            return op
        rule = self.rules.get(op.op.name)
        if rule is None:
            rule = op.op.get_attr(self.attr_key)
            if rule is None:
                return op
        lowered = rule(op)
        return self.visit_expr(lowered) if lowered is not op else op


def lower_intrin(func: PrimFunc, target_kind: str | None = None) -> PrimFunc:
    """Lower the intrinsics of one function for ``target_kind`` (default: its target's kind)."""
    kind = target_kind or _target_kind(func)
    body = _Lowerer(_backend_rules(kind), f"{kind}.FLowerIntrinsic")(func.body)
    return func if body is func.body else func.with_body(body)


def LowerIntrin():
    """The pass object: ``tvm.tirx.transform.LowerIntrin()(mod)``."""
    return PrimFuncPass(lambda f, m, c: lower_intrin(f), PassInfo(0, "tirx.LowerIntrin"))
