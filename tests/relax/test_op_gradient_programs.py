"""Whole programs built from ops whose gradients Apache TVM 0.27 lacks, differentiated by
``relax.transform.Gradient``, compiled by the default pipeline (legalize, fuse, LLVM) and run by
the VM: their gradients match central finite differences of the compiled forward function.
"""

from __future__ import annotations

import numpy as np

import tvm
from tvm import relax


def _check_compiled(mod, inputs, wrt):
    """Compile ``mod`` (with ``main_adjoint``); compare the adjoint with finite differences."""
    vm = relax.VirtualMachine(relax.build(mod, target="llvm"), tvm.cpu())
    loss, grads = vm["main_adjoint"](*inputs)

    def forward(*values):
        args = list(inputs)
        for i, value in zip(wrt, values):
            args[i] = np.require(value, requirements="C")
        return float(vm["main"](*args).numpy())

    assert np.isclose(float(loss.numpy()), forward(*[inputs[i] for i in wrt]))
    tvm.testing.check_numerical_grads(
        forward, [inputs[i] for i in wrt], [g.numpy() for g in grads], atol=1e-5, rtol=1e-4,
        delta=1e-6,
    )  # fmt: skip


def test_dropout_dynamic_slice_and_einsum_diagonal_program():
    """loss = sum(s * s) + mean(s) + trace(d), d = dropout(tanh(x @ w)), s = a runtime slice
    of d (its shape is only known at run time)."""
    x = relax.Var("x", relax.TensorType((4, 4), "float64"))
    w = relax.Var("w", relax.TensorType((4, 4), "float64"))
    bounds = [relax.Var(n, relax.TensorType((2,), "int64")) for n in ("begin", "end", "strides")]
    bb = relax.BlockBuilder()
    with bb.function("main", [x, w, *bounds]):
        with bb.dataflow():
            h = bb.emit(relax.op.tanh(relax.op.matmul(x, w)))
            d = bb.emit(relax.TupleGetItem(bb.emit(relax.op.nn.dropout(h, 0.3)), 0))
            s = bb.emit(relax.op.dynamic_strided_slice(d, *bounds))
            squares = bb.emit(relax.op.add(relax.op.sum(relax.op.multiply(s, s)), relax.op.mean(s)))
            trace = bb.emit(relax.op.einsum([d], "ii"))
            loss = bb.emit_output(relax.op.add(squares, trace))
        bb.emit_func_output(loss)
    mod = relax.transform.Gradient("main", require_grads=[x, w])(bb.get())
    rng = np.random.default_rng(0)
    inputs = [
        rng.uniform(-1, 1, (4, 4)),
        rng.uniform(-1, 1, (4, 4)),
        np.array([0, 1]),
        np.array([4, 4]),
        np.array([2, 1]),
    ]
    _check_compiled(mod, inputs, [0, 1])


def test_second_order_through_the_pooling_backward_ops():
    """A gradient penalty: loss = sum(avg_pool_backward(g) * v) + sum(max_pool_backward(g) * u),
    differentiated with respect to the output gradient ``g``."""
    g = relax.Var("g", relax.TensorType((1, 2, 2, 2), "float64"))
    x = relax.Var("x", relax.TensorType((1, 2, 4, 4), "float64"))
    v = relax.Var("v", relax.TensorType((1, 2, 4, 4), "float64"))
    bb = relax.BlockBuilder()
    with bb.function("main", [g, x, v]):
        with bb.dataflow():
            avg = bb.emit(relax.op.grad.avg_pool2d_backward(g, x, (2, 2), (2, 2)))
            top = bb.emit(relax.op.grad.max_pool2d_backward(g, x, (2, 2), (2, 2)))
            mixed = bb.emit(relax.op.add(relax.op.multiply(avg, v), relax.op.multiply(top, x)))
            loss = bb.emit_output(relax.op.sum(mixed))
        bb.emit_func_output(loss)
    mod = relax.transform.Gradient("main", require_grads=[g])(bb.get())
    rng = np.random.default_rng(1)
    inputs = [rng.uniform(-1, 1, s) for s in ((1, 2, 2, 2), (1, 2, 4, 4), (1, 2, 4, 4))]
    _check_compiled(mod, inputs, [0])
