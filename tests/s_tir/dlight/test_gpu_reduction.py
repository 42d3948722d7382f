"""gpu.Reduction / gpu.GeneralReduction: one row per CTA, cross-thread reductions."""

import numpy as np
import pytest

import tvm
from tvm import te, topi
from tvm.s_tir import dlight as dl
from tvm.script import tirx as T


def _row_sum(rows, n):
    A = te.placeholder((rows, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((rows,), lambda i: te.sum(A[i, k], axis=k), name="B")
    return te.create_prim_func([A, B])


@pytest.mark.parametrize("n,threads", [(7, 32), (100, 128), (600, 256)])
def test_sum_over_last_axis(gpu, n, threads):
    f = gpu.schedule(_row_sum(3, n), dl.gpu.Reduction())
    assert gpu.thread_extents(f) == {"blockIdx.x": 3, "threadIdx.x": threads}
    a = gpu.rand(3, n)
    b = np.zeros(3, "float32")
    lowered = gpu.run(f, [a, b])
    calls = gpu.calls(lowered)
    assert "tvm_warp_shuffle_down" in calls and "tvm_storage_sync" in calls
    np.testing.assert_allclose(b, a.sum(axis=1), rtol=1e-5, atol=1e-5)


def test_softmax_rows_share_shared_memory_intermediates(gpu):
    A = te.placeholder((5, 70), name="A")
    f = gpu.schedule(te.create_prim_func([A, topi.nn.softmax(A, axis=1)]),
                     dl.gpu.GeneralReduction())
    scopes = gpu.alloc_scopes(f)
    assert scopes["T_softmax_maxelem_shared"] == "shared"
    assert scopes["T_softmax_expsum_shared"] == "shared"
    a = gpu.rand(5, 70) * 4
    out = np.zeros_like(a)
    gpu.run(f, [a, out])
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_mean_with_two_row_axes(gpu):
    @T.prim_func(s_tir=True)
    def mean(A: T.Buffer((2, 3, 40), "float32"), M: T.Buffer((2, 3), "float32")):
        S = T.sblock_alloc_buffer((2, 3))
        for i, j, k in T.grid(2, 3, 40):
            with T.sblock("S"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    S[vi, vj] = T.float32(0)
                S[vi, vj] = S[vi, vj] + A[vi, vj, vk]
        for i, j in T.grid(2, 3):
            with T.sblock("M"):
                vi, vj = T.axis.remap("SS", [i, j])
                M[vi, vj] = S[vi, vj] * T.float32(1.0 / 40)

    f = gpu.schedule(mean, dl.gpu.Reduction())
    assert gpu.thread_extents(f)["blockIdx.x"] == 6
    a = gpu.rand(2, 3, 40)
    m = np.zeros((2, 3), "float32")
    gpu.run(f, [a, m])
    np.testing.assert_allclose(m, a.mean(axis=2), rtol=1e-5, atol=1e-6)


def test_reduction_declines_two_reductions_general_takes_them(gpu):
    A = te.placeholder((2, 16), name="A")
    func = te.create_prim_func([A, topi.nn.softmax(A, axis=1)])
    target = tvm.target.Target("cuda")
    assert dl.gpu.Reduction().apply(func, target, False) is None
    assert dl.gpu.GeneralReduction().apply(func, target, False) is not None


def test_full_reduction_and_windows_are_declined():
    target = tvm.target.Target("cuda")
    A = te.placeholder((64,), name="A")
    k = te.reduce_axis((0, 64), name="k")
    total = te.compute((1,), lambda _: te.sum(A[k], axis=k), name="total")
    # One row of one element: bound as a one-CTA reduction.
    assert dl.gpu.Reduction().apply(te.create_prim_func([A, total]), target, False) is not None
    X = te.placeholder((10,), name="X")
    r = te.reduce_axis((0, 3), name="r")
    win = te.compute((8,), lambda i: te.sum(X[i + r.var], axis=r), name="win")
    assert dl.gpu.Reduction().apply(te.create_prim_func([X, win]), target, False) is None


def test_full_reduction_runs_on_one_cta(gpu):
    A = te.placeholder((6, 50), name="A")
    i = te.reduce_axis((0, 6), name="i")
    j = te.reduce_axis((0, 50), name="j")
    S = te.compute((), lambda: te.sum(A[i, j], axis=[i, j]), name="S")
    M = te.compute((), lambda: S[()] / 300.0, name="M")
    f = gpu.schedule(te.create_prim_func([A, M]), dl.gpu.Reduction())
    assert gpu.thread_extents(f) == {"blockIdx.x": 1, "threadIdx.x": 256}
    a = gpu.rand(6, 50)
    m = np.zeros((), "float32")
    gpu.run(f, [a, m])
    np.testing.assert_allclose(m, a.mean(), rtol=1e-5)
