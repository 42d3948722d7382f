"""Cases of shape manipulation ops."""

import numpy as np

from tvm import relax, tirx
from tvm.relax import op

from . import Case, Err, t

F = "float32"


def _split_ref(x, sections, axis):
    size = -(-x.shape[axis] // sections)
    return tuple(np.split(x, [size * i for i in range(1, sections)], axis=axis))


def _scatter_mul_axis1(data, indices, updates):
    out = data.copy()
    for r in range(indices.shape[0]):
        for c in range(indices.shape[1]):
            out[r, indices[r, c]] *= updates[r, c]
    return out


def _sequential_mean(data, indices, updates):
    """scatter_elements(axis=1, reduction="mean") of 2-D arrays: each update averages with
    what is there, in index order."""
    out = np.array(data)
    for i in range(indices.shape[0]):
        for j in range(indices.shape[1]):
            k = indices[i, j] % data.shape[1]
            out[i, k] = (out[i, k] + updates[i, j]) / 2
    return out


CASES = [
    Case(
        op.reshape,
        [t((2, 3)), (3, 2)],
        'R.Tensor((3, 2), dtype="float32")',
        lambda x: x.reshape(3, 2),
    ),
    Case(
        op.reshape,
        [t((2, 3)), (-1,)],
        'R.Tensor((6,), dtype="float32")',
        lambda x: x.reshape(-1),
        id="reshape-infer-dim",
    ),
    Case(
        op.permute_dims,
        [t((2, 3, 4)), [2, 0, 1]],
        'R.Tensor((4, 2, 3), dtype="float32")',
        lambda x: x.transpose(2, 0, 1),
    ),
    Case(
        op.permute_dims,
        [t(("n", 3))],
        'R.Tensor((3, n), dtype="float32")',
        lambda x: x.T,
        sizes={"n": 2},
        id="permute_dims-reverse",
    ),
    Case(
        op.broadcast_to,
        [t((3, 1)), (2, 3, 4)],
        'R.Tensor((2, 3, 4), dtype="float32")',
        lambda x: np.broadcast_to(x, (2, 3, 4)),
    ),
    Case(
        op.expand_dims,
        [t((2, 3)), [0, -1]],
        'R.Tensor((1, 2, 3, 1), dtype="float32")',
        lambda x: x[None, :, :, None],
    ),
    Case(
        op.expand_dims,
        [t(("n", 3)), 1],
        'R.Tensor((n, 1, 3), dtype="float32")',
        lambda x: x[:, None],
        sizes={"n": 2},
        id="expand_dims-sym",
    ),
    Case(op.squeeze, [t((1, 3, 1))], 'R.Tensor((3,), dtype="float32")', np.squeeze),
    Case(
        op.squeeze,
        [t((1, 3, 1)), [0]],
        'R.Tensor((3, 1), dtype="float32")',
        lambda x: x[0],
        id="squeeze-axis",
    ),
    Case(op.flatten, [t((2, 3, 2))], 'R.Tensor((12,), dtype="float32")', lambda x: x.ravel()),
    Case(
        op.flatten,
        [t(("n", 3))],
        'R.Tensor((n * 3,), dtype="float32")',
        lambda x: x.ravel(),
        sizes={"n": 2},
        id="flatten-sym",
    ),
    Case(
        op.concat,
        [[t((2, 3)), t((4, 3))]],
        'R.Tensor((6, 3), dtype="float32")',
        lambda a, b: np.concatenate([a, b]),
    ),
    Case(
        op.concat,
        [[t((2, "n")), t((2, "m"))], 1],
        'R.Tensor((2, n + m), dtype="float32")',
        lambda a, b: np.concatenate([a, b], 1),
        sizes={"n": 1, "m": 2},
        id="concat-sym",
    ),
    Case(
        op.concat,
        [[t((2,)), t((6,))], None],
        'R.Tensor((8,), dtype="float32")',
        lambda a, b: np.concatenate([a, b]),
        id="concat-axis-none",
    ),
    # An extension of TVM (which needs 1-D inputs with axis=None): NumPy's flattening.
    Case(
        op.concat,
        [[t((2, 3)), t((1, 4))], None],
        'R.Tensor((10,), dtype="float32")',
        lambda a, b: np.concatenate([a.ravel(), b.ravel()]),
        id="concat-flatten",
    ),
    Case(
        op.stack,
        [[t((2, 3)), t((2, 3))], 1],
        'R.Tensor((2, 2, 3), dtype="float32")',
        lambda a, b: np.stack([a, b], 1),
    ),
    Case(
        op.split,
        [t((2, 7)), 3, 1],
        'R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((2, 3), dtype="float32"), '
        'R.Tensor((2, 1), dtype="float32"))',
        lambda x: _split_ref(x, 3, 1),
    ),
    Case(
        op.split,
        [t((6, 2)), [1, 4]],
        'R.Tuple(R.Tensor((1, 2), dtype="float32"), R.Tensor((3, 2), dtype="float32"), '
        'R.Tensor((2, 2), dtype="float32"))',
        lambda x: tuple(np.split(x, [1, 4])),
        id="split-indices",
    ),
    Case(
        op.collapse_sum_like,
        [t((2, 3, 4)), t((3, 1))],
        'R.Tensor((3, 1), dtype="float32")',
        lambda x, y: x.sum(axis=(0, 2)).reshape(3, 1),
    ),
    Case(
        op.collapse_sum_to,
        [t((2, 3)), (1, 3)],
        'R.Tensor((1, 3), dtype="float32")',
        lambda x: x.sum(0, keepdims=True),
    ),
    Case(
        op.repeat,
        [t((2, 3)), 2, 1],
        'R.Tensor((2, 6), dtype="float32")',
        lambda x: np.repeat(x, 2, 1),
    ),
    Case(
        op.repeat,
        [t((2, 3)), 2],
        'R.Tensor((12,), dtype="float32")',
        lambda x: np.repeat(x, 2),
        id="repeat-flat",
    ),
    Case(op.tile, [t((2, 3)), [2]], 'R.Tensor((2, 6), dtype="float32")', lambda x: np.tile(x, 2)),
    Case(
        op.tile,
        [t((2, 3)), [2, 1, 2]],
        'R.Tensor((2, 2, 6), dtype="float32")',
        lambda x: np.tile(x, (2, 1, 2)),
        id="tile-more-dims",
    ),
    Case(op.flip, [t((2, 3)), 1], 'R.Tensor((2, 3), dtype="float32")', lambda x: np.flip(x, 1)),
    Case(
        op.gather_elements,
        [t((2, 3)), t((2, 2), "int64", domain="index:2"), 1],
        'R.Tensor((2, 2), dtype="float32")',
        lambda x, i: np.take_along_axis(x, i, 1),
    ),
    Case(
        op.scatter_elements,
        [t((3, 3)), t((1, 2), "int64", domain="index:3"), t((1, 2))],
        'R.Tensor((3, 3), dtype="float32")',
        None,
    ),
    Case(
        op.scatter_elements,
        [t((3,)), t((4,), "int64"), t((4,))],
        'R.Tensor((3,), dtype="float32")',
        lambda d, i, u: np.array([1.0, 7.0, 3.0], "float32"),
        kwargs={"reduction": "add"},
        inputs=[
            np.zeros(3, "float32"),
            np.array([0, 1, 2, 1], "int64"),
            np.array([1, 3, 3, 4], "float32"),
        ],
        id="scatter_elements-add",
    ),
    Case(
        op.one_hot,
        [
            t((3,), "int64", domain="index:4"),
            relax.prim_value(tirx.FloatImm(F, 1.0)),
            relax.prim_value(tirx.FloatImm(F, 0.0)),
            4,
        ],
        'R.Tensor((3, 4), dtype="float32")',
        lambda i: np.eye(4, dtype=F)[i],
    ),
    Case(
        op.layout_transform,
        [t((2, 3, 4)), lambda a, b, c: (a, c, b)],
        'R.Tensor((2, 4, 3), dtype="float32")',
        lambda x: x.transpose(0, 2, 1),
    ),
    Case(
        op.layout_transform,
        [t((2, 8)), lambda a, b: (a, b // 4, b % 4)],
        'R.Tensor((2, 2, 4), dtype="float32")',
        lambda x: x.reshape(2, 2, 4),
        id="layout_transform-split",
    ),
    Case(
        op.layout_transform,
        [t((10,)), lambda i: (i // 4, i % 4)],
        'R.Tensor((3, 4), dtype="float32")',
        lambda x: np.concatenate([x, np.full(2, 1.5, x.dtype)]).reshape(3, 4),
        kwargs={"pad_value": 1.5},
        id="layout_transform-pad",
    ),
    Case(
        op.layout_transform,
        [t(("n", 8)), lambda a, b: (b // 4, a, b % 4)],
        'R.Tensor((2, n, 4), dtype="float32")',
        lambda x: x.reshape(-1, 2, 4).transpose(1, 0, 2),
        sizes={"n": 3},
        id="layout_transform-sym",
    ),
    Case(
        op.scatter_elements,
        [t((2, 3)), t((2, 2), "int64", domain="index:3"), t((2, 2))],
        'R.Tensor((2, 3), dtype="float32")',
        _scatter_mul_axis1,
        kwargs={"axis": 1, "reduction": "mul"},
        id="scatter_elements-mul",
    ),
    Case(
        op.scatter_elements,
        [t((4,)), t((3,), "int64"), t((3,))],
        'R.Tensor((4,), dtype="float32")',
        lambda d, i, u: np.array([1, 2.75, 1, 3], "float32"),
        kwargs={"reduction": "mean"},
        inputs=[np.ones(4, "float32"), np.array([1, 1, 3]), np.array([2.0, 4.0, 5.0], "float32")],
        id="scatter_elements-mean",
    ),
    Case(
        op.scatter_elements,
        [t((2, 3)), t((2, 3), "int64"), t((2, 3))],
        'R.Tensor((2, 3), dtype="float32")',
        lambda d, i, u: _sequential_mean(d, i, u),
        kwargs={"axis": 1, "reduction": "mean"},
        inputs=[
            np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"),
            np.array([[0, 0, -1], [2, 2, 2]]),
            np.array([[0.5, -1.0, 2.0], [1.5, 3.0, -2.0]], "float32"),
        ],
        id="scatter_elements-mean-axis1",
    ),
    Case(
        op.gather_elements,
        [t((3, 2)), t((4, 2), "int64", domain="index:3")],
        'R.Tensor((4, 2), dtype="float32")',
        lambda x, i: np.take_along_axis(x, i, 0),
        id="gather_elements-axis0",
    ),
    Case(
        op.one_hot,
        [t((2, 2), "int32", domain="index:3"), relax.prim_value(5), relax.prim_value(-1), 3, 1],
        'R.Tensor((2, 3, 2), dtype="int64")',
        lambda i: np.where(i[:, None, :] == np.arange(3)[None, :, None], 5, -1),
        id="one_hot-axis1-int",
    ),
    Case(
        op.repeat,
        [t((2, 3)), 3, -2],
        'R.Tensor((6, 3), dtype="float32")',
        lambda x: np.repeat(x, 3, -2),
        id="repeat-negative-axis",
    ),
    # Symbolic and unknown shapes (types checked against TVM 0.27).
    Case(op.permute_dims, [t(None, ndim=3), [1, 0, 2]], 'R.Tensor(dtype="float32", ndim=3)'),
    Case(op.expand_dims, [t(None), [0]], 'R.Tensor(dtype="float32")', id="expand_dims-unknown"),
    Case(op.squeeze, [t(("n", 1, 3))], 'R.Tensor(dtype="float32")', id="squeeze-sym-all"),
    Case(
        op.squeeze,
        [t(("n", 1, 3)), [0]],
        'R.Tensor((1, 3), dtype="float32")',
        lambda x: x[0],
        sizes={"n": 1},
        id="squeeze-sym-axis",
    ),
    Case(
        op.flatten,
        [t(())],
        'R.Tensor((1,), dtype="float32")',
        lambda x: x.reshape(1),
        id="flatten-0d",
    ),
    Case(
        op.stack,
        [[t(("n", 3)), t(("n", 3))], -1],
        'R.Tensor((n, 3, 2), dtype="float32")',
        lambda a, b: np.stack([a, b], -1),
        sizes={"n": 2},
        id="stack-sym",
    ),
    Case(
        op.split,
        [t(("n", 6)), 2, 0],
        'R.Tuple(R.Tensor(((n + 1) // 2, 6), dtype="float32"), '
        'R.Tensor((n - (n + 1) // 2, 6), dtype="float32"))',
        lambda x: (x[:3], x[3:]),
        sizes={"n": 5},
        id="split-sym-axis",
    ),
    Case(
        op.split,
        [t(None, ndim=2), [1, 3], 1],
        'R.Tuple(R.Tensor(dtype="float32", ndim=2), R.Tensor(dtype="float32", ndim=2), '
        'R.Tensor(dtype="float32", ndim=2))',
        id="split-unknown",
    ),
    Case(
        op.repeat,
        [t(("n", 3)), 2, 0],
        'R.Tensor((n * 2, 3), dtype="float32")',
        lambda x: np.repeat(x, 2, 0),
        sizes={"n": 2},
        id="repeat-sym",
    ),
    Case(
        op.tile,
        [t(None, ndim=2), [2, 2, 2]],
        'R.Tensor(dtype="float32", ndim=3)',
        id="tile-unknown",
    ),
    Case(
        op.one_hot,
        [t(("n",), "int32", domain="index:3"), relax.prim_value(1), relax.prim_value(0), 3, 0],
        'R.Tensor((3, n), dtype="int64")',
        lambda i: (np.arange(3)[:, None] == i[None]).astype("int64"),
        sizes={"n": 4},
        id="one_hot-sym",
    ),
]

ERRORS = [
    Err(
        op.reshape,
        [t((2, 3)), (5,)],
        ValueError,
        ("Reshape", "product T.int64(6)", "product T.int64(5)"),
    ),
    Err(
        op.concat,
        [[t((2, 3)), t((3, 4))], 0],
        ValueError,
        (
            "Concat expects the input tensors to have the same shape on every dimension",
            "T.int64(3) and T.int64(4)",
        ),
    ),
    Err(
        op.expand_dims,
        [t((2, 3)), [5]],
        ValueError,
        ("expand_dims", "the input axis 5 is out of range", "[-3, 3)"),
    ),
    Err(op.flip, [t((2, 3)), 3], ValueError, ("Flip requires the input axis", "ndim is 2")),
    Err(op.gather_elements, [t((2, 3)), t((2, 3))], TypeError, ("GatherElements", "integer dtype")),
    Err(
        op.one_hot,
        [t((3,)), 1.0, 0.0, 3],
        TypeError,
        ("one_hot op requires the input indices to have integer dtype", "T.float32"),
    ),
    Err(
        op.stack,
        [[t((2, 3)), t((2, 4))]],
        ValueError,
        (
            "Stack expects all input tensors to have identical shapes",
            "Dimension 1 differs between tensors: T.int64(3) vs T.int64(4)",
        ),
    ),
    Err(op.collapse_sum_to, [t((2, 3)), (4,)], ValueError, ("collapse_sum_to", "target")),
    Err(op.layout_transform, [t((2,)), "not a map"], TypeError, ("layout_transform", "callable")),
    Err(
        op.layout_transform,
        [t((2, 3)), lambda i: (i,)],
        ValueError,
        ("layout_transform", "takes 1", "ndim"),
    ),
    Err(op.split, [t((2, 6)), 0], ValueError, ("split expects a positive number of sections",)),
    Err(
        op.scatter_elements,
        [t((3,)), t((2,), "int64"), t((2,))],
        ValueError,
        ("ScatterElements expects reduction to be one of", "'sub'"),
        kwargs={"reduction": "sub"},
    ),
    Err(op.repeat, [t((2,)), -1], ValueError, ("repeat expects a non-negative repeats",)),
    Err(op.squeeze, [t((1, 3)), [2]], ValueError, ("squeeze", "range")),
]
