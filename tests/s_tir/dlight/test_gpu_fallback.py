"""gpu.Fallback: every spatial nest over blockIdx.x x threadIdx.x; reductions serial."""

import numpy as np

import tvm
from tvm import te
from tvm.s_tir import dlight as dl


def _scale(n):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2.0 + 1.0, name="B")
    return te.create_prim_func([A, B])


def test_elementwise_exact_fit_and_large_extent(gpu):
    for n in (100, 3000):
        f = gpu.schedule(_scale(n), dl.gpu.Fallback())
        ext = gpu.thread_extents(f)
        assert ext["threadIdx.x"] == min(n, 1024)
        assert ext["blockIdx.x"] == -(-n // min(n, 1024))
        a = gpu.rand(n)
        b = np.zeros_like(a)
        gpu.run(f, [a, b])
        np.testing.assert_allclose(b, a * 2 + 1, rtol=1e-6)


def test_producers_are_inlined_and_reduction_is_serial_per_thread(gpu):
    A = te.placeholder((6, 40), name="A")
    E = te.compute((6, 40), lambda i, j: te.exp(A[i, j]), name="E")
    k = te.reduce_axis((0, 40), name="k")
    S = te.compute((6,), lambda i: te.sum(E[i, k], axis=k), name="S")
    C = te.compute((6,), lambda i: S[i] * 0.5, name="C")
    f = gpu.schedule(te.create_prim_func([A, C]), dl.gpu.Fallback())
    text = f.script()
    assert 'T.sblock("E")' not in text  # inlined into the sum
    assert "S_init" in text  # the init is decomposed in front of the serial k loop
    lowered = tvm.s_tir.transform.lower_for_gpu(f)
    assert "tvm_thread_allreduce" not in gpu.calls(lowered)
    a = gpu.rand(6, 40)
    c = np.zeros(6, "float32")
    gpu.run(f, [a, c])
    np.testing.assert_allclose(c, np.exp(a).sum(axis=1) * 0.5, rtol=1e-5)


def test_already_bound_block_is_left_alone(gpu):
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    sch = tvm.s_tir.Schedule(te.create_prim_func([A, B]))
    (i,) = sch.get_loops(sch.get_sblock("B"))
    io, ii = sch.split(i, [None, 16])
    sch.bind(io, "blockIdx.x")
    sch.bind(ii, "threadIdx.x")
    f = gpu.schedule(sch.mod["main"], dl.gpu.Fallback())
    assert gpu.thread_extents(f) == {"blockIdx.x": 4, "threadIdx.x": 16}


def test_matches_oracle_shape_for_two_dims(gpu):
    # Apache TVM 0.27's Fallback fuses (i, j) and splits by max_num_threads; we split by the
    # extent when it fits (400 threads instead of 1024 with a predicate).
    A = te.placeholder((4, 100), name="A")
    B = te.compute((4, 100), lambda i, j: A[i, j] + 1.0, name="B")
    f = gpu.schedule(te.create_prim_func([A, B]), dl.gpu.Fallback())
    assert "i_j_fused" in f.script()
    assert gpu.thread_extents(f) == {"blockIdx.x": 1, "threadIdx.x": 400}
