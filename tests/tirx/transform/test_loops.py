"""UnrollLoop and VectorizeLoop."""

import tvm
from tvm.ir import assert_structural_equal
from tvm.tirx import BufferStore, For, ForKind, IntImm, PrimFunc, SeqStmt, Var, decl_buffer
from tvm.tirx.transform import UnrollLoop, VectorizeLoop


def _run(p, func):
    return p(tvm.IRModule({"main": func}))["main"]


def test_unroll_constant_loop():
    A = decl_buffer((3,), "float32", name="A")
    k = Var("k", "int32")
    before = PrimFunc([A], For(k, 0, 3, ForKind.UNROLLED, BufferStore(A, A[k] + 1.0, [k])))
    expected = PrimFunc([A], SeqStmt([
        BufferStore(A, A[IntImm("int32", c)] + 1.0, [IntImm("int32", c)]) for c in range(3)
    ]))
    assert_structural_equal(_run(UnrollLoop(), before), expected)


def test_unroll_keeps_symbolic_or_long_loops_serial():
    n = Var("n", "int32")
    A = decl_buffer((n,), "float32", name="A")
    k = Var("k", "int32")
    sym = PrimFunc([A], For(k, 0, n, ForKind.UNROLLED, BufferStore(A, 1.0, [k])))
    assert _run(UnrollLoop(), sym).body.kind == ForKind.SERIAL
    long = PrimFunc([A], For(k, 0, 1000, ForKind.UNROLLED, BufferStore(A, 1.0, [k])))
    assert _run(UnrollLoop(max_extent=64), long).body.kind == ForKind.SERIAL


def test_vectorize_marks_loop_for_llvm():
    A = decl_buffer((16,), "float32", name="A")
    k = Var("k", "int32")
    before = PrimFunc([A], For(k, 0, 16, ForKind.VECTORIZED, BufferStore(A, 1.0, [k])))
    after = _run(VectorizeLoop(), before)
    assert after.body.kind == ForKind.SERIAL
    assert int(after.body.annotations["pragma_vectorize"]) == 1
    plain = _run(VectorizeLoop(enable_vectorize=False), before)
    assert plain.body.kind == ForKind.SERIAL and not plain.body.annotations
