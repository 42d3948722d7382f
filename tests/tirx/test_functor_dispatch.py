"""Each functor class dispatches with its own method table (filled on first use)."""

from tvm import tirx
from tvm.tirx.expr_functor import ExprMutator, ExprVisitor
from tvm.tirx.stmt import BufferStore, Evaluate, For, ForKind, SeqStmt
from tvm.tirx.stmt_functor import StmtExprVisitor, StmtMutator


def test_expr_tables_are_per_class():
    x = tirx.Var("x", "int32")
    expr = x + 1

    class Names(ExprVisitor):
        def __init__(self):
            self.seen = []

        def visit_var_(self, op):
            self.seen.append(op.name)

    base = ExprVisitor()
    base.visit_expr(expr)  # fills ExprVisitor's table first
    names = Names()
    names.visit_expr(expr)
    assert names.seen == ["x"]

    class Renamer(ExprMutator):
        def visit_var_(self, op):
            return tirx.Var(op.name + "_r", op.dtype)

    assert ExprMutator().visit_expr(expr) is expr
    assert Renamer().visit_expr(expr).a.name == "x_r"
    assert ExprMutator().visit_expr(expr) is expr  # the subclass did not change the base


def test_stmt_tables_are_per_class_and_follow_the_mro():
    A = tirx.decl_buffer((4,), "float32", name="A")
    i = tirx.Var("i", "int32")
    body = SeqStmt([For(i, 0, 4, ForKind.SERIAL, BufferStore(A, 1.0, [i])), Evaluate(0)])

    class Loops(StmtExprVisitor):
        def __init__(self):
            self.loops, self.vars = 0, 0

        def visit_for_(self, op):
            self.loops += 1
            super().visit_for_(op)

        def visit_var_(self, op):
            self.vars += 1

    StmtExprVisitor()(body)
    counter = Loops()
    counter(body)
    assert (counter.loops, counter.vars) == (1, 1)  # ``i`` in the index (the loop var is a def)

    class DropEvaluate(StmtMutator):
        def visit_evaluate_(self, op):
            return BufferStore(A, 0.0, [0])

    assert StmtMutator()(body) is body
    out = DropEvaluate()(body)
    assert isinstance(out.seq[1], BufferStore) and out.seq[0] is body.seq[0]
