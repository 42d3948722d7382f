"""StmtSimplify on subtrees shared by several statements (as unrolling leaves them).

The pass reuses one canonical simplifier between expressions until a loop binds a range; a
shared expression must still simplify according to the loop it sits in.
"""

from tvm import tirx
from tvm.ffi.structural import structural_equal
from tvm.ir import IRModule
from tvm.tirx import BufferLoad, BufferStore, For, ForKind, PrimFunc, SeqStmt, decl_buffer
from tvm.tirx.transform import StmtSimplify


def _run(body, *buffers):
    func = PrimFunc(list(buffers), body).with_attr("global_symbol", "f")
    return StmtSimplify()(IRModule({"f": func}))["f"].body


def test_shared_expression_follows_each_loops_range():
    A = decl_buffer((8,), "int32", name="A")
    B = decl_buffer((8,), "int32", name="B")
    x = tirx.Var("x", "int32")
    shared = tirx.floormod(x, 4)  # one object, used under two different loop ranges
    first = For(x, 0, 4, ForKind.SERIAL, BufferStore(A, BufferLoad(B, [shared]), [x]))
    second = For(x, 0, 8, ForKind.SERIAL, BufferStore(A, BufferLoad(B, [shared]), [x]))
    out = _run(SeqStmt([first, second]), A, B)
    assert out.seq[0].body.value.indices[0] is x  # x % 4 is x when 0 <= x < 4
    assert structural_equal(out.seq[1].body.value.indices[0], shared)  # not when x < 8


def test_shared_subtrees_in_one_body_simplify_alike():
    A = decl_buffer((64,), "int64", name="A")
    i = tirx.Var("i", "int64")
    c = tirx.IntImm
    base = i * c("int64", 8)  # shared by every copy, as UnrollLoop leaves it
    copies = [BufferStore(A, BufferLoad(A, [base + tirx.Mul(c("int64", k), c("int64", 1))]),
                          [base + c("int64", k) + c("int64", 0)]) for k in range(4)]
    out = _run(For(i, 0, 8, ForKind.SERIAL, SeqStmt(copies)), A)
    for k, store in enumerate(out.body.seq):
        want = base + c("int64", k) if k else base
        assert structural_equal(store.indices[0], want)
        assert structural_equal(store.value.indices[0], want)
