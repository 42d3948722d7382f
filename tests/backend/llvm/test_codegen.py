"""Compiled te computes against NumPy and the PrimFunc interpreter (static and symbolic shapes)."""

import numpy as np
import pytest

import tvm
from tvm import te, tirx
from tvm.tirx.interpreter import run_prim_func

RNG = np.random.default_rng(0)


def _rand(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def _elementwise(n):
    A = te.placeholder((n,), "float32", name="A")
    B = te.placeholder((n,), "float32", name="B")
    C = te.compute((n,), lambda i: A[i] + B[i] * 2.0, name="C")
    return te.create_prim_func([A, B, C])


def _exp(n):
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n,), lambda i: te.exp(A[i]), name="B")
    return te.create_prim_func([A, B])


def _broadcast():
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), "float32", name="A")
    b = te.placeholder((n,), "float32", name="b")
    C = te.compute((m, n), lambda i, j: A[i, j] - b[j], name="C")
    return te.create_prim_func([A, b, C])


def _row_sum():
    m, n = te.var("m"), te.var("n")
    A = te.placeholder((m, n), "float32", name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((m,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return te.create_prim_func([A, B])


def _col_max():
    A = te.placeholder((37, 19), "float32", name="A")
    k = te.reduce_axis((0, 37), name="k")
    B = te.compute((19,), lambda j: te.max(A[k, j], axis=k), name="B")
    return te.create_prim_func([A, B])


def _matmul(m, n, k_):
    A = te.placeholder((m, k_), "float32", name="A")
    B = te.placeholder((k_, n), "float32", name="B")
    k = te.reduce_axis((0, k_), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def _softmax():
    m, n = te.var("m"), te.var("n")
    X = te.placeholder((m, n), "float32", name="X")
    k1 = te.reduce_axis((0, n), name="k1")
    mx = te.compute((m,), lambda i: te.max(X[i, k1], axis=k1), name="mx")
    E = te.compute((m, n), lambda i, j: te.exp(X[i, j] - mx[i]), name="E")
    k2 = te.reduce_axis((0, n), name="k2")
    S = te.compute((m,), lambda i: te.sum(E[i, k2], axis=k2), name="S")
    Y = te.compute((m, n), lambda i, j: E[i, j] / S[i], name="Y")
    return te.create_prim_func([X, Y])


def _layer_norm(n=64):
    m = te.var("m")
    X = te.placeholder((m, n), "float32", name="X")
    k1 = te.reduce_axis((0, n), name="k1")
    total = te.compute((m,), lambda i: te.sum(X[i, k1], axis=k1), name="total")
    k2 = te.reduce_axis((0, n), name="k2")
    sq = te.compute((m,), lambda i: te.sum(X[i, k2] * X[i, k2], axis=k2), name="sq")
    inv_n = 1.0 / n

    def norm(i, j):
        mean = total[i] * inv_n
        var = sq[i] * inv_n - mean * mean
        return (X[i, j] - mean) * te.rsqrt(var + 1e-5)

    Y = te.compute((m, n), norm, name="Y")
    return te.create_prim_func([X, Y])


def _int_div():
    A = te.placeholder((16,), "int32", name="A")
    B = te.placeholder((16,), "int32", name="B")
    Q = te.compute((16,), lambda i: tirx.floordiv(A[i], B[i]), name="Q")
    R = te.compute((16,), lambda i: tirx.floormod(A[i], B[i]), name="R")
    T = te.compute((16,), lambda i: tirx.truncdiv(A[i], B[i]), name="T")
    return te.create_prim_func([A, B, Q, R, T])


def _math():
    A = te.placeholder((33,), "float32", name="A")
    def unary(idx, f):
        return te.compute((33,), lambda i: f(A[i]), name=f"O{idx}")

    funcs = [te.exp, te.log, te.sqrt, te.tanh, te.sigmoid, te.erf, te.floor, te.abs]
    outs = [unary(idx, f) for idx, f in enumerate(funcs)]
    return te.create_prim_func([A, *outs])


def _cast_select():
    A = te.placeholder((40,), "float32", name="A")
    B = te.compute((40,), lambda i: tirx.Select(A[i] > 0.0, A[i].astype("int32"), -1), name="B")
    C = te.compute((40,), lambda i: (A[i] > 0.5).astype("float64"), name="C")
    return te.create_prim_func([A, B, C])


def _dtypes():
    U = te.placeholder((50,), "uint8", name="U")
    V = te.compute((50,), lambda i: U[i] + tirx.const(200, "uint8"), name="V")  # wraps
    D = te.placeholder((50,), "float64", name="D")
    E = te.compute((50,), lambda i: te.exp(D[i]) + te.tanh(D[i]), name="E")
    G = te.compute((50,), lambda i: D[i] > 0.0, name="G")  # bool output
    return te.create_prim_func([U, D, V, E, G])


def _int64_indices():
    n = tirx.Var("n", "int64")
    A = te.placeholder((n, tirx.IntImm("int64", 3)), "float32", name="A")
    B = te.compute((n, tirx.IntImm("int64", 3)), lambda i, j: A[i, j] * 3.0, name="B")
    return te.create_prim_func([A, B])


def _matmul_symbolic():
    m = te.var("m")
    A = te.placeholder((m, 24), "float32", name="A")
    B = te.placeholder((24, 10), "float32", name="B")
    k = te.reduce_axis((0, 24), name="k")
    C = te.compute((m, 10), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return te.create_prim_func([A, B, C])


def _fp8(fmt):
    A = te.placeholder((te.var("n"),), "float32", name="A")
    B = te.compute(A.shape, lambda i: A[i].astype(fmt), name="B")
    C = te.compute(A.shape, lambda i: B[i].astype("float32") * 2.0, name="C")
    return te.create_prim_func([A, B, C])


KERNELS = {
    "float8_e4m3fn": lambda: _fp8("float8_e4m3fn"),
    "float8_e5m2": lambda: _fp8("float8_e5m2"),
    "dtypes": _dtypes,
    "int64": _int64_indices,
    "matmul_sym": _matmul_symbolic,
    "add1": lambda: _elementwise(1),
    "add3": lambda: _elementwise(3),
    "add17": lambda: _elementwise(17),
    "add1023": lambda: _elementwise(1023),
    "add_sym": lambda: _elementwise(te.var("n")),
    "exp": lambda: _exp(te.var("n")),
    "broadcast": _broadcast,
    "row_sum": _row_sum,
    "col_max": _col_max,
    "matmul_small": lambda: _matmul(3, 17, 5),
    "matmul_tiled": lambda: _matmul(64, 128, 64),
    "softmax": _softmax,
    "layer_norm": _layer_norm,
    "int_div": _int_div,
    "math": _math,
    "cast_select": _cast_select,
}


@pytest.fixture(scope="module")
def kernels():
    """Each kernel compiled once for the whole module (LLVM compilation is ~0.1 s each)."""
    cache = {}

    def get(name):
        if name not in cache:
            func = KERNELS[name]()
            cache[name] = (func, tvm.compile(func)["main"])
        return cache[name]

    return get


def _check_against_interpreter(func, fn, args, n_out, rtol=1e-5, atol=1e-5):
    compiled = [a.copy() for a in args]
    fn(*compiled)
    interp = [a.copy() for a in args]
    run_prim_func(func, interp)
    for got, want in zip(compiled[-n_out:], interp[-n_out:]):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return compiled


@pytest.mark.parametrize("name,n", [("add1", 1), ("add3", 3), ("add17", 17), ("add1023", 1023)])
def test_elementwise_static_odd_sizes(kernels, name, n):
    func, fn = kernels(name)
    a, b, c = _rand(n), _rand(n), np.zeros(n, "float32")
    out = _check_against_interpreter(func, fn, [a, b, c], 1)
    np.testing.assert_allclose(out[-1], a + b * 2, rtol=1e-6)


@pytest.mark.parametrize("n", [0, 1, 3, 17, 1023, 4099])
def test_elementwise_symbolic(kernels, n):
    _, fn = kernels("add_sym")
    a, b, c = _rand(n), _rand(n), np.zeros(n, "float32")
    fn(a, b, c)
    np.testing.assert_allclose(c, a + b * 2, rtol=1e-6)


def test_exp_matches_numpy(kernels):
    _, fn = kernels("exp")
    a = _rand(5000)
    b = np.zeros_like(a)
    fn(a, b)
    np.testing.assert_allclose(b, np.exp(a), rtol=1e-6)


@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (17, 1023)])
def test_broadcast_symbolic(kernels, shape):
    func, fn = kernels("broadcast")
    a, bias = _rand(*shape), _rand(shape[1])
    out = _check_against_interpreter(func, fn, [a, bias, np.zeros(shape, "float32")], 1)
    np.testing.assert_allclose(out[-1], a - bias, rtol=1e-6)


@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (64, 1023)])
def test_row_sum(kernels, shape):
    _, fn = kernels("row_sum")
    a = _rand(*shape)
    out = np.zeros(shape[0], "float32")
    fn(a, out)
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-4, atol=1e-4)


def test_column_max_reorders_reduction(kernels):
    func, fn = kernels("col_max")
    a = _rand(37, 19)
    out = _check_against_interpreter(func, fn, [a, np.zeros(19, "float32")], 1)
    np.testing.assert_array_equal(out[-1], a.max(axis=0))


@pytest.mark.parametrize("name,shape", [("matmul_small", (3, 17, 5)),
                                        ("matmul_tiled", (64, 128, 64))])
def test_matmul(kernels, name, shape):
    m, n, k = shape
    func, fn = kernels(name)
    a, b = _rand(m, k), _rand(k, n)
    out = _check_against_interpreter(func, fn, [a, b, np.zeros((m, n), "float32")], 1,
                                     rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out[-1], a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (33, 1023)])
def test_softmax_rows(kernels, shape):
    _, fn = kernels("softmax")
    x = _rand(*shape)
    y = np.zeros_like(x)
    fn(x, y)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("rows", [1, 17])
def test_layer_norm_rows(kernels, rows):
    func, fn = kernels("layer_norm")
    x = _rand(rows, 64)
    out = _check_against_interpreter(func, fn, [x, np.zeros_like(x)], 1, rtol=1e-4, atol=1e-4)
    mean = x.mean(axis=1, keepdims=True)
    ref = (x - mean) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out[-1], ref, rtol=1e-4, atol=1e-4)


def test_integer_division_semantics(kernels):
    func, fn = kernels("int_div")
    a = np.array([7, -7, 7, -7, 0, 1, -1, 13, -13, 5, -5, 100, -100, 3, -3, 8], "int32")
    b = np.array([2, 2, -2, -2, 3, -3, 3, 4, 4, -4, -4, 7, 7, 1, -1, 8], "int32")
    args = [a, b] + [np.zeros(16, "int32") for _ in range(3)]
    out = _check_against_interpreter(func, fn, args, 3)
    np.testing.assert_array_equal(out[2], a // b)
    np.testing.assert_array_equal(out[3], a % b)
    np.testing.assert_array_equal(out[4], np.trunc(a / b).astype("int32"))


def test_math_intrinsics(kernels):
    _, fn = kernels("math")
    a = np.abs(_rand(33)) + 0.1
    a[::2] *= -1
    outs = [np.zeros(33, "float32") for _ in range(8)]
    fn(a, *outs)
    pos = np.abs(a)
    from math import erf

    refs = [np.exp(a), None, None, np.tanh(a), 1 / (1 + np.exp(-a)),
            np.array([erf(v) for v in a], "float32"), np.floor(a), pos]
    np.testing.assert_allclose(outs[1][1::2], np.log(a[1::2]), rtol=1e-6)
    np.testing.assert_allclose(outs[2][1::2], np.sqrt(a[1::2]), rtol=1e-6)
    for got, ref in zip(outs, refs):
        if ref is not None:
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_cast_and_select(kernels):
    func, fn = kernels("cast_select")
    a = _rand(40) * 3
    out = _check_against_interpreter(func, fn, [a, np.zeros(40, "int32"),
                                                np.zeros(40, "float64")], 2)
    np.testing.assert_array_equal(out[1], np.where(a > 0, a.astype("int32"), -1))
    np.testing.assert_array_equal(out[2], (a > 0.5).astype("float64"))


def test_runtime_tensor_arguments(kernels):
    _, fn = kernels("add_sym")
    a, b = _rand(10), _rand(10)
    ta, tb = tvm.runtime.tensor(a), tvm.runtime.tensor(b)
    tc = tvm.runtime.tensor(np.zeros(10, "float32"))
    fn(ta, tb, tc)
    np.testing.assert_allclose(tc.numpy(), a + b * 2, rtol=1e-6)


def test_small_ints_float64_and_bool(kernels):
    _, fn = kernels("dtypes")
    u = np.arange(50, dtype="uint8") * 5
    d = np.linspace(-2, 2, 50)
    v, e, g = np.zeros(50, "uint8"), np.zeros(50, "float64"), np.zeros(50, "bool")
    fn(u, d, v, e, g)
    np.testing.assert_array_equal(v, (u.astype("int64") + 200) % 256)
    np.testing.assert_allclose(e, np.exp(d) + np.tanh(d), rtol=1e-13)
    np.testing.assert_array_equal(g, d > 0)


def test_int64_shapes(kernels):
    _, fn = kernels("int64")
    a = _rand(7, 3)
    b = np.zeros_like(a)
    fn(a, b)
    np.testing.assert_allclose(b, a * 3, rtol=1e-6)


@pytest.mark.parametrize("m", [1, 5, 64])
def test_matmul_symbolic_rows(kernels, m):
    _, fn = kernels("matmul_sym")
    a, b = _rand(m, 24), _rand(24, 10)
    c = np.zeros((m, 10), "float32")
    fn(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("fmt", ["float8_e4m3fn", "float8_e5m2"])
def test_float8_storage_rounds_like_ml_dtypes(kernels, fmt):
    import ml_dtypes

    _, fn = kernels(fmt)
    dt = getattr(ml_dtypes, fmt)
    x = np.concatenate([
        RNG.standard_normal(2000).astype("float32") * 300,
        np.geomspace(2.0**-20, 2.0**-5, 300).astype("float32"),  # subnormal range and ties
        np.array([448, 464, 480, 500, 57344, 61440, 65536, 1e9, np.inf, -np.inf, np.nan,
                  -np.nan, 0.0, -0.0], "float32"),
    ])
    x = np.concatenate([x, -x])
    b = tvm.runtime.tensor(np.zeros(x.size, dt))
    c = np.zeros_like(x)
    fn(x, b, c)
    ref = x.astype(dt)
    np.testing.assert_array_equal(b.numpy().view(np.uint8), ref.view(np.uint8))
    np.testing.assert_array_equal(c, ref.astype("float32") * 2)
