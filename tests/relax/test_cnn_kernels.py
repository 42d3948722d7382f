"""Kernels of the CNN training step (``benchmarks/train_step.py``, workload ``cnn``), legalized,
default-scheduled and compiled: the 2x2/stride-2 max-pool gradient (elementwise form, first
maximum wins ties) and the padded 3x3 convolution, against NumPy."""

import numpy as np

import tvm
from tvm import relax
from tvm.relax.op import grad as G
from tvm.relax.op import nn
from tvm.s_tir.default_schedule import schedule_prim_func
from tvm.tirx.stmt import SBlock
from tvm.tirx.stmt_functor import post_order_visit


def _module(build):
    bb = relax.BlockBuilder()
    params, body = build()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(bb.emit(body))
        bb.emit_func_output(out)
    return relax.transform.LegalizeOps()(bb.get())


def _run(mod, *arrays):
    ex = tvm.compile(mod, target="llvm")
    vm = relax.VirtualMachine(ex, tvm.cpu())
    return vm["main"](*[tvm.runtime.tensor(a) for a in arrays]).numpy()


def _pool_module(n, c, h, w):
    def build():
        g = relax.Var("g", relax.TensorType((n, c, h // 2, w // 2), "float32"))
        x = relax.Var("x", relax.TensorType((n, c, h, w), "float32"))
        return [g, x], G.max_pool2d_backward(g, x, pool_size=[2, 2], strides=[2, 2],
                                             padding=[0, 0, 0, 0])

    return _module(build)


def _max_pool_grad_ref(g, x):
    n, c, h, w = x.shape
    win = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5)
    first = win.reshape(n, c, h // 2, w // 2, 4).argmax(-1)  # first maximum in row-major order
    out = np.zeros((n, c, h // 2, w // 2, 4), "float32")
    np.put_along_axis(out, first[..., None], g[..., None], -1)
    out = out.reshape(n, c, h // 2, w // 2, 2, 2).transpose(0, 1, 2, 4, 3, 5)
    return out.reshape(n, c, h, w)


def _blocks(func):
    found = []
    post_order_visit(func.body, lambda s: found.append(s) if isinstance(s, SBlock) else None)
    return {b.name_hint: b for b in found}


def test_max_pool2d_backward_is_elementwise_over_the_input():
    mod = _pool_module(2, 3, 8, 8)
    blocks = _blocks(schedule_prim_func(mod["max_pool2d_backward"]))
    grad = blocks["pool_grad"]
    # No loop over the window: one store per input element, no reduction iterators.
    assert all(iv.iter_type == tvm.tirx.IterVar.DataPar for iv in grad.iter_vars)
    assert grad.init is None


def test_max_pool2d_backward_cnn_shape_first_max_wins():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, (64, 8, 28, 28)).astype("float32")  # ties in most windows
    g = rng.standard_normal((64, 8, 14, 14)).astype("float32")
    out = _run(_pool_module(64, 8, 28, 28), g, x)
    np.testing.assert_array_equal(out, _max_pool_grad_ref(g, x))


def test_conv2d_pad1_add_relu():
    rng = np.random.default_rng(1)
    xs, ws = (4, 1, 28, 28), (8, 1, 3, 3)

    def build():
        x = relax.Var("x", relax.TensorType(xs, "float32"))
        w = relax.Var("w", relax.TensorType(ws, "float32"))
        b = relax.Var("b", relax.TensorType((1, 8, 1, 1), "float32"))
        return [x, w, b], nn.relu(relax.op.add(nn.conv2d(x, w, padding=[1, 1]), b))

    mod = _module(build)
    mod = relax.transform.FuseTIR()(relax.transform.FuseOps()(
        relax.transform.AnnotateTIROpPattern()(mod)))
    x = rng.standard_normal(xs).astype("float32")
    w = rng.standard_normal(ws).astype("float32")
    b = rng.standard_normal((1, 8, 1, 1)).astype("float32")
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((4, 8, 28, 28), "float32")
    for r in range(3):
        for s in range(3):
            ref += xp[:, :, r:r + 28, s:s + 28] * w[None, :, 0, r, s, None, None]
    np.testing.assert_allclose(_run(mod, x, w, b), np.maximum(ref + b, 0), rtol=1e-5,
                               atol=1e-5)
