"""Apply, Filter, RemoveNoOp, SkipAssert."""

import tvm
from tvm.ir import assert_structural_equal
from tvm.tirx import (
    AssertStmt,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    PrimFunc,
    SeqStmt,
    Var,
    decl_buffer,
)
from tvm.tirx import transform as T


def _store():
    A = decl_buffer((4,), "float32", name="A")
    return A, BufferStore(A, 1.0, [0])


def test_apply_and_filter():
    A, store = _store()
    f = PrimFunc([A], store)
    mod = tvm.IRModule({"f": f, "g": f.with_attr("skip", True)})
    kept = T.Filter(lambda func: func.get_attr("skip") is None)(mod)
    assert [gv.name_hint for gv in kept.functions] == ["f"]
    tagged = T.Apply(lambda func: func.with_attr("seen", True))(kept)
    assert tagged["f"].get_attr("seen") is True


def test_remove_no_op():
    A, store = _store()
    i, x = Var("i", "int32"), Var("x", "int32")
    body = SeqStmt([
        Evaluate(0),
        For(i, 0, 8, ForKind.SERIAL, Evaluate(0)),
        IfThenElse(x > 0, Evaluate(0)),
        IfThenElse(x > 1, store, Evaluate(0)),
    ])
    out = T.RemoveNoOp()(tvm.IRModule({"f": PrimFunc([A, x], body)}))["f"]
    assert_structural_equal(out, PrimFunc([A, x], IfThenElse(x > 1, store)))


def test_skip_assert():
    A, store = _store()
    x = Var("x", "int32")
    body = SeqStmt([AssertStmt("ValueError", x > 0, ["x > 0"]), store])
    out = T.SkipAssert()(tvm.IRModule({"f": PrimFunc([A, x], body)}))["f"]
    assert_structural_equal(out, PrimFunc([A, x], store))
