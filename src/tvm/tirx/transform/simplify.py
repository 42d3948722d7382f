"""``StmtSimplify``: simplify every expression with ``tvm.arith.Analyzer``.

Loop variables are bound to their ranges, so index arithmetic such as
``(i * 8 + j) // 8`` with ``0 <= j < 8`` folds to ``i``. Branches whose condition simplifies
to a constant are replaced by the taken side; loops of extent 0 vanish, loops of extent 1
become a binding of the loop variable.

Before::

    for i in range(4):
        for j in range(1):
            if i < 8:
                B[i * 1 + j] = A[i + 0]

After::

    for i in range(4):
        B[i] = A[i]
"""

from __future__ import annotations

from ...arith.analyzer import Analyzer
from ...arith.canonical import Simplifier
from ...ir.expr import PrimExpr, Range
from ...ir.transform import PassInfo
from ..expr import IntImm
from ..function import PrimFunc
from ..stmt import Evaluate, For, IfThenElse
from ..stmt_functor import StmtExprMutator, substitute
from .common import PrimFuncPass

__all__ = ["Simplify", "StmtSimplify", "simplify_prim_func"]


class _Simplifier(StmtExprMutator):
    def __init__(self):
        super().__init__()
        self.analyzer = Analyzer()
        # One canonical simplifier serves every expression until the analyzer learns something
        # new (a loop's range): it memoizes sub-expression results by node (keeping the nodes
        # alive), so a subtree shared by many statements (unrolled copies of a body share
        # their loop-invariant parts) is simplified once. Same results as one simplifier per
        # expression, which is what ``Analyzer.simplify(expr, steps=1)`` makes.
        self._canonical = None

    def visit_expr(self, expr):
        if not isinstance(expr, PrimExpr) or expr.dtype == "handle":
            return expr
        # The analyzer simplifies sub-expressions itself (loads' indices, call arguments), so
        # the whole expression is simplified once; visiting the children first would simplify
        # every sub-expression again at each level (quadratic in the nesting depth).
        try:
            # One round: the pipeline runs this pass twice anyway; a second round per
            # expression (Analyzer.simplify's default) changed none of the LLVM IR of the
            # training-step builds and cost ~40% of the pass.
            canonical = self._canonical
            if canonical is None:
                canonical = self._canonical = Simplifier(self.analyzer, keep_same=True)
            return canonical.simplify(expr)
        except (TypeError, ValueError):
            pass  # the simplifier does not handle this expression kind: do its children
        expr = super().visit_expr(expr)
        try:
            return self.analyzer.simplify(expr)
        except (TypeError, ValueError):
            return expr

    def visit_for_(self, op: For):
        lo = self.visit_expr(op.min)
        extent = self.visit_expr(op.extent)
        if isinstance(extent, IntImm) and extent.value <= 0:
            return Evaluate(0)
        if isinstance(extent, IntImm) and extent.value == 1 and not op.annotations:
            # A one-iteration loop: the loop variable is its min.
            return self.visit_stmt(substitute(op.body, {op.loop_var: lo}))
        self.analyzer.bind(op.loop_var, Range.from_min_extent(lo, extent), allow_override=True)
        self._canonical = None  # results may differ with the loop variable's new range
        body = self.visit_stmt(op.body)
        return op.replace(min=lo, extent=extent, body=body)

    def visit_if_then_else_(self, op: IfThenElse):
        cond = self.visit_expr(op.condition)
        if isinstance(cond, IntImm):
            if cond.value:
                return self.visit_stmt(op.then_case)
            return Evaluate(0) if op.else_case is None else self.visit_stmt(op.else_case)
        return super().visit_if_then_else_(op)


def simplify_prim_func(func: PrimFunc) -> PrimFunc:
    """Simplify one function's body (see the module docstring)."""
    body = _Simplifier()(func.body)
    if body is func.body:
        return func  # nothing simplified: keep the very same function object
    # As in TVM, "unchanged" means the mutator returned the same body object: the simplifier
    # keeps unchanged nodes (keep_same), so a structural comparison of the whole body would
    # mostly just walk up to a real change (~3 ms of the pipeline on the cnn step).
    return func.with_body(body)


def StmtSimplify():
    """The pass object: ``tvm.tirx.transform.StmtSimplify()(mod)``."""
    return PrimFuncPass(lambda f, m, c: simplify_prim_func(f), PassInfo(0, "tirx.StmtSimplify"))


#: TVM's older spelling.
Simplify = StmtSimplify
