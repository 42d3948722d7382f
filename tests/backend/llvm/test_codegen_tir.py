"""Code generation of hand-written tirx: loop kinds, control flow, allocations, dtypes, vectors."""

import numpy as np
import pytest

import tvm
from tvm import tirx
from tvm.tirx import (
    AllocBuffer,
    AssertStmt,
    Break,
    BufferStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    IntImm,
    PrimFunc,
    Ramp,
    SeqStmt,
    Var,
    While,
    decl_buffer,
)
from tvm.tirx.interpreter import run_prim_func


def _loop(var, extent, body, kind=ForKind.SERIAL):
    return For(var, 0, extent, kind, body)


def _func(params, body, name):
    return PrimFunc(params, body).with_attr({"global_symbol": name, "tirx.noalias": True})


def _scaled_copy(kind):
    n = Var("n", "int32")
    A = decl_buffer((n, 8), "float32", name="A")
    B = decl_buffer((n, 8), "float32", name="B")
    i, j = Var("i", "int32"), Var("j", "int32")
    inner_kind = ForKind.VECTORIZED if kind == ForKind.PARALLEL else ForKind.UNROLLED
    body = _loop(i, n, _loop(j, 8, BufferStore(B, A[i, j] * 2.0 + tirx.Cast("float32", i),
                                               [i, j]), inner_kind), kind)
    return _func([A, B], body, f"scaled_{int(kind)}")


def _parallel_reduce():
    # Parallel rows, serial reduction with a stack accumulator per task.
    A = decl_buffer((37, 129), "float32", name="A")
    B = decl_buffer((37,), "float32", name="B")
    acc = decl_buffer((1,), "float32", name="acc")
    i, k = Var("i", "int32"), Var("k", "int32")
    row = SeqStmt([
        AllocBuffer(acc),
        BufferStore(acc, tirx.FloatImm("float32", 0.0), [0]),
        _loop(k, 129, BufferStore(acc, acc[0] + A[i, k], [0])),
        BufferStore(B, acc[0], [i]),
    ])
    return _func([A, B], _loop(i, 37, row, ForKind.PARALLEL), "parallel_reduce")


def _heap_alloc():
    # A temporary too large for the stack goes through the workspace allocator.
    n = Var("n", "int32")
    A = decl_buffer((n,), "float32", name="A")
    B = decl_buffer((n,), "float32", name="B")
    tmp = decl_buffer((n,), "float32", name="tmp")
    big = decl_buffer((100000,), "float32", name="big")
    i = Var("i", "int32")
    body = SeqStmt([
        AllocBuffer(tmp),
        AllocBuffer(big),
        _loop(i, n, BufferStore(tmp, A[i] + 1.0, [i])),
        _loop(i, n, BufferStore(big, tmp[i] * 3.0, [i % 100000])),
        _loop(i, n, BufferStore(B, big[i % 100000], [i])),
    ])
    return _func([A, B], body, "heap_alloc")


def _while_break():
    # Count leading positive entries: while + break + if.
    A = decl_buffer((16,), "int32", name="A")
    out = decl_buffer((1,), "int32", name="out")
    body = SeqStmt([
        BufferStore(out, 0, [0]),
        While(out[0] < 16, SeqStmt([
            IfThenElse(A[out[0]] <= 0, Break()),
            BufferStore(out, out[0] + 1, [0]),
        ])),
    ])
    return _func([A, out], body, "while_break")


def _guarded_load():
    # if_then_else must not evaluate the untaken side (an out-of-bounds load here).
    A = decl_buffer((8,), "float32", name="A")
    B = decl_buffer((10,), "float32", name="B")
    i = Var("i", "int32")
    value = tirx.if_then_else(i < 8, A[tirx.min(i, 7)], tirx.FloatImm("float32", -1.0))
    return _func([A, B], _loop(i, 10, BufferStore(B, value, [i])), "guarded")


def _assert_positive():
    A = decl_buffer((4,), "float32", name="A")
    x = Var("x", "int32")
    body = SeqStmt([
        AssertStmt("ValueError", x > 0, ["x must be positive"]),
        BufferStore(A, tirx.Cast("float32", x), [0]),
    ])
    return _func([A, x], body, "assert_positive")


def _half_and_bool():
    A = decl_buffer((20,), "float16", name="A")
    M = decl_buffer((20,), "bool", name="M")
    B = decl_buffer((20,), "float16", name="B")
    i = Var("i", "int32")
    value = tirx.Select(M[i], A[i] * tirx.FloatImm("float16", 2.0), tirx.FloatImm("float16", 0))
    return _func([A, M, B], _loop(i, 20, BufferStore(B, value, [i])), "half_bool")


def _vector_ramp():
    A = decl_buffer((32,), "float32", name="A")
    B = decl_buffer((32,), "float32", name="B")
    i = Var("i", "int32")
    idx = Ramp(i * 8, IntImm("int32", 1), 8)
    store = BufferStore(B, A[idx] + tirx.Broadcast(tirx.FloatImm("float32", 1.0), 8), [idx])
    return _func([A, B], _loop(i, 4, store), "vector_ramp")


def _scalar_params():
    A = decl_buffer((5,), "float64", name="A")
    alpha, shift = Var("alpha", "float64"), Var("shift", "int64")
    i = Var("i", "int32")
    body = _loop(i, 5, BufferStore(A, A[i] * alpha + tirx.Cast("float64", shift), [i]))
    return _func([A, alpha, shift], body, "axpb")


def _strided_view():
    # A buffer with symbolic strides accepts non-contiguous views (e.g. a[:, ::2], a.T).
    s0, s1 = Var("s0", "int32"), Var("s1", "int32")
    A = decl_buffer((4, 3), "float32", name="A", strides=[s0, s1])
    B = decl_buffer((4, 3), "float32", name="B")
    i, j = Var("i", "int32"), Var("j", "int32")
    body = _loop(i, 4, _loop(j, 3, BufferStore(B, A[i, j] + 0.5, [i, j])))
    return _func([A, B], body, "strided")


def _bfloat16_roundtrip():
    # float32 -> bfloat16 storage (round to nearest even) -> float32.
    A = decl_buffer((64,), "float32", name="A")
    B = decl_buffer((64,), "float32", name="B")
    T = decl_buffer((64,), "bfloat16", name="T")
    i = Var("i", "int32")
    body = SeqStmt([
        AllocBuffer(T),
        _loop(i, 64, BufferStore(T, tirx.Cast("bfloat16", A[i]), [i])),
        _loop(i, 64, BufferStore(B, tirx.Cast("float32", T[i] * tirx.FloatImm("bfloat16", 2.0)),
                                 [i])),
    ])
    return _func([A, B], body, "bf16")


def _scalar_extent():
    # The scalar parameter n is also A's extent: both must agree at run time.
    n = Var("n", "int32")
    A = decl_buffer((n,), "float32", name="A")
    i = Var("i", "int32")
    return _func([n, A], _loop(i, n, BufferStore(A, tirx.Cast("float32", i), [i])), "fill_n")


def _reused_temporaries():
    # StorageRewrite lets t2 live in t1's memory (t1 is dead when t2 is first written).
    A = decl_buffer((64,), "float32", name="A")
    C = decl_buffer((64,), "float32", name="C")
    t1 = decl_buffer((64,), "float32", name="t1")
    t2 = decl_buffer((64,), "float32", name="t2")
    i = Var("i", "int32")
    body = SeqStmt([
        AllocBuffer(t1), AllocBuffer(t2),
        _loop(i, 64, BufferStore(t1, A[i] * 2.0, [i])),
        _loop(i, 64, BufferStore(C, t1[i] + 1.0, [i])),
        _loop(i, 64, BufferStore(t2, C[i] * 3.0, [63 - i])),
        _loop(i, 64, BufferStore(C, t2[i], [i])),
    ])
    return _func([A, C], body, "reuse")


def _parallel_assert():
    # An assertion failing inside a parallel task raises in the caller.
    A = decl_buffer((64,), "float32", name="A")
    i = Var("i", "int32")
    body = SeqStmt([
        AssertStmt("ValueError", A[i] >= 0.0, ["negative input"]),
        BufferStore(A, A[i] * 2.0, [i]),
    ])
    return _func([A], _loop(i, 64, body, ForKind.PARALLEL), "parallel_assert")


FUNCS = {
    "parallel_assert": _parallel_assert,
    "reuse": _reused_temporaries,
    "fill_n": _scalar_extent,
    "strided": _strided_view,
    "bf16": _bfloat16_roundtrip,
    "serial_unroll": lambda: _scaled_copy(ForKind.SERIAL),
    "parallel_vec": lambda: _scaled_copy(ForKind.PARALLEL),
    "parallel_reduce": _parallel_reduce,
    "heap_alloc": _heap_alloc,
    "while_break": _while_break,
    "guarded": _guarded_load,
    "assert_positive": _assert_positive,
    "half_bool": _half_and_bool,
    "vector_ramp": _vector_ramp,
    "axpb": _scalar_params,
}


@pytest.fixture(scope="module")
def built():
    """One module holding every function above (a single LLVM compilation)."""
    funcs = {name: make() for name, make in FUNCS.items()}
    mod = tvm.IRModule({f.get_attr("global_symbol"): f for f in funcs.values()})
    return funcs, tvm.compile(mod)


def _fn(built, key):
    funcs, mod = built
    return funcs[key], mod[funcs[key].get_attr("global_symbol")]


@pytest.mark.parametrize("key", ["serial_unroll", "parallel_vec"])
@pytest.mark.parametrize("rows", [1, 5, 33])
def test_loop_kinds(built, key, rows):
    func, fn = _fn(built, key)
    a = np.random.default_rng(1).standard_normal((rows, 8)).astype("float32")
    b = np.zeros_like(a)
    fn(a, b)
    ref = np.zeros_like(a)
    run_prim_func(func, [a, ref])
    np.testing.assert_allclose(b, ref, rtol=1e-6)
    np.testing.assert_allclose(b, a * 2 + np.arange(rows, dtype="float32")[:, None], rtol=1e-6)


def test_parallel_rows_with_stack_accumulator(built):
    _, fn = _fn(built, "parallel_reduce")
    a = np.random.default_rng(2).standard_normal((37, 129)).astype("float32")
    b = np.zeros(37, "float32")
    fn(a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("n", [0, 7, 70000])
def test_heap_allocation(built, n):
    _, fn = _fn(built, "heap_alloc")
    a = np.arange(n, dtype="float32")
    b = np.zeros_like(a)
    fn(a, b)
    np.testing.assert_allclose(b, (a + 1) * 3)


def test_while_break_if(built):
    _, fn = _fn(built, "while_break")
    a = np.array([3, 1, 4, 1, 5, -9, 2, 6] + [1] * 8, "int32")
    out = np.zeros(1, "int32")
    fn(a, out)
    assert out[0] == 5
    a[:] = 1
    fn(a, out)
    assert out[0] == 16


def test_if_then_else_is_lazy(built):
    _, fn = _fn(built, "guarded")
    a = np.arange(8, dtype="float32")
    b = np.zeros(10, "float32")
    fn(a, b)
    np.testing.assert_array_equal(b, [0, 1, 2, 3, 4, 5, 6, 7, -1, -1])


def test_assert_raises_its_kind(built):
    _, fn = _fn(built, "assert_positive")
    a = np.zeros(4, "float32")
    fn(a, 3)
    assert a[0] == 3
    with pytest.raises(ValueError, match="x must be positive"):
        fn(a, -1)


def test_float16_and_bool_buffers(built):
    _, fn = _fn(built, "half_bool")
    a = np.linspace(-3, 3, 20).astype("float16")
    m = np.arange(20) % 3 == 0
    b = np.ones(20, "float16")
    fn(a, m, b)
    np.testing.assert_array_equal(b, np.where(m, a * np.float16(2), np.float16(0)))


def test_explicit_vector_expressions(built):
    _, fn = _fn(built, "vector_ramp")
    a = np.arange(32, dtype="float32")
    b = np.zeros_like(a)
    fn(a, b)
    np.testing.assert_array_equal(b, a + 1)


def test_scalar_parameters(built):
    _, fn = _fn(built, "axpb")
    a = np.arange(5, dtype="float64")
    fn(a, 0.5, 10)
    np.testing.assert_array_equal(a, np.arange(5) * 0.5 + 10)


def test_inspect_source_shows_exported_symbols(built):
    _, mod = built
    ll = mod.inspect_source("ll")
    assert "__tvm_ffi_parallel_reduce" in ll
    assert "TVMBackendParallelLaunch" in ll
    asm = mod.inspect_source("asm")
    assert "__tvm_ffi_axpb" in asm


def test_export_library_roundtrip(built, tmp_path):
    from tvm.runtime.module import find_linker

    if find_linker() is None:
        pytest.skip("no system linker to write a shared library")
    _, mod = built
    path = str(tmp_path / "kernels.so")
    mod.export_library(path)
    loaded = tvm.runtime.load_module(path)
    a = np.random.default_rng(3).standard_normal((37, 129)).astype("float32")
    b = np.zeros(37, "float32")
    loaded["parallel_reduce"](a, b)
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-4, atol=1e-4)


def test_unsupported_statement_is_reported():
    A = decl_buffer((4,), "float32", name="A")
    tx = Var("tx", "int32")
    body = For(tx, 0, 4, ForKind.THREAD_BINDING, BufferStore(A, 1.0, [tx]))
    func = _func([A], body, "gpu_only")
    with pytest.raises(ValueError, match="GPU thread-bound loops"):
        tvm.compile(func)


def test_unused_evaluate_is_fine():
    A = decl_buffer((1,), "float32", name="A")
    func = _func([A], SeqStmt([Evaluate(0), BufferStore(A, 4.0, [0])]), "evaluate_zero")
    a = np.zeros(1, "float32")
    tvm.compile(func)["evaluate_zero"](a)
    assert a[0] == 4


@pytest.mark.parametrize("view", ["step", "transpose"])
def test_non_contiguous_strides(built, view):
    _, fn = _fn(built, "strided")
    base = np.arange(24, dtype="float32").reshape(4, 6)
    a = base[:, ::2] if view == "step" else np.arange(12, dtype="float32").reshape(3, 4).T
    b = np.zeros((4, 3), "float32")
    fn(a, b)
    np.testing.assert_array_equal(b, a + 0.5)


def test_bfloat16_storage_rounds_to_nearest_even(built):
    import ml_dtypes

    _, fn = _fn(built, "bf16")
    a = np.random.default_rng(4).standard_normal(64).astype("float32") * 100
    a[:4] = [np.nan, np.inf, -np.inf, 1.0 + 2.0**-8]  # a tie: rounds to even (1.0)
    b = np.zeros_like(a)
    fn(a, b)
    ref = (a.astype(ml_dtypes.bfloat16).astype("float32") * 2).astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(b, ref.astype("float32"))


def test_scalar_parameter_that_is_also_an_extent(built):
    _, fn = _fn(built, "fill_n")
    a = np.zeros(6, "float32")
    fn(6, a)
    np.testing.assert_array_equal(a, np.arange(6))
    with pytest.raises(ValueError, match=r"(?s)Mismatched A.shape\[0\] when calling fill_n.*"
                                         r"equal argument n"):
        fn(7, a)


def test_reused_storage(built):
    _, fn = _fn(built, "reuse")
    a = np.arange(64, dtype="float32")
    c = np.zeros(64, "float32")
    fn(a, c)
    np.testing.assert_array_equal(c, ((a * 2 + 1) * 3)[::-1])


def test_error_inside_a_parallel_task(built):
    _, fn = _fn(built, "parallel_assert")
    a = np.ones(64, "float32")
    fn(a)
    np.testing.assert_array_equal(a, 2)
    a[50] = -1
    with pytest.raises(ValueError, match="negative input"):
        fn(a)
