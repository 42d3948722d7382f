"""CommonSubexprElim: Before/Expected TVMScript pairs, eligibility rules, SSA and a numeric run."""

import numpy as np

import tvm
from tvm.script import tirx as T


def _cse(func):
    mod = tvm.tirx.transform.CommonSubexprElim()(tvm.IRModule.from_expr(func))
    (result,) = mod.functions.values()
    return result


def test_nested_repeats_are_bound_shallow_first():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((8,), "float32"), p: T.float32, q: T.float32, r: T.float32):
        A[0] = (p * q) * r + p * q
        A[1] = (p * q) * r - r
        A[2] = p - q

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((8,), "float32"), p: T.float32, q: T.float32, r: T.float32):
        cse_v1 = T.bind(p * q)
        cse_v2 = T.bind(cse_v1 * r)
        A[0] = cse_v2 + cse_v1
        A[1] = cse_v2 - r
        A[2] = p - q

    tvm.ir.assert_structural_equal(_cse(before), expected)


def test_binding_goes_to_the_common_scope_of_the_uses():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((64,), "int32"), n: T.int32, m: T.int32):
        for i in range(4):
            if i < 2:
                A[i] = n * m + i
            else:
                for j in range(2):
                    A[i * 2 + j] = n * m - j
        A[63] = n - m

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((64,), "int32"), n: T.int32, m: T.int32):
        for i in range(4):
            cse_v1 = T.bind(n * m)
            if i < 2:
                A[i] = cse_v1 + i
            else:
                for j in range(2):
                    A[i * 2 + j] = cse_v1 - j
        A[63] = n - m

    tvm.ir.assert_structural_equal(_cse(before), expected)


def test_while_condition_belongs_to_the_outer_scope():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((16,), "int32"), n: T.int32):
        k = T.alloc_buffer((1,), "int32")
        k[0] = 0
        while k[0] < n * 3 - 1:
            A[k[0]] = n * 3 - 1
            k[0] = k[0] + 1

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((16,), "int32"), n: T.int32):
        k = T.alloc_buffer((1,), "int32")
        k[0] = 0
        cse_v1 = T.bind(n * 3 - 1)
        while k[0] < cse_v1:
            A[k[0]] = cse_v1
            k[0] = k[0] + 1

    tvm.ir.assert_structural_equal(_cse(before), expected)


def test_ineligible_expressions_stay():
    # bool conditions, loads, calls, casts of loads and Let bodies are not bound
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "int32"), n: T.int32):
        for i in range(8):
            if i < n and i > 1:
                A[i] = T.Cast("float32", B[i] + 1) + T.exp(A[i])
            if i < n and i > 1:
                A[i] = T.Cast("float32", B[i] + 1) + T.exp(A[i])

    tvm.ir.assert_structural_equal(_cse(before), before)


def test_single_use_child_of_a_bound_parent_gets_no_binding():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((4,), "int64"), x: T.int64, y: T.int64):
        A[0] = (x + y) * (x + y) - x
        A[1] = (x + y) * (x + y) - x

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((4,), "int64"), x: T.int64, y: T.int64):
        cse_v1 = T.bind(x + y)
        cse_v2 = T.bind(cse_v1 * cse_v1 - x)
        A[0] = cse_v2
        A[1] = cse_v2

    # x + y occurs 4 times; the bound parent consumes (2 - 1) * 2 of them: 2 remain
    tvm.ir.assert_structural_equal(_cse(before), expected)


def test_result_is_deterministic_and_runs_the_same():
    @T.prim_func(s_tir=True)
    def before(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), s: T.float32):
        for i in range(32):
            B[i] = A[i] * (s * s + T.float32(1)) + (s * s + T.float32(1)) / (s + T.float32(2))

    after = _cse(before)
    assert "cse_v1" in after.script()
    texts = {tvm.ir.save_json(_cse(before)) for _ in range(3)}
    assert len(texts) == 1
    a = np.random.default_rng(0).standard_normal(32).astype("float32")
    outs = []
    for func in (before, after):
        b = tvm.runtime.tensor(np.zeros(32, "float32"))
        tvm.compile(func, target="llvm")(tvm.runtime.tensor(a), b, 1.5)
        outs.append(b.numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)
    np.testing.assert_allclose(outs[1], a * 3.25 + 3.25 / 3.5, rtol=1e-6)
