"""``StmtSimplify``: simplify every expression with ``tvm.arith.Analyzer``.

Loop variables are bound to their ranges, so index arithmetic such as
``(i * 8 + j) // 8`` with ``0 <= j < 8`` folds to ``i``. Branches whose condition simplifies
to a constant are replaced by the taken side; loops of extent 0 vanish, loops of extent 1
become a binding of the loop variable (a thread-bound loop of extent 1 stays, its variable's
uses fold to the min).

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
from ...ir.op import Op
from ...ir.transform import PassInfo
from ..expr import EQ, GE, LT, And, Call, FloorDiv, IntImm, Var
from ..function import PrimFunc
from ..op import CallEffectKind
from ..stmt import Bind, BufferLoad, Evaluate, For, ForKind, IfThenElse
from ..stmt_functor import StmtExprMutator, post_order_visit, substitute
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
            body = self.visit_stmt(substitute(op.body, {op.loop_var: lo}))
            if op.kind == ForKind.THREAD_BINDING:
                # A one-thread launch stays a launch (the host/device split needs it, as in
                # TVM); only the uses of its variable fold.
                return op.replace(min=lo, extent=extent, body=body)
            return body
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
        # The then-branch knows the condition (as TVM's simplifier does): variable bounds from
        # comparisons, ``x // c == k`` read as ``k * c <= x < (k + 1) * c``.
        self._canonical = None
        with self.analyzer.constraint_scope(_as_bounds(cond)):
            then_case = self.visit_stmt(op.then_case)
        self._canonical = None
        else_case = None if op.else_case is None else self.visit_stmt(op.else_case)
        if cond is op.condition and then_case is op.then_case and else_case is op.else_case:
            return op
        return op.replace(condition=cond, then_case=then_case, else_case=else_case)

    def visit_bind_(self, op: Bind):
        value = self.visit_expr(op.value)
        if (isinstance(value, PrimExpr) and isinstance(op.var, Var)
                and value.dtype == op.var.dtype and _pure(value)):
            # Later expressions see the value (TVM binds pure Bind values in its analyzer).
            self.analyzer.bind(op.var, value, allow_override=True)
            self._canonical = None
        return op if value is op.value else op.replace(value=value)


def _pure(expr) -> bool:
    """No loads and no calls with side effects (TVM's ``SideEffect(e) <= kPure``)."""
    found = []

    def visit(node):
        if isinstance(node, BufferLoad):
            found.append(node)
        elif isinstance(node, Call):
            effect = node.op.get_attr("TCallEffectKind") if isinstance(node.op, Op) else None
            if effect is None or effect > CallEffectKind.Pure:
                found.append(node)

    post_order_visit(expr, visit)
    return not found


def _as_bounds(cond):
    """``cond`` with each conjunct ``x // c == k`` (``c > 0`` constant) rewritten as
    ``k * c <= x and x < (k + 1) * c``, which the analyzer's constraints understand."""
    if isinstance(cond, And):
        return And(_as_bounds(cond.a), _as_bounds(cond.b))
    if (isinstance(cond, EQ) and isinstance(cond.a, FloorDiv) and isinstance(cond.a.a, Var)
            and isinstance(cond.a.b, IntImm) and cond.a.b.value > 0
            and isinstance(cond.b, IntImm)):
        x, c, k = cond.a.a, cond.a.b.value, cond.b.value
        return And(GE(x, IntImm(x.dtype, k * c)), LT(x, IntImm(x.dtype, (k + 1) * c)))
    return cond


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
