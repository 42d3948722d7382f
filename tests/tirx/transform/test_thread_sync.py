"""ThreadSync("shared"): barriers before cross-thread shared-memory hazards."""

import numpy as np
import pytest

import tvm
from tvm.script import tirx as T
from tvm.tirx.gpu_simulator import simulate_prim_func
from tvm.tirx.transform import ThreadSync


def _sync(func):
    return ThreadSync("shared")(tvm.IRModule({"main": func}))["main"]


def test_read_after_write_gets_a_barrier():
    @T.prim_func
    def before(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S = T.alloc_buffer((32,), scope="shared")
            S[tx] = A[tx]
            B[tx] = S[31 - tx]

    after = _sync(before)
    lines = [ln.strip() for ln in after.script().splitlines()]
    at = lines.index('T.tvm_storage_sync("shared")')
    assert lines[at - 1] == "S[tx] = A[tx]" and lines[at + 1] == "B[tx] = S[31 - tx]"
    a = np.arange(32, dtype="float32")
    b = np.zeros_like(a)
    simulate_prim_func(after, [a, b])
    np.testing.assert_array_equal(b, a[::-1])


def test_loop_carried_write_after_read_gets_a_barrier_at_the_top():
    @T.prim_func
    def before(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S = T.alloc_buffer((32,), scope="shared")
            for it in range(4):
                S[tx] = A[it, tx]
                B[it, tx] = S[31 - tx]

    after = _sync(before)
    text = after.script()
    # One barrier between the store and the load, one at the top of the body.
    assert text.count("T.tvm_storage_sync") == 2
    body = text.split("for it in range(4):")[1]
    assert body.strip().startswith('T.tvm_storage_sync("shared")')
    a = np.random.default_rng(0).uniform(size=(4, 32)).astype("float32")
    b = np.zeros_like(a)
    simulate_prim_func(after, [a, b])
    np.testing.assert_array_equal(b, a[:, ::-1])


def test_barrier_goes_before_a_thread_dependent_branch():
    @T.prim_func
    def before(A: T.Buffer((32,), "float32"), B: T.Buffer((1,), "float32")):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S = T.alloc_buffer((32,), scope="shared")
            S[tx] = A[tx]
            if tx == 0:
                B[0] = S[5] + S[7]

    text = _sync(before).script()
    assert text.index("T.tvm_storage_sync") < text.index("if tx == 0")


def test_no_barrier_without_shared_memory_or_hazard():
    @T.prim_func
    def before(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            L = T.alloc_buffer((1,), scope="local")
            S = T.alloc_buffer((32,), scope="shared")
            L[0] = A[tx]
            S[tx] = L[0]
            B[tx] = L[0]

    assert "tvm_storage_sync" not in _sync(before).script()


def test_host_code_is_left_alone():
    @T.prim_func
    def before(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(1)

    after = _sync(before)
    tvm.ir.assert_structural_equal(after, before)


def test_unsupported_scope():
    with pytest.raises(ValueError, match="'global' is not supported"):
        ThreadSync("global")


def test_symbolic_grid_extent_still_gets_barriers():
    @T.prim_func
    def before(a: T.handle, b: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n, 32), "float32")
        B = T.match_buffer(b, (n, 32), "float32")
        for bx in T.thread_binding(n, thread="blockIdx.x"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                S = T.alloc_buffer((32,), scope="shared")
                S[tx] = A[bx, tx]
                B[bx, tx] = S[31 - tx]

    after = _sync(before)
    assert after.script().count("T.tvm_storage_sync") == 1
    a = np.random.default_rng(1).uniform(size=(3, 32)).astype("float32")
    b = np.zeros_like(a)
    simulate_prim_func(after, [a, b])
    np.testing.assert_array_equal(b, a[:, ::-1])


def test_data_dependent_branch_counts_as_divergent():
    @T.prim_func
    def before(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S = T.alloc_buffer((32,), scope="shared")
            S[tx] = A[tx]
            if A[tx] > T.float32(0):
                B[tx] = S[31 - tx]

    text = _sync(before).script()
    assert text.index("T.tvm_storage_sync") < text.index("if A[tx]")


def test_uniform_branch_gets_the_barrier_inside():
    @T.prim_func
    def before(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32"), n: T.int32):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            S = T.alloc_buffer((32,), scope="shared")
            if n > 0:
                S[tx] = A[tx]
                B[tx] = S[31 - tx]

    # The same branch for every thread: the barrier can go inside it.
    lines = [ln.strip() for ln in _sync(before).script().splitlines()]
    at = lines.index('T.tvm_storage_sync("shared")')
    assert lines[at - 1] == "S[tx] = A[tx]" and lines[at - 2] == "if n > 0:"
