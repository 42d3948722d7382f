"""Functions scheduled with tvm.s_tir.Schedule compile and compute what NumPy computes."""

import numpy as np
import pytest

import tvm
from tvm import te

RNG = np.random.default_rng(7)


def _matmul_exp(m=67, n=40, k_=48):
    A = te.placeholder((m, k_), "float32", name="A")
    B = te.placeholder((k_, n), "float32", name="B")
    k = te.reduce_axis((0, k_), name="k")
    C = te.compute((m, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((m, n), lambda i, j: te.exp(C[i, j] * 0.01), name="D")
    return te.create_prim_func([A, B, D])


def _tile_parallel_vectorize(sch):
    c = sch.get_sblock("C")
    i, j, k = sch.get_loops(c)
    i0, i1 = sch.split(i, factors=[None, 8])  # 67 is not a multiple of 8: predicated tail
    j0, j1 = sch.split(j, factors=[None, 16])
    sch.reorder(i0, j0, k, i1, j1)
    sch.parallel(i0)
    sch.vectorize(j1)
    sch.unroll(i1)
    sch.decompose_reduction(c, k)


def _fuse_split_parallel(sch):
    d = sch.get_sblock("D")
    fused = sch.fuse(*sch.get_loops(d))
    outer, _ = sch.split(fused, factors=[None, 32])
    sch.parallel(outer)


def _compute_at(sch):
    c = sch.get_sblock("C")
    d = sch.get_sblock("D")
    i, _ = sch.get_loops(d)
    sch.compute_at(c, i)
    sch.parallel(i)


def _cache_write(sch):
    c = sch.get_sblock("C")
    sch.cache_write(c, 0, "local")


SCHEDULES = {
    "tile_parallel_vectorize": _tile_parallel_vectorize,
    "fuse_split_parallel": _fuse_split_parallel,
    "compute_at": _compute_at,
    "cache_write": _cache_write,
}


@pytest.fixture(scope="module")
def compiled():
    funcs = {}
    for name, apply in SCHEDULES.items():
        sch = tvm.s_tir.Schedule(_matmul_exp())
        apply(sch)
        funcs[name] = sch.mod["main"].with_attr("global_symbol", name)
    return tvm.compile(tvm.IRModule(funcs))


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_scheduled_matmul_exp(compiled, name):
    a = RNG.standard_normal((67, 48)).astype("float32")
    b = RNG.standard_normal((48, 40)).astype("float32")
    out = np.zeros((67, 40), "float32")
    compiled[name](a, b, out)
    np.testing.assert_allclose(out, np.exp((a @ b) * 0.01), rtol=1e-5, atol=1e-6)


def _row_sum_of_squares(m=33, n=100):
    A = te.placeholder((m, n), "float32", name="A")
    S = te.compute((m, n), lambda i, j: A[i, j] * A[i, j], name="S")
    k = te.reduce_axis((0, n), name="k")
    B = te.compute((m,), lambda i: te.sum(S[i, k], axis=k), name="B")
    return te.create_prim_func([A, B])


def test_compute_inline_and_rfactor():
    sch = tvm.s_tir.Schedule(_row_sum_of_squares())
    sch.compute_inline(sch.get_sblock("S"))
    b = sch.get_sblock("B")
    _, k = sch.get_loops(b)
    _, k1 = sch.split(k, factors=[None, 4])
    sch.rfactor(k1, 1)
    lib = tvm.compile(sch.mod)
    a = RNG.standard_normal((33, 100)).astype("float32")
    out = np.zeros(33, "float32")
    lib["main"](a, out)
    np.testing.assert_allclose(out, (a * a).sum(axis=1), rtol=1e-5, atol=1e-5)
