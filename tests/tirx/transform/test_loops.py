"""UnrollLoop and VectorizeLoop."""

import pytest

import tvm
from tvm import tirx
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T
from tvm.tirx import (
    Broadcast,
    BufferStore,
    FloatImm,
    For,
    ForKind,
    IntImm,
    PrimFunc,
    Ramp,
    SeqStmt,
    Var,
    decl_buffer,
)
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


def test_vectorize_rewrites_simple_store_into_vector_expressions():
    A = decl_buffer((32,), "float32", name="A")
    B = decl_buffer((32,), "float32", name="B")
    i, j = Var("i", "int32"), Var("j", "int32")
    store = BufferStore(B, A[i * 4 + j] * 2.0 + A[i], [i * 4 + j])
    before = PrimFunc([A, B], For(i, 0, 8, ForKind.SERIAL, For(j, 0, 4, ForKind.VECTORIZED,
                                                                   store)))
    ramp = Ramp(i * 4, IntImm("int32", 1), 4)
    vec = BufferStore(B, A[ramp] * Broadcast(FloatImm("float32", 2.0), 4)
                      + Broadcast(A[i], 4), [ramp])
    expected = PrimFunc([A, B], For(i, 0, 8, ForKind.SERIAL, vec))
    assert_structural_equal(_run(VectorizeLoop(), before), expected)


def test_vectorize_falls_back_to_a_lane_loop():
    A = decl_buffer((16,), "float32", name="A")
    k = Var("k", "int32")
    # A call the rewrite does not vectorize: the statement runs in a serial loop over the
    # lanes (``k_s``, as TVM), which LLVM's loop vectorizer may still vectorize.
    before = PrimFunc([A], For(k, 0, 16, ForKind.VECTORIZED,
                               BufferStore(A, tirx.exp(A[k]), [k])))
    after = _run(VectorizeLoop(), before)
    assert after.body.kind == ForKind.SERIAL and after.body.loop_var.name == "k_s"
    assert isinstance(after.body.body.indices[0], Var)
    # A symbolic extent keeps the loop itself, marked for LLVM.
    n = Var("n", "int32")
    symbolic = PrimFunc([A, n], For(k, 0, n, ForKind.VECTORIZED, BufferStore(A, 1.0, [k])))
    assert int(_run(VectorizeLoop(), symbolic).body.annotations["pragma_vectorize"]) == 1
    plain = _run(VectorizeLoop(enable_vectorize=False), before)
    assert plain.body.kind == ForKind.SERIAL and not plain.body.annotations


def test_vectorized_strided_store_falls_back():
    A = decl_buffer((32,), "float32", name="A")
    k = Var("k", "int32")
    before = PrimFunc([A], For(k, 0, 8, ForKind.VECTORIZED, BufferStore(A, 1.0, [k * 2])))
    after = _run(VectorizeLoop(), before)
    assert isinstance(after.body, For) and after.body.loop_var.name == "k_s"


def test_disable_vectorize_config():
    A = decl_buffer((8,), "float32", name="A")
    k = Var("k", "int32")
    before = PrimFunc([A], For(k, 0, 8, ForKind.VECTORIZED, BufferStore(A, 1.0, [k])))
    with tvm.transform.PassContext(config={"tirx.disable_vectorize": True}):
        after = _run(VectorizeLoop(), before)
    assert isinstance(after.body, For) and after.body.kind == ForKind.SERIAL
    assert not after.body.annotations


def _vectorized_load_index(index_of_j, lanes=8, n=64):
    """Vectorize ``B[i * lanes + j] = A[index_of_j(i, j)]``; returns the load's index."""
    A = decl_buffer((n * lanes * 2,), "float32", name="A")
    B = decl_buffer((n * lanes,), "float32", name="B")
    i, j = Var("i", "int32"), Var("j", "int32")
    store = BufferStore(B, A[index_of_j(i, j)], [i * lanes + j])
    func = PrimFunc([A, B], For(i, 0, n, ForKind.SERIAL, For(j, 0, lanes, ForKind.VECTORIZED,
                                                              store)))
    after = _run(VectorizeLoop(), func)
    return i, after.body.body


def test_vectorize_affine_load_strides_from_one_lane_difference():
    # Stride 2 (a gather), stride 0 (the same element in every lane) and an offset base.
    i, vec = _vectorized_load_index(lambda i, j: i * 16 + j * 2 + 3)
    assert isinstance(vec, BufferStore)
    index = vec.value.indices[0]
    assert isinstance(index, Ramp) and index.stride.value == 2 and index.lanes == 8
    assert_structural_equal(tvm.arith.Analyzer().simplify(index.base - (i * 16 + 3)),
                            IntImm("int32", 0))
    # j // 8 is 0 in all 8 lanes: the difference simplifies to 0 with the lane bound.
    _, vec = _vectorized_load_index(lambda i, j: i + j // 8)
    assert isinstance(vec.value.indices[0], Ramp) and vec.value.indices[0].stride.value == 0


def test_vectorize_floordiv_index_uses_the_per_lane_fallback():
    # (i * 8 + j) // 8 is i in every lane: the lane difference does not simplify to a
    # constant by itself, the per-lane evaluation proves the stride 0.
    _, vec = _vectorized_load_index(lambda i, j: (i * 8 + j) // 8)
    assert isinstance(vec, BufferStore)
    index = vec.value.indices[0]
    assert isinstance(index, Ramp) and index.stride.value == 0
    # (j // 2): steps 0, 1, 0, 1, ...: not one stride, so the store runs lane by lane.
    _, loop = _vectorized_load_index(lambda i, j: i * 4 + j // 2)
    assert isinstance(loop, For) and loop.loop_var.name == "j_s"


_SVE = {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mattr": ["+sve"]}


def test_vectorize_scalable_extent_on_an_sve_target():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "int32")):
        for j in T.vectorized(T.vscale() * 4):
            A[j + 2] = T.Cast("float32", B[j]) * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "int32")):
        A[T.Ramp(2, 1, T.vscale() * 4)] = T.Cast(
            "float32xvscalex4", B[T.Ramp(0, 1, T.vscale() * 4)]
        ) * T.Broadcast(T.float32(2), T.vscale() * 4)

    with tvm.target.Target(_SVE):
        after = tvm.tirx.transform.VectorizeLoop()(tvm.IRModule.from_expr(before))["main"]
    tvm.ir.assert_structural_equal(after, expected)
    # the function's own target attribute counts too
    with_target = before.with_attr("target", tvm.target.Target(_SVE))
    after = tvm.tirx.transform.VectorizeLoop()(tvm.IRModule.from_expr(with_target))["main"]
    assert isinstance(after.body, tvm.tirx.BufferStore)


def test_vectorize_scalable_extent_needs_scalable_vectors():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((64,), "float32")):
        for j in T.vectorized(4 * T.vscale()):
            A[j] = T.float32(1)

    x86 = tvm.target.Target({"kind": "llvm", "mtriple": "x86_64-linux-gnu"})
    with x86, pytest.raises(ValueError, match="Failed to vectorize loop with extent"):
        tvm.tirx.transform.VectorizeLoop()(tvm.IRModule.from_expr(before))


def test_vectorize_lanewise_calls_and_run():
    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int32"),
             C: T.Buffer((16,), "float32")):
        for i in T.vectorized(16):
            C[i] = T.call_llvm_pure_intrin("float32", "llvm.sqrt", A[i]) + T.reinterpret(
                "float32", B[i])

    after = tvm.tirx.transform.VectorizeLoop()(tvm.IRModule.from_expr(func))["func"]
    store = after.body
    assert isinstance(store, BufferStore) and store.value.dtype == "float32x16"
    assert store.value.a.dtype == "float32x16" and store.value.b.dtype == "float32x16"
    import numpy as np

    a = np.linspace(0, 9, 16).astype("float32")
    b = np.arange(16, dtype="float32").view("int32")
    c = tvm.runtime.tensor(np.zeros(16, "float32"))
    tvm.compile(func, target="llvm")(tvm.runtime.tensor(a), tvm.runtime.tensor(b), c)
    np.testing.assert_allclose(c.numpy(), np.sqrt(a) + np.arange(16), rtol=1e-6)


def test_vectorize_bind_sequences_and_invariant_if_then_else():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), n: T.int32):
        for i in range(4):
            for j in T.vectorized(8):
                s = T.bind(A[i * 8 + j] * T.float32(2))
                B[i * 8 + j] = T.if_then_else(n > 2, s + T.float32(1), s)

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), n: T.int32):
        for i in range(4):
            s = T.bind(A[T.Ramp(i * 8, 1, 8)] * T.Broadcast(T.float32(2), 8))
            B[T.Ramp(i * 8, 1, 8)] = T.if_then_else(
                n > 2, s + T.Broadcast(T.float32(1), 8), s
            )

    after = tvm.tirx.transform.VectorizeLoop()(tvm.IRModule.from_expr(before))["main"]
    tvm.ir.assert_structural_equal(after, expected)


def test_vectorize_if_then_else_on_the_lane_stays_a_loop():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((8,), "float32")):
        for j in T.vectorized(8):
            A[j] = T.if_then_else(j > 2, A[j] + T.float32(1), A[j])

    after = tvm.tirx.transform.VectorizeLoop()(tvm.IRModule.from_expr(before))["main"]
    assert isinstance(after.body, For) and after.body.kind == ForKind.SERIAL


def test_vectorized_bind_and_if_then_else_run():
    import numpy as np

    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), n: T.int32):
        for i in range(4):
            for j in T.vectorized(8):
                s = T.bind(A[i * 8 + j] * T.float32(2))
                B[i * 8 + j] = T.if_then_else(n > 2, s + T.float32(1), s)

    lib = tvm.compile(func, target="llvm")
    a = np.arange(32, dtype="float32")
    for n, extra in ((5, 1.0), (1, 0.0)):
        b = tvm.runtime.tensor(np.zeros(32, "float32"))
        lib(tvm.runtime.tensor(a), b, n)
        np.testing.assert_allclose(b.numpy(), a * 2 + extra)
