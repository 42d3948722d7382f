"""gpu.Matmul: shared-memory operand tiles, a register tile per thread, epilogues inlined."""

import numpy as np
import pytest

import tvm
from tvm import te
from tvm.s_tir import dlight as dl


def _matmul(m, n, k, transpose_b=False, batch=None):
    shape_a = (m, k) if batch is None else (batch, m, k)
    shape_b = ((n, k) if transpose_b else (k, n)) if batch is None else (batch, k, n)
    A = te.placeholder(shape_a, name="A")
    B = te.placeholder(shape_b, name="B")
    r = te.reduce_axis((0, k), name="r")
    if batch is not None:
        C = te.compute((batch, m, n), lambda b, i, j: te.sum(A[b, i, r] * B[b, r, j], axis=r),
                       name="C")
    elif transpose_b:
        C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[j, r], axis=r), name="C")
    else:
        C = te.compute((m, n), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return te.create_prim_func([A, B, C])


def test_structure_on_a_large_matmul(gpu):
    f = gpu.schedule(_matmul(512, 512, 256), dl.gpu.Matmul())
    assert gpu.thread_extents(f) == {"blockIdx.x": 8, "blockIdx.y": 8,
                                     "threadIdx.x": 16, "threadIdx.y": 16}
    assert gpu.threads_per_block(f) == 256
    lowered = tvm.s_tir.transform.lower_for_gpu(f)
    shapes = {}

    def visit(node):
        if type(node).__name__ == "AllocBuffer":
            shapes[node.buffer.name] = (node.buffer.scope(),
                                        tuple(int(d) for d in node.buffer.shape))

    tvm.tirx.stmt_functor.post_order_visit(lowered.body, visit)
    # 64 x 16 / 16 x 64 operand tiles, 4 x 4 accumulators.
    assert shapes == {"A_shared": ("shared", (64, 16)), "B_shared": ("shared", (16, 64)),
                      "C_local": ("local", (4, 4))}
    assert gpu.calls(lowered).count("tvm_storage_sync") == 2


@pytest.mark.parametrize("m,n,k", [(20, 12, 36), (33, 17, 5), (1, 10, 20)])
def test_shapes_that_are_not_tile_multiples(gpu, m, n, k):
    f = gpu.schedule(_matmul(m, n, k), dl.gpu.Matmul())
    a, b = gpu.rand(m, k), gpu.rand(k, n, seed=1)
    c = np.zeros((m, n), "float32")
    gpu.run(f, [a, b, c])
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_transposed_operand_and_small_custom_tiles(gpu):
    f = gpu.schedule(_matmul(24, 20, 30, transpose_b=True),
                     dl.gpu.Matmul(threads=(4, 4), thread_tile=(2, 2), k_tile=8))
    assert gpu.threads_per_block(f) == 16
    a, b = gpu.rand(24, 30), gpu.rand(20, 30, seed=1)
    c = np.zeros((24, 20), "float32")
    gpu.run(f, [a, b, c])
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-5)


def test_batch_matmul_binds_blockidx_z(gpu):
    f = gpu.schedule(_matmul(9, 8, 12, batch=2), dl.gpu.Matmul())
    assert gpu.thread_extents(f)["blockIdx.z"] == 2
    a, b = gpu.rand(2, 9, 12), gpu.rand(2, 12, 8, seed=1)
    c = np.zeros((2, 9, 8), "float32")
    gpu.run(f, [a, b, c])
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_bias_relu_epilogue_is_fused_into_the_write_back(gpu):
    A = te.placeholder((10, 16), name="A")
    B = te.placeholder((16, 6), name="B")
    bias = te.placeholder((6,), name="bias")
    r = te.reduce_axis((0, 16), name="r")
    C = te.compute((10, 6), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    D = te.compute((10, 6), lambda i, j: te.max(C[i, j] + bias[j], 0.0), name="D")
    f = gpu.schedule(te.create_prim_func([A, B, bias, D]), dl.gpu.Matmul())
    assert 'T.sblock("D")' not in f.script()
    a, b, bb = gpu.rand(10, 16), gpu.rand(16, 6, seed=1), gpu.rand(6, seed=2)
    d = np.zeros((10, 6), "float32")
    gpu.run(f, [a, b, bb, d])
    np.testing.assert_allclose(d, np.maximum(a @ b + bb, 0), rtol=1e-5, atol=1e-5)


def test_declines_non_matmul_reductions():
    A = te.placeholder((4, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((4,), lambda i: te.sum(A[i, k], axis=k), name="B")
    assert dl.gpu.Matmul().apply(te.create_prim_func([A, B]), tvm.target.Target("cuda"),
                                 False) is None


def test_fp16_operands_fp32_accumulator(gpu):
    A = te.placeholder((20, 24), "float16", name="A")
    B = te.placeholder((24, 12), "float16", name="B")
    r = te.reduce_axis((0, 24), name="r")
    C = te.compute((20, 12), lambda i, j: te.sum(
        A[i, r].astype("float32") * B[r, j].astype("float32"), axis=r), name="C")
    f = gpu.schedule(te.create_prim_func([A, B, C]), dl.gpu.Matmul())
    lowered = tvm.s_tir.transform.lower_for_gpu(f)
    dtypes = {}

    def visit(node):
        if type(node).__name__ == "AllocBuffer":
            dtypes[node.buffer.name] = node.buffer.dtype

    tvm.tirx.stmt_functor.post_order_visit(lowered.body, visit)
    assert dtypes == {"A_shared": "float16", "B_shared": "float16", "C_local": "float32"}
    a = gpu.rand(20, 24).astype("float16")
    b = gpu.rand(24, 12, seed=1).astype("float16")
    c = np.zeros((20, 12), "float32")
    gpu.run(f, [a, b, c])
    np.testing.assert_allclose(c, a.astype("float32") @ b.astype("float32"), rtol=1e-5,
                               atol=1e-5)
