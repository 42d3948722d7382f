"""``tvm.compile(..., target="cuda")`` and Relax on a real GPU: numbers against NumPy.

Every test here needs a CUDA GPU with its driver and cuda-bindings
(``tvm.testing.env.requires_cuda_driver``, mark ``gpu``) and nvcc; without them they are
skipped. ``tests/gpu/run_gpu_checks.sh`` runs them (``pytest -m gpu``) on a GPU machine; the
same paths are covered without a GPU by the fake-driver tests in ``tests/backend/cuda``.
"""

import shutil

import numpy as np
import pytest

import tvm
from tvm import relax, te, topi
from tvm.script import tirx as T
from tvm.testing import env

pytestmark = [*env.requires_cuda_driver.marks(),
              pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")]


def _needs_dlight():
    pytest.importorskip("tvm.s_tir.dlight", reason="needs the default GPU schedules")


@T.prim_func
def add_n(a: T.handle, b: T.handle, c: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for bx in T.thread_binding((n + 127) // 128, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            if bx * 128 + tx < n:
                C[bx * 128 + tx] = A[bx * 128 + tx] + B[bx * 128 + tx]


def test_scheduled_kernel_runs():
    dev = tvm.cuda(0)
    mod = tvm.compile(add_n, target="cuda")
    n = 100_003
    a_np, b_np = np.random.rand(n).astype("float32"), np.random.rand(n).astype("float32")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.empty((n,), "float32", dev)
    mod["add_n"](a, b, c, n)
    np.testing.assert_allclose(c.numpy(), a_np + b_np, rtol=1e-6)


def test_default_schedule_reduction_and_elementwise():
    _needs_dlight()
    dev = tvm.cuda(0)
    A = te.placeholder((300, 1000), "float32", name="A")
    B = topi.nn.softmax(A, axis=1)
    mod = tvm.compile(te.create_prim_func([A, B]), target="cuda")
    a_np = np.random.randn(300, 1000).astype("float32")
    a = tvm.runtime.tensor(a_np, dev)
    b = tvm.runtime.empty((300, 1000), "float32", dev)
    mod["main"](a, b)
    e = np.exp(a_np - a_np.max(1, keepdims=True))
    np.testing.assert_allclose(b.numpy(), e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-6)


def test_default_schedule_fp16_matmul():
    _needs_dlight()
    dev = tvm.cuda(0)
    n = 512
    A = te.placeholder((n, n), "float16", name="A")
    B = te.placeholder((n, n), "float16", name="B")
    k = te.reduce_axis((0, n), "k")
    C = te.compute((n, n), lambda i, j: te.sum(
        A[i, k].astype("float32") * B[k, j].astype("float32"), axis=k), name="C")
    mod = tvm.compile(te.create_prim_func([A, B, C]), target="cuda")
    a_np = np.random.rand(n, n).astype("float16")
    b_np = np.random.rand(n, n).astype("float16")
    a, b = tvm.runtime.tensor(a_np, dev), tvm.runtime.tensor(b_np, dev)
    c = tvm.runtime.empty((n, n), "float32", dev)
    mod["main"](a, b, c)
    ref = a_np.astype("float32") @ b_np.astype("float32")
    np.testing.assert_allclose(c.numpy(), ref, rtol=1e-3, atol=1e-2)


def test_relax_mlp_on_gpu():
    _needs_dlight()
    from tvm.relax.testing import nn

    class MLP(nn.Module):
        def __init__(self):
            self.l1 = nn.Linear(64, 128)
            self.l2 = nn.Linear(128, 10)

        def forward(self, x):
            return self.l2(nn.emit(relax.op.nn.relu(self.l1(x))))

    bb = relax.BlockBuilder()
    with bb.function("main"):
        model = MLP()
        x = nn.Placeholder((32, 64), "float32", name="x")
        with bb.dataflow():
            out = bb.emit_output(model(x))
        bb.emit_func_output(out, [x, *model.parameters()])
    dev = tvm.cuda(0)
    ex = relax.build(bb.get(), target="cuda")
    vm = relax.VirtualMachine(ex, dev)
    rng = np.random.default_rng(0)
    shapes = [(32, 64), (64, 128), (128,), (128, 10), (10,)]
    args = [rng.standard_normal(s).astype("float32") for s in shapes]
    out = vm["main"](*[tvm.runtime.tensor(a, dev) for a in args])
    x_np, w1, b1, w2, b2 = args
    ref = np.maximum(x_np @ w1 + b1, 0) @ w2 + b2
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4, atol=1e-4)


def test_time_evaluator_uses_device_timer():
    dev = tvm.cuda(0)
    mod = tvm.compile(add_n, target="cuda")
    n = 1 << 20
    a = tvm.runtime.empty((n,), "float32", dev)
    timer = mod.time_evaluator("add_n", dev, number=5, repeat=2)
    result = timer(a, a, a, n)
    assert len(result.results) == 2 and all(t > 0 for t in result.results)
