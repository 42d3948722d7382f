"""Small utility passes: ``Apply``, ``Filter``, ``RemoveNoOp``, ``SkipAssert``.

* ``Apply(ftransform)``: ``ftransform(func) -> func`` on every PrimFunc.
* ``Filter(fcond)``: keep only the PrimFuncs for which ``fcond(func)`` is true (other
  functions stay).
* ``RemoveNoOp()``: drop ``Evaluate`` of constants, loops and branches whose bodies do nothing
  (a loop of a body without effect or with an extent proven ``<= 0``, ``if c: pass``, an
  ``if`` whose condition is a constant), stores of a value read from the same element
  (``A[i] = A[j]`` where ``i == j`` is proven, using the loop ranges, the bound variables and
  the enclosing conditions), and flatten the sequences left behind. An empty ``then`` with a
  non-empty ``else`` becomes ``if not c: <else>``. The ``PassContext`` option
  ``"tirx.RemoveNoOp"`` is a dict: ``max_simplification_steps`` (int, 0 = no limit) bounds
  the rewrite steps of each proof; ``use_dataflow_analysis`` is accepted for compatibility
  and has no effect (as in TVM 0.27, writes overwritten later are kept). Unused ``Bind``
  statements and temporaries are kept (0.27 keeps them too).
* ``SkipAssert()``: remove every ``AssertStmt`` (run-time checks off).
"""

from __future__ import annotations

from ...arith.analyzer import Analyzer
from ...ir.expr import Range
from ...ir.module import IRModule
from ...ir.transform import ModulePass, PassContext, PassInfo, register_pass_config
from ..expr import EQ, NE, Call, ConstExpr, IntImm, Not
from ..function import PrimFunc
from ..stmt import (
    AssertStmt,
    Bind,
    BufferLoad,
    BufferStore,
    Evaluate,
    For,
    IfThenElse,
    SeqStmt,
    While,
)
from ..stmt_functor import StmtMutator, post_order_visit
from .common import PrimFuncPass

__all__ = ["Apply", "Filter", "RemoveNoOp", "SkipAssert"]


def Apply(ftransform):
    """Apply ``ftransform(func) -> PrimFunc`` to every PrimFunc."""
    return PrimFuncPass(lambda f, m, c: ftransform(f), PassInfo(0, "tirx.Apply"))


def Filter(fcond):
    """Keep the PrimFuncs for which ``fcond(func)`` holds; other functions are kept as well."""

    def run(mod, ctx):
        funcs = {gv: f for gv, f in mod.functions.items()
                 if not isinstance(f, PrimFunc) or fcond(f)}
        if len(funcs) == len(mod.functions):
            return mod
        return IRModule(funcs, attrs=mod.attrs, global_infos=mod.global_infos)

    return ModulePass(run, PassInfo(0, "tirx.Filter"))


def _is_no_op(stmt) -> bool:
    """``T.evaluate`` of an expression without calls (a constant, a variable, arithmetic)."""
    if not isinstance(stmt, Evaluate):
        return False
    if isinstance(stmt.value, ConstExpr):
        return True
    calls = []
    post_order_visit(stmt.value, lambda node: calls.append(node) if isinstance(node, Call) else None)
    return not calls


#: ``{"max_simplification_steps": int, "use_dataflow_analysis": bool}`` (see the docstring).
register_pass_config("tirx.RemoveNoOp", dict)
_REMOVE_NO_OP_KEYS = {"max_simplification_steps": int, "use_dataflow_analysis": bool}


def _remove_no_op_options() -> dict:
    options = dict(PassContext.current().config.get("tirx.RemoveNoOp", {}))
    for key, value in options.items():
        expected = _REMOVE_NO_OP_KEYS.get(key)
        if expected is None:
            raise ValueError(
                f"tirx.RemoveNoOp: unknown option {key!r}; options are "
                f"{sorted(_REMOVE_NO_OP_KEYS)}"
            )
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise TypeError(
                f"tirx.RemoveNoOp option {key!r} expects a {expected.__name__}, got {value!r}"
            )
    return options


def _negate(cond):
    """``not cond``, written as the comparison it is for ``!=``/``==``."""
    if isinstance(cond, NE):
        return EQ(cond.a, cond.b)
    if isinstance(cond, EQ):
        return NE(cond.a, cond.b)
    if isinstance(cond, Not):
        return cond.a
    return Not(cond)


class _NoOpRemover(StmtMutator):
    def __init__(self, steps: int = 0):
        super().__init__()
        self.analyzer = Analyzer()
        self.steps = steps if steps > 0 else 2

    def visit_evaluate_(self, op: Evaluate):
        return op

    def visit_bind_(self, op: Bind):
        # Later stores may index through the variable: the analyzer substitutes its value.
        self.analyzer.bind(op.var, op.value, allow_override=True)
        return op

    def visit_seq_stmt_(self, op: SeqStmt):
        op = super().visit_seq_stmt_(op)
        if not isinstance(op, SeqStmt):
            return op
        kept = [s for s in op.seq if not _is_no_op(s)]
        if len(kept) == len(op.seq):
            return op
        return SeqStmt.flatten(kept)

    def visit_for_(self, op: For):
        extent = self.analyzer.simplify(op.extent)
        if self.analyzer.can_prove(extent <= 0):
            return Evaluate(0)
        if self.analyzer.can_prove(extent > 0):
            self.analyzer.bind(op.loop_var, Range.from_min_extent(op.min, extent), allow_override=True)
        op = super().visit_for_(op)
        return Evaluate(0) if _is_no_op(op.body) else op

    def visit_while_(self, op: While):
        return super().visit_while_(op)  # a loop that only tests its condition may not end

    def visit_buffer_store_(self, op: BufferStore):
        value = op.value
        if (isinstance(value, BufferLoad) and value.buffer.same_as(op.buffer)
                and len(value.indices) == len(op.indices)
                and getattr(value, "predicate", None) is None
                and getattr(op, "predicate", None) is None
                and all(self._equal(a, b) for a, b in zip(op.indices, value.indices))):
            return Evaluate(0)
        return super().visit_buffer_store_(op)

    def _equal(self, a, b) -> bool:
        diff = self.analyzer.simplify(a - b, steps=self.steps)
        if isinstance(diff, IntImm):
            return diff.value == 0
        bound = self.analyzer.const_int_bound(diff)  # the enclosing conditions' bounds
        return bound.min_value == 0 and bound.max_value == 0

    def visit_if_then_else_(self, op: IfThenElse):
        cond = self.analyzer.simplify(op.condition)
        if isinstance(cond, IntImm):
            branch = op.then_case if cond.value else op.else_case
            return Evaluate(0) if branch is None else self.visit_stmt(branch)
        with self.analyzer.constraint_scope(op.condition):
            then_case = self.visit_stmt(op.then_case)
        else_case = None
        if op.else_case is not None:
            with self.analyzer.constraint_scope(_negate(op.condition)):
                else_case = self.visit_stmt(op.else_case)
        then_empty = _is_no_op(then_case)
        else_empty = else_case is None or _is_no_op(else_case)
        if then_empty and else_empty:
            return Evaluate(0)
        if then_empty:
            return IfThenElse(Not(op.condition), else_case, None, span=op.span)
        if else_empty:
            else_case = None
        if then_case is op.then_case and else_case is op.else_case:
            return op
        return op.replace(then_case=then_case, else_case=else_case)


class _AssertRemover(StmtMutator):
    def visit_assert_stmt_(self, op: AssertStmt):
        return Evaluate(0)

    def visit_seq_stmt_(self, op: SeqStmt):
        op = super().visit_seq_stmt_(op)
        if not isinstance(op, SeqStmt):
            return op
        kept = [s for s in op.seq if not _is_no_op(s)]
        return op if len(kept) == len(op.seq) else SeqStmt.flatten(kept)


def _body_pass(mutator_cls, name):
    def run(func, mod, ctx):
        body = mutator_cls()(func.body)
        return func if body is func.body else func.with_body(body)

    return PrimFuncPass(run, PassInfo(0, name))


def RemoveNoOp():
    """Remove statements without effect (see the module docstring)."""

    def make():
        options = _remove_no_op_options()
        return _NoOpRemover(options.get("max_simplification_steps", 0))

    return _body_pass(make, "tirx.RemoveNoOp")


def SkipAssert():
    """Remove every ``AssertStmt``."""
    return _body_pass(_AssertRemover, "tirx.SkipAssert")
