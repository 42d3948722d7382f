"""Cases of the relax.grad ops (gradient helpers)."""

import numpy as np

from tvm import relax
from tvm.relax.op import grad

from . import Case, Err, t


def _take_backward_flat(g, x, indices):
    out = np.zeros(x.size, g.dtype)
    np.add.at(out, indices.reshape(-1), g.reshape(-1))
    return out.reshape(x.shape)


def _nll_none_backward(g, targets, weights):
    out = np.zeros((len(targets), len(weights)), g.dtype)
    for i, target in enumerate(targets):
        out[i, target] = -g[i] * weights[target]
    return out


def _avg_overlap_backward(g):
    out = np.zeros((1, 1, 3, 3), g.dtype)
    for i in range(2):
        for j in range(2):
            out[0, 0, i : i + 2, j : j + 2] += g[0, 0, i, j] / 4
    return out


def _max_pool_backward(g, x, pool, stride, pad):
    """Each gradient to the first maximum of its window (NCHW, no dilation)."""
    out = np.zeros_like(x)
    h, w = x.shape[2:]
    for i in range(g.shape[2]):
        for j in range(g.shape[3]):
            pos = [
                (i * stride - pad + a, j * stride - pad + b)
                for a in range(pool)
                for b in range(pool)
                if 0 <= i * stride - pad + a < h and 0 <= j * stride - pad + b < w
            ]
            vals = np.stack([x[:, :, r, c] for r, c in pos])
            first = np.argmax(vals, axis=0)
            for k, (r, c) in enumerate(pos):
                out[:, :, r, c] += np.where(first == k, g[:, :, i, j], 0)
    return out


CASES = [
    Case(grad.no_grad, [t((2, 3))], 'R.Tensor((2, 3), dtype="float32")', lambda x: x),
    Case(
        grad.start_checkpoint,
        [t(("n",))],
        'R.Tensor((n,), dtype="float32")',
        lambda x: x,
        sizes={"n": 2},
    ),
    Case(grad.end_checkpoint, [t((2,), "int32")], 'R.Tensor((2,), dtype="int32")', lambda x: x),
    Case(
        grad.take_backward,
        [t((3, 2)), t((4, 2)), t((3,), "int64")],
        'R.Tensor((4, 2), dtype="float32")',
        lambda g, x, i: np.array([[1, 1], [0, 0], [5, 5], [0, 0]], "float32"),
        kwargs={"axis": 0},
        inputs=[
            np.array([[1, 1], [2, 2], [3, 3]], "float32"),
            np.zeros((4, 2), "float32"),
            np.array([0, 2, 2], "int64"),
        ],
    ),
    Case(
        grad.nll_loss_backward,
        [t((), "float32"), t((2, 3)), t((2,), "int64")],
        'R.Tensor((2, 3), dtype="float32")',
        lambda g, p, y: np.array([[0, -1, 0], [-1, 0, 0]], "float32"),
        inputs=[np.array(2.0, "float32"), np.zeros((2, 3), "float32"), np.array([1, 0], "int64")],
    ),
    Case(
        grad.max_pool2d_backward,
        [t((1, 1, 1, 1)), t((1, 1, 2, 2)), (2, 2), (2, 2)],
        'R.Tensor((1, 1, 2, 2), dtype="float32")',
        lambda g, x: np.array([[[[0, 5], [0, 0]]]], "float32"),
        inputs=[np.array([[[[5.0]]]], "float32"), np.array([[[[1, 4], [3, 2]]]], "float32")],
    ),
    Case(
        grad.avg_pool2d_backward,
        [t((1, 1, 1, 1)), t((1, 1, 2, 2)), (2, 2), (2, 2)],
        'R.Tensor((1, 1, 2, 2), dtype="float32")',
        lambda g, x: np.full((1, 1, 2, 2), 1.0, "float32"),
        inputs=[np.array([[[[4.0]]]], "float32"), np.zeros((1, 1, 2, 2), "float32")],
    ),
    # More static float rows (second-order gradients, issue 9).
    Case(
        grad.take_backward,
        [t((2, 2)), t((2, 3)), t((2, 2), "int64", domain="index:6")],
        'R.Tensor((2, 3), dtype="float32")',
        lambda g, x, i: _take_backward_flat(g, x, i),
        kwargs={"axis": None},
        id="take_backward-flat",
    ),
    Case(
        grad.nll_loss_backward,
        [t((2,)), t((2, 3)), t((2,), "int64", domain="index:3"), t((3,), domain="pos")],
        'R.Tensor((2, 3), dtype="float32")',
        lambda g, p, y, w: _nll_none_backward(g, y, w),
        kwargs={"reduction": "none"},
        id="nll_loss_backward-none-weights",
    ),
    Case(
        grad.avg_pool2d_backward,
        [t((1, 1, 2, 2)), t((1, 1, 3, 3)), (2, 2), (1, 1)],
        'R.Tensor((1, 1, 3, 3), dtype="float32")',
        lambda g, x: _avg_overlap_backward(g),
        id="avg_pool2d_backward-overlap",
    ),
    Case(
        grad.max_pool2d_backward,
        [t((1, 2, 4, 4)), t((1, 2, 3, 3)), (2, 2), (1, 1), (1, 1, 1, 1)],
        'R.Tensor((1, 2, 3, 3), dtype="float32")',
        lambda g, x: _max_pool_backward(g, x, 2, 1, 1),
        id="max_pool2d_backward-overlap-pad",
    ),
    Case(
        grad.max_pool2d_backward,
        [t((1, 1, 2, 2)), t((1, 1, 3, 3)), (2, 2), (2, 2)],
        'R.Tensor((1, 1, 3, 3), dtype="float32")',
        lambda g, x: _max_pool_backward(g, x, 2, 2, 0),
        kwargs={"ceil_mode": True},
        id="max_pool2d_backward-ceil",
    ),
    Case(
        grad.take_backward,
        [t(("k", 3)), t(("n", 3)), t(("k",), "int64"), 0],
        'R.Tensor((n, 3), dtype="float32")',
        id="take_backward-sym",
    ),
    Case(
        grad.nll_loss_backward,
        [t(()), t(("n", 3)), t(("n",), "int64")],
        'R.Tensor((n, 3), dtype="float32")',
        id="nll_loss_backward-sym",
    ),
]

ERRORS = [
    Err(
        grad.start_checkpoint,
        [relax.const(np.ones(2, "float32"))],
        TypeError,
        ("The argument of relax.op.grad.start_checkpoint should be a Var.",),
    ),
    Err(
        grad.end_checkpoint,
        [relax.const(np.ones(2, "float32"))],
        TypeError,
        ("The argument of relax.op.grad.end_checkpoint should be a Var.",),
    ),
    Err(grad.take_backward, [t((3,)), (1, 2), t((3,), "int64")], TypeError, ()),
]
