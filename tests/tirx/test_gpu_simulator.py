"""The SIMT simulator: shared memory per CTA, local per thread, barriers, warp shuffles."""

import numpy as np
import pytest

from tvm.script import tirx as T
from tvm.tirx.gpu_simulator import simulate_prim_func
from tvm.tirx.interpreter_semantics import InterpreterError


def test_shared_memory_is_per_cta_and_barrier_orders_threads():
    @T.prim_func
    def reverse(A: T.Buffer((2, 8), "float32"), B: T.Buffer((2, 8), "float32")):
        for bx in T.thread_binding(2, thread="blockIdx.x"):
            for tx in T.thread_binding(8, thread="threadIdx.x"):
                S = T.alloc_buffer((8,), scope="shared")
                S[tx] = A[bx, tx]
                T.tvm_storage_sync("shared")
                B[bx, tx] = S[7 - tx]

    a = np.arange(16, dtype="float32").reshape(2, 8)
    b = np.zeros_like(a)
    simulate_prim_func(reverse, [a, b])
    np.testing.assert_array_equal(b, a[:, ::-1])


def test_missing_barrier_reads_unwritten_shared_memory():
    # Without the barrier thread 0 runs to its end before thread 7 writes S[7].
    @T.prim_func
    def racy(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for tx in T.thread_binding(8, thread="threadIdx.x"):
            S = T.alloc_buffer((8,), scope="shared")
            S[tx] = A[tx]
            B[tx] = S[7 - tx]

    a = np.arange(8, dtype="float32")
    b = np.zeros_like(a)
    simulate_prim_func(racy, [a, b])
    assert np.isnan(b[0])


def test_local_memory_is_per_thread():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for tx in T.thread_binding(4, thread="threadIdx.x"):
            L = T.alloc_buffer((1,), scope="local")
            L[0] = A[tx] * T.float32(2)
            T.tvm_storage_sync("shared")
            B[tx] = L[0]

    a = np.arange(4, dtype="float32")
    b = np.zeros_like(a)
    simulate_prim_func(f, [a, b])
    np.testing.assert_array_equal(b, a * 2)


def test_nested_loop_on_the_same_thread_axis_is_the_same_thread():
    @T.prim_func
    def f(B: T.Buffer((4, 4), "int32")):
        for tx in T.thread_binding(4, thread="threadIdx.x"):
            for i in range(4):
                for tx2 in T.thread_binding(4, thread="threadIdx.x"):
                    B[i, tx2] = tx * 10 + tx2

    b = np.zeros((4, 4), "int32")
    simulate_prim_func(f, [b])
    # tx2 is the same thread index as tx: every element is tx * 11.
    np.testing.assert_array_equal(b, np.tile(np.arange(4) * 11, (4, 1)))


@pytest.mark.parametrize("width", [32, 16, 8])
def test_shuffle_down_tree_sums_each_section(width):
    a = np.random.default_rng(0).uniform(size=64).astype("float32")
    b = np.zeros_like(a)

    @T.prim_func
    def unrolled(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            v = T.alloc_buffer((1,), scope="local")
            v[0] = A[tx]
            mask = T.tvm_warp_activemask()
            for s in T.unroll(5):
                if (width >> (s + 1)) > 0:
                    v[0] = v[0] + T.tvm_warp_shuffle_down(mask, v[0], width >> (s + 1), width,
                                                          32)
            B[tx] = v[0]

    simulate_prim_func(unrolled, [a, b])
    sums = a.reshape(-1, width).sum(axis=1)
    np.testing.assert_allclose(b[::width], sums, rtol=1e-6)


def test_shuffle_up_and_indexed_shuffle():
    @T.prim_func
    def f(A: T.Buffer((32,), "int32"), U: T.Buffer((32,), "int32"),
          X: T.Buffer((32,), "int32")):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            mask = T.tvm_warp_activemask()
            U[tx] = T.tvm_warp_shuffle_up(mask, A[tx], 1, 32, 32)
            X[tx] = T.tvm_warp_shuffle(mask, A[tx], 3, 8, 32)

    a = np.arange(32, dtype="int32") * 10
    u, x = np.zeros_like(a), np.zeros_like(a)
    simulate_prim_func(f, [a, u, x])
    # Lane 0 has no lane below it: it keeps its own value.
    np.testing.assert_array_equal(u, np.concatenate([[0], a[:-1]]))
    # Lane 3 of each 8-lane section.
    np.testing.assert_array_equal(x, np.repeat(a[3::8], 8))


def test_activemask_counts_live_lanes():
    @T.prim_func
    def f(M: T.Buffer((40,), "uint32")):
        for tx in T.thread_binding(40, thread="threadIdx.x"):
            M[tx] = T.tvm_warp_activemask()

    m = np.zeros(40, "uint32")
    simulate_prim_func(f, [m])
    assert m[0] == 0xFFFFFFFF and m[39] == 0xFF


def test_divergent_barrier_is_reported():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for tx in T.thread_binding(4, thread="threadIdx.x"):
            if tx < 2:
                T.tvm_storage_sync("shared")
            A[tx] = T.float32(1)
            T.tvm_storage_sync("shared")
            if tx >= 2:
                A[tx] = T.float32(2)

    with pytest.raises(InterpreterError, match="deadlock"):
        simulate_prim_func(f, [np.zeros(4, "float32")])


def test_shared_buffer_allocated_on_the_host_is_an_error():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        S = T.alloc_buffer((4,), scope="shared")
        for tx in T.thread_binding(4, thread="threadIdx.x"):
            S[tx] = A[tx]
            A[tx] = S[tx]

    with pytest.raises(InterpreterError, match="outside every thread-bound loop"):
        simulate_prim_func(f, [np.zeros(4, "float32")])


def test_unlowered_allreduce_is_an_error():
    @T.prim_func
    def f(A: T.Buffer((32,), "float32"), B: T.Buffer((1,), "float32")):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            red = T.alloc_buffer((1,), scope="local")
            T.tvm_thread_allreduce(T.uint32(1), A[tx], T.bool(True), red[0], tx)
            B[0] = red[0]

    with pytest.raises(InterpreterError, match="LowerThreadAllreduce"):
        simulate_prim_func(f, [np.zeros(32, "float32"), np.zeros(1, "float32")])


def test_host_code_and_launch_thread_attributes():
    @T.prim_func
    def f(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        B[0] = T.float32(-1)
        bx = T.launch_thread("blockIdx.x", 2)
        tx = T.launch_thread("threadIdx.x", 4)
        B[bx * 4 + tx] = A[bx * 4 + tx] + T.float32(1)

    a = np.arange(8, dtype="float32")
    b = np.zeros_like(a)
    simulate_prim_func(f, [a, b])
    np.testing.assert_array_equal(b, a + 1)
