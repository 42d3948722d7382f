"""The NumPy PrimFunc interpreter on hand-built loop nests."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tvm import tirx
from tvm.tirx import op
from tvm.tirx.interpreter import InterpreterError, evaluate_expr, run_prim_func

I32, F32 = "int32", "float32"


def _loop(var, extent, body, kind=tirx.ForKind.SERIAL):
    return tirx.For(var, 0, extent, kind, body)


def _func_1d(n, dtype, make_value, out_dtype=None):
    """``B[i] = make_value(A[i], i)`` for ``i < n``."""
    A = tirx.decl_buffer((n,), dtype, name="A")
    B = tirx.decl_buffer((n,), out_dtype or dtype, name="B")
    i = tirx.Var("i", I32)
    return tirx.PrimFunc([A, B], _loop(i, n, tirx.BufferStore(B, make_value(A[i], i), [i])))


def _run_1d(func, a, out_dtype=None):
    b = np.zeros(a.shape, dtype=out_dtype or a.dtype)
    run_prim_func(func, [a, b])
    return b


def test_integer_division_semantics():
    a = np.array([-7, -6, -1, 0, 1, 6, 7], dtype=I32)
    cases = [
        (tirx.floordiv, lambda x: x // 3),
        (tirx.floormod, lambda x: x % 3),
        (tirx.truncdiv, lambda x: np.trunc(x / 3).astype(I32)),
        (tirx.truncmod, lambda x: np.fmod(x, 3)),
    ]
    for fn, ref in cases:
        func = _func_1d(7, I32, lambda v, i, fn=fn: fn(v, 3))
        np.testing.assert_array_equal(_run_1d(func, a), ref(a))


def test_integer_overflow_wraps_like_hardware():
    a = np.array([2**31 - 1, -(2**31)], dtype=I32)
    func = _func_1d(2, I32, lambda v, i: tirx.Add(v, tirx.IntImm(I32, 1)))
    np.testing.assert_array_equal(_run_1d(func, a), a + np.int32(1))


def test_casts():
    a = np.array([-2.7, -0.5, 0.5, 2.7, 300.0], dtype=F32)
    func = _func_1d(5, F32, lambda v, i: tirx.Cast(I32, v), I32)
    np.testing.assert_array_equal(_run_1d(func, a, I32), [-2, 0, 0, 2, 300])
    func8 = _func_1d(5, F32, lambda v, i: tirx.Cast("int8", tirx.Cast(I32, v)), "int8")
    np.testing.assert_array_equal(_run_1d(func8, a, "int8"), [-2, 0, 0, 2, 44])
    half = _func_1d(5, F32, lambda v, i: tirx.Cast("float16", v), "float16")
    np.testing.assert_array_equal(_run_1d(half, a, "float16"), a.astype("float16"))


@pytest.mark.parametrize("name, ref", [
    ("exp", np.exp), ("log", np.log), ("sqrt", np.sqrt), ("tanh", np.tanh),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("rsqrt", lambda x: 1 / np.sqrt(x)),
    ("floor", np.floor), ("ceil", np.ceil), ("round", np.rint), ("trunc", np.trunc),
    ("abs", np.abs), ("log1p", np.log1p), ("erf", None),
])
def test_math_intrinsics(name, ref):
    a = np.array([0.25, 0.5, 1.5, 2.5, 3.0], dtype=F32)
    func = _func_1d(5, F32, lambda v, i: getattr(op, name)(v))
    out = _run_1d(func, a)
    if ref is None:
        import math

        ref = np.vectorize(math.erf)
    np.testing.assert_allclose(out, ref(a).astype(F32), rtol=1e-6)


def test_intrinsic_result_dtype_float16():
    a = np.array([0.5, 1.0], dtype="float16")
    func = _func_1d(2, "float16", lambda v, i: op.exp(v))
    out = _run_1d(func, a)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out, np.exp(a), rtol=1e-3)


def test_select_if_then_else_let_and_pow():
    a = np.array([-1.0, 2.0, -3.0, 4.0], dtype=F32)
    zero = tirx.const(0.0, F32)
    relu = _func_1d(4, F32, lambda v, i: tirx.Select(v > zero, v, zero))
    np.testing.assert_array_equal(_run_1d(relu, a), np.maximum(a, 0))
    ite = _func_1d(4, F32, lambda v, i: op.if_then_else(i < 2, v, zero))
    np.testing.assert_array_equal(_run_1d(ite, a), [-1.0, 2.0, 0.0, 0.0])
    x = tirx.Var("x", F32)
    let = _func_1d(4, F32, lambda v, i: tirx.Let(x, v * v, x + x))
    np.testing.assert_array_equal(_run_1d(let, a), 2 * a * a)
    pw = _func_1d(4, F32, lambda v, i: op.pow(v, tirx.const(2.0, F32)))
    np.testing.assert_allclose(_run_1d(pw, a), a ** 2)


def test_while_break_continue_if_and_bind():
    A = tirx.decl_buffer((1,), I32, name="A")
    x = tirx.Var("x", I32)
    i = tirx.Var("i", I32)
    # for i in range(10): if i == 7: break; if i % 2 == 1: continue; A[0] += i
    body = tirx.SeqStmt([
        tirx.IfThenElse(tirx.EQ(i, tirx.IntImm(I32, 7)), tirx.Break()),
        tirx.IfThenElse(tirx.EQ(tirx.floormod(i, 2), tirx.IntImm(I32, 1)), tirx.Continue()),
        tirx.Bind(x, A[0] + i),
        tirx.BufferStore(A, x, [0]),
    ])
    func = tirx.PrimFunc([A], _loop(i, 10, body, tirx.ForKind.PARALLEL))
    a = np.zeros(1, I32)
    run_prim_func(func, [a])
    assert a[0] == 0 + 2 + 4 + 6
    # while A[0] < 100: A[0] = A[0] * 2
    loop = tirx.While(A[0] < 100, tirx.BufferStore(A, A[0] * 2, [0]))
    a = np.array([3], I32)
    run_prim_func(tirx.PrimFunc([A], loop), [a])
    assert a[0] == 192


def test_alloc_buffer_temporary_and_else_branch():
    A = tirx.decl_buffer((4,), F32, name="A")
    B = tirx.decl_buffer((4,), F32, name="B")
    T = tirx.decl_buffer((4,), F32, name="T", scope="local")
    i, j = tirx.Var("i", I32), tirx.Var("j", I32)
    fill = _loop(i, 4, tirx.BufferStore(T, A[i] * 2.0, [i]))
    use = _loop(j, 4, tirx.IfThenElse(j < 2, tirx.BufferStore(B, T[3 - j], [j]),
                                      tirx.BufferStore(B, tirx.const(-1.0, F32), [j])))
    func = tirx.PrimFunc([A, B], tirx.SeqStmt([tirx.AllocBuffer(T), fill, use]))
    a = np.arange(4, dtype=F32)
    b = np.zeros(4, F32)
    run_prim_func(func, [a, b])
    np.testing.assert_array_equal(b, [6.0, 4.0, -1.0, -1.0])


def test_decl_buffer_view_reshapes_memory():
    A = tirx.decl_buffer((2, 3), F32, name="A")
    flat = tirx.decl_buffer((6,), F32, name="A_flat", data=A.data)
    i = tirx.Var("i", I32)
    func = tirx.PrimFunc([A], tirx.SeqStmt([
        tirx.DeclBuffer(flat), _loop(i, 6, tirx.BufferStore(flat, tirx.Cast(F32, i), [i]))]))
    a = np.zeros((2, 3), F32)
    run_prim_func(func, [a])
    np.testing.assert_array_equal(a, np.arange(6).reshape(2, 3))


def test_scalar_params_and_symbolic_shapes():
    n = tirx.Var("n", I32)
    s = tirx.Var("s", F32)
    A = tirx.decl_buffer((n,), F32, name="A")
    i = tirx.Var("i", I32)
    a_handle = tirx.Var("a", "handle")
    body = _loop(i, n, tirx.BufferStore(A, A[i] * s, [i]))
    func = tirx.PrimFunc([a_handle, s], body, buffer_map={a_handle: A})
    for size in (1, 3, 17):
        a = np.ones(size, F32)
        run_prim_func(func, [a, 3.0])
        np.testing.assert_array_equal(a, np.full(size, 3.0))


def test_assert_stmt_raises_its_kind():
    A = tirx.decl_buffer((1,), I32, name="A")
    check = tirx.AssertStmt("ValueError", A[0] > 0, ["A[0] must be ", "positive"])
    func = tirx.PrimFunc([A], check)
    run_prim_func(func, [np.ones(1, I32)])
    with pytest.raises(ValueError, match="A\\[0\\] must be positive"):
        run_prim_func(func, [np.zeros(1, I32)])


def test_argument_errors():
    func = _func_1d(3, F32, lambda v, i: v)
    with pytest.raises(InterpreterError, match="expects 2 arguments, got 1"):
        run_prim_func(func, [np.zeros(3, F32)])
    with pytest.raises(InterpreterError, match="argument A has dtype float64"):
        run_prim_func(func, [np.zeros(3), np.zeros(3, F32)])
    with pytest.raises(InterpreterError, match="dimension 0 is 4, but the buffer expects 3"):
        run_prim_func(func, [np.zeros(4, F32), np.zeros(4, F32)])
    with pytest.raises(InterpreterError, match="has 2 dimensions"):
        run_prim_func(func, [np.zeros((3, 1), F32), np.zeros(3, F32)])
    with pytest.raises(InterpreterError, match="NumPy array"):
        run_prim_func(func, [[0.0, 1.0, 2.0], np.zeros(3, F32)])
    assert issubclass(InterpreterError, ValueError)


def test_unsupported_constructs_are_named():
    extern = _func_1d(2, F32, lambda v, i: op.call_extern(F32, "my_fn", v))
    with pytest.raises(InterpreterError, match="call to tirx.call_extern"):
        _run_1d(extern, np.zeros(2, F32))
    A = tirx.decl_buffer((2,), F32, name="A")
    i = tirx.Var("i", I32)
    undefined = tirx.PrimFunc([A], tirx.BufferStore(A, 0.0, [i]))
    with pytest.raises(InterpreterError, match="variable i is used but not defined"):
        run_prim_func(undefined, [np.zeros(2, F32)])


def test_evaluate_expr():
    x, y = tirx.Var("x", I32), tirx.Var("y", I32)
    assert evaluate_expr(tirx.floordiv(x, y) * y + tirx.floormod(x, y), {x: -7, y: 2}) == -7
    assert evaluate_expr(tirx.truncdiv(x, y), {x: -7, y: 2}) == -3
    with pytest.raises(ZeroDivisionError):
        evaluate_expr(tirx.floordiv(x, y), {x: 1, y: 0})


def test_uninitialized_memory_reads_nan():
    A = tirx.decl_buffer((2,), F32, name="A")
    T = tirx.decl_buffer((2,), F32, name="T")
    func = tirx.PrimFunc([A], tirx.SeqStmt([tirx.AllocBuffer(T), tirx.BufferStore(A, T[1], [0])]))
    a = np.zeros(2, F32)
    run_prim_func(func, [a])
    assert np.isnan(a[0])


def test_bitwise_and_shift_semantics():
    x, y = tirx.Var("x", I32), tirx.Var("y", I32)
    assert evaluate_expr(x & y, {x: 6, y: 3}) == 2
    assert evaluate_expr(x | y, {x: 6, y: 3}) == 7
    assert evaluate_expr(x ^ y, {x: 6, y: 3}) == 5
    assert evaluate_expr(~x, {x: 0}) == -1
    assert evaluate_expr(x << y, {x: 1, y: 31}) == -(2**31)  # wraps into int32
    assert evaluate_expr(x >> y, {x: -8, y: 1}) == -4  # arithmetic shift
    assert evaluate_expr(op.clz(x), {x: 1}) == 31
    assert evaluate_expr(op.popcount(x), {x: 7}) == 3
    f = tirx.Var("f", F32)
    assert evaluate_expr(op.isinf(f), {f: np.float32("inf")})
    assert not evaluate_expr(op.isnan(f), {f: np.float32(1.0)})


def test_scalar_param_that_is_also_a_shape_var_must_agree():
    n = tirx.Var("n", I32)
    A = tirx.decl_buffer((n,), F32, name="A")
    a_handle = tirx.Var("a", "handle")
    i = tirx.Var("i", I32)
    body = _loop(i, n, tirx.BufferStore(A, tirx.Cast(F32, n), [i]))
    func = tirx.PrimFunc([a_handle, n], body, buffer_map={a_handle: A})
    a = np.zeros(3, F32)
    run_prim_func(func, [a, 3])
    np.testing.assert_array_equal(a, [3.0, 3.0, 3.0])
    with pytest.raises(InterpreterError, match="argument n = 4 disagrees"):
        run_prim_func(func, [a, 4])


@settings(max_examples=60, deadline=None)
@given(a=st.integers(-1000, 1000), b=st.integers(-50, 50).filter(bool))
def test_division_matches_reference_semantics(a, b):
    x, y = tirx.Var("x", I32), tirx.Var("y", I32)
    env = {x: a, y: b}
    assert evaluate_expr(tirx.floordiv(x, y), env) == a // b
    assert evaluate_expr(tirx.floormod(x, y), env) == a % b
    q = evaluate_expr(tirx.truncdiv(x, y), env)
    r = evaluate_expr(tirx.truncmod(x, y), env)
    assert q == int(a / b) and q * b + r == a and (r == 0 or (r > 0) == (a > 0))


@settings(max_examples=60, deadline=None)
@given(v=st.integers(-(2**40), 2**40))
def test_integer_casts_wrap_like_numpy(v):
    x = tirx.Var("x", "int64")
    for dtype in ("int8", "uint8", "int16", "int32", "uint32"):
        got = evaluate_expr(tirx.Cast(dtype, x), {x: v})
        assert got == int(np.array(v, dtype="int64").astype(dtype))


def test_vector_lanes_gather_scatter_and_arithmetic():
    A = tirx.decl_buffer((8,), F32, name="A")
    B = tirx.decl_buffer((8,), F32, name="B")
    i = tirx.Var("i", I32)
    ramp = tirx.Ramp(i * 4, tirx.IntImm(I32, 1), 4)
    zero = tirx.Broadcast(tirx.const(0.0, F32), 4)
    # B[i*4 : i*4+4] = max(A[...] * 2, 0), vectorized by hand.
    value = tirx.Max(A[ramp] * tirx.Broadcast(tirx.const(2.0, F32), 4), zero)
    body = _loop(i, 2, tirx.BufferStore(B, value, [ramp]))
    a = np.arange(-4, 4, dtype=F32)
    b = np.zeros(8, F32)
    run_prim_func(tirx.PrimFunc([A, B], body), [a, b])
    np.testing.assert_array_equal(b, np.maximum(a * 2, 0))


def test_vector_integer_semantics_and_select():
    x = tirx.Var("x", I32)
    ramp = tirx.Ramp(x, tirx.IntImm(I32, 1), 4)  # x, x+1, x+2, x+3
    three = tirx.Broadcast(tirx.IntImm(I32, 3), 4)
    got = evaluate_expr(tirx.FloorDiv(ramp, three), {x: -2})
    np.testing.assert_array_equal(got, np.array([-2, -1, 0, 1]) // 3)
    got = evaluate_expr(tirx.Div(ramp, three), {x: -5})
    np.testing.assert_array_equal(got, [-1, -1, -1, 0])
    got = evaluate_expr(tirx.Mod(ramp, three), {x: -5})
    np.testing.assert_array_equal(got, np.fmod(np.arange(-5, -1), 3))
    big = tirx.Broadcast(tirx.IntImm(I32, 2**31 - 1), 4)
    np.testing.assert_array_equal(evaluate_expr(big + ramp, {x: 1}),
                                  np.full(4, 2**31 - 1, I32) + np.arange(1, 5, dtype=I32))
    zero = tirx.Broadcast(tirx.IntImm(I32, 0), 4)
    picked = evaluate_expr(tirx.Select(ramp < zero, zero, ramp), {x: -2})
    np.testing.assert_array_equal(picked, [0, 0, 0, 1])
    as_float = evaluate_expr(tirx.Cast("float32x4", ramp), {x: 1})
    assert as_float.dtype == np.float32 and as_float.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_unsupported_vector_node_is_named():
    x = tirx.Var("x", "float32x4")
    with pytest.raises(InterpreterError, match="cannot run vector call to tirx.call_extern"):
        evaluate_expr(op.call_extern("float32x4", "f", x), {x: np.zeros(4, F32)})


def test_loop_min_and_step():
    A = tirx.decl_buffer((10,), I32, name="A")
    i = tirx.Var("i", I32)
    loop = tirx.For(i, 2, 7, tirx.ForKind.SERIAL, tirx.BufferStore(A, i, [i]), step=3)
    a = np.full(10, -1, I32)
    run_prim_func(tirx.PrimFunc([A], loop), [a])
    # range(2, 2 + 7, 3) visits 2, 5, 8
    np.testing.assert_array_equal(np.nonzero(a >= 0)[0], [2, 5, 8])


def test_strided_view_with_offset():
    A = tirx.decl_buffer((3, 4), F32, name="A")
    # A column view: 3 elements with stride 4, starting at element 1.
    col = tirx.decl_buffer((3,), F32, name="col", data=A.data, strides=[4], elem_offset=1)
    i = tirx.Var("i", I32)
    body = tirx.SeqStmt([tirx.DeclBuffer(col),
                         _loop(i, 3, tirx.BufferStore(col, tirx.const(7.0, F32), [i]))])
    a = np.zeros((3, 4), F32)
    run_prim_func(tirx.PrimFunc([A], body), [a])
    np.testing.assert_array_equal(a[:, 1], [7.0, 7.0, 7.0])
    assert a.sum() == 21.0


def test_bool_and_reinterpret():
    A = tirx.decl_buffer((2,), F32, name="A")
    B = tirx.decl_buffer((2,), "int32", name="B")
    i = tirx.Var("i", I32)
    body = _loop(i, 2, tirx.BufferStore(B, op.reinterpret("int32", A[i]), [i]))
    a = np.array([1.0, -2.0], F32)
    b = np.zeros(2, "int32")
    run_prim_func(tirx.PrimFunc([A, B], body), [a, b])
    np.testing.assert_array_equal(b, a.view("int32"))
    M = tirx.decl_buffer((3,), "bool", name="M")
    body = _loop(i, 3, tirx.BufferStore(M, tirx.floormod(i, 2) == 0, [i]))
    m = np.zeros(3, bool)
    run_prim_func(tirx.PrimFunc([M], body), [m])
    np.testing.assert_array_equal(m, [True, False, True])


def test_predicated_vector_load_and_store():
    A = tirx.decl_buffer((4,), F32, name="A")
    B = tirx.decl_buffer((4,), F32, name="B")
    ramp = tirx.Ramp(tirx.IntImm(I32, 0), tirx.IntImm(I32, 1), 4)
    mask = ramp < tirx.Broadcast(tirx.IntImm(I32, 3), 4)
    load = tirx.BufferLoad(A, [ramp], predicate=mask)
    store = tirx.BufferStore(B, load + tirx.Broadcast(tirx.const(1.0, F32), 4), [ramp],
                             predicate=mask)
    a = np.array([1.0, 2.0, 3.0, 4.0], F32)
    b = np.full(4, -1.0, F32)
    run_prim_func(tirx.PrimFunc([A, B], store), [a, b])
    np.testing.assert_array_equal(b, [2.0, 3.0, 4.0, -1.0])


def test_deep_expressions():
    x = tirx.Var("x", I32)
    e = x
    for _ in range(3000):
        e = tirx.Add(e, tirx.IntImm(I32, 1))
    assert evaluate_expr(e, {x: 1}) == 3001
