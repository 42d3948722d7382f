"""Cases of the relax.grad ops (gradient helpers)."""

import numpy as np

from tvm import relax
from tvm.relax.op import grad

from . import Case, Err, t

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
