"""Small utility passes: ``Apply``, ``Filter``, ``RemoveNoOp``, ``SkipAssert``.

* ``Apply(ftransform)``: ``ftransform(func) -> func`` on every PrimFunc.
* ``Filter(fcond)``: keep only the PrimFuncs for which ``fcond(func)`` is true (other
  functions stay).
* ``RemoveNoOp()``: drop ``Evaluate`` of constants, loops and branches whose bodies do nothing
  (a loop of a body without effect, ``if c: pass``), and flatten the sequences left behind.
* ``SkipAssert()``: remove every ``AssertStmt`` (run-time checks off).
"""

from __future__ import annotations

from ...ir.module import IRModule
from ...ir.transform import ModulePass, PassInfo
from ..expr import ConstExpr
from ..function import PrimFunc
from ..stmt import AssertStmt, Evaluate, For, IfThenElse, SeqStmt, While
from ..stmt_functor import StmtMutator
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
    return isinstance(stmt, Evaluate) and isinstance(stmt.value, ConstExpr)


class _NoOpRemover(StmtMutator):
    def visit_evaluate_(self, op: Evaluate):
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
        op = super().visit_for_(op)
        return Evaluate(0) if _is_no_op(op.body) else op

    def visit_while_(self, op: While):
        return super().visit_while_(op)  # a loop that only tests its condition may not end

    def visit_if_then_else_(self, op: IfThenElse):
        op = super().visit_if_then_else_(op)
        then_empty = _is_no_op(op.then_case)
        else_empty = op.else_case is None or _is_no_op(op.else_case)
        if then_empty and else_empty:
            return Evaluate(0)
        if op.else_case is not None and else_empty:
            return op.replace(else_case=None)
        return op


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
    return _body_pass(_NoOpRemover, "tirx.RemoveNoOp")


def SkipAssert():
    """Remove every ``AssertStmt``."""
    return _body_pass(_AssertRemover, "tirx.SkipAssert")
