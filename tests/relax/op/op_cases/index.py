"""Cases of take, strided_slice and dynamic_strided_slice."""

import numpy as np

from tvm.relax import op

from . import Case, Err, t

CASES = [
    Case(
        op.take,
        [t((4, 3)), t((2,), "int64", domain="index:4"), 0],
        'R.Tensor((2, 3), dtype="float32")',
        lambda x, i: x[i],
    ),
    Case(
        op.take,
        [t((4, 3)), t((2, 2), "int32", domain="index:3"), 1],
        'R.Tensor((4, 2, 2), dtype="float32")',
        lambda x, i: np.take(x, i, 1),
        id="take-2d",
    ),
    Case(
        op.take,
        [t((4,)), t((2, 5), "int64", domain="index:4")],
        'R.Tensor((2, 5), dtype="float32")',
        lambda x, i: np.take(x, i),
        id="take-no-axis",
    ),
    Case(
        op.take,
        [t(("n", 3)), t(("m",), "int64", domain="index:2"), 0],
        'R.Tensor((m, 3), dtype="float32")',
        lambda x, i: x[i],
        sizes={"n": 2, "m": 3},
        id="take-sym",
    ),
    Case(
        op.strided_slice,
        [t((5, 6)), [0, 1], [1, 0], [4, 6], [2, 3]],
        'R.Tensor((2, 2), dtype="float32")',
        lambda x: x[1:4:2, 0:6:3],
    ),
    Case(
        op.strided_slice,
        [t((5,)), [0], [-3], [100]],
        'R.Tensor((3,), dtype="float32")',
        lambda x: x[-3:],
        id="strided_slice-clamp",
    ),
    Case(
        op.strided_slice,
        [t((5,)), [0], [4], [0], [-1]],
        'R.Tensor((4,), dtype="float32")',
        lambda x: x[4:0:-1],
        id="strided_slice-negative-stride",
    ),
    Case(
        op.dynamic_strided_slice,
        [t((4, 4)), t((2,), "int64"), t((2,), "int64"), t((2,), "int64")],
        'R.Tensor(dtype="float32", ndim=2)',
        lambda x, b, e, s: x[0:3:2, 1:4:1],
        inputs=[
            np.arange(16, dtype="float32").reshape(4, 4),
            np.array([0, 1]),
            np.array([3, 4]),
            np.array([2, 1]),
        ],
    ),
    Case(
        op.take,
        [t((4, 3)), t((3,), "int64")],
        'R.Tensor((4, 3), dtype="float32")',
        lambda x, i: np.take(x, i, 1, mode="wrap"),
        kwargs={"axis": 1, "mode": "wrap"},
        inputs=[np.arange(12, dtype="float32").reshape(4, 3), np.array([-1, 3, 5])],
        id="take-wrap",
    ),
    Case(
        op.take,
        [t((4, 3)), t((3,), "int64")],
        'R.Tensor((4, 3), dtype="float32")',
        lambda x, i: np.take(x, i, 1, mode="clip"),
        kwargs={"axis": 1, "mode": "clip"},
        inputs=[np.arange(12, dtype="float32").reshape(4, 3), np.array([-1, 3, 1])],
        id="take-clip",
    ),
    Case(
        op.strided_slice,
        [t((6, 4)), [0, 1], [-1, 3], [0, -5], [-2, -1]],
        'R.Tensor((3, 4), dtype="float32")',
        lambda x: x[-1:0:-2, 3:-5:-1],
        id="strided_slice-negative",
    ),
    Case(
        op.take,
        [t(None, ndim=2), t((3,), "int64"), 1],
        'R.Tensor(dtype="float32", ndim=2)',
        id="take-unknown",
    ),
    Case(
        op.strided_slice,
        [t(("n", 6)), [1], [1], [5]],
        'R.Tensor((n, 4), dtype="float32")',
        lambda x: x[:, 1:5],
        sizes={"n": 2},
        id="strided_slice-sym",
    ),
    Case(
        op.strided_slice,
        [t(("n", 6)), [0], [1], [3]],
        'R.Tensor((T.min(3, n) - T.min(1, n), 6), dtype="float32")',
        lambda x: x[1:3],
        sizes={"n": 2},
        id="strided_slice-sym-axis",
    ),
]

ERRORS = [
    Err(
        op.take,
        [t((4, 3)), t((2,))],
        TypeError,
        ("Take op requires the input indices to have integer dtype", "T.float32"),
    ),
    Err(op.take, [t((4, 3)), t((2,), "int64"), 2], ValueError, ("take", "out of range")),
    Err(
        op.strided_slice,
        [t((5, 6)), [0, 1], [0], [1, 1]],
        ValueError,
        ("strided_slice", "same length"),
    ),
    Err(op.take, [t((4,)), t((2,), "int64"), 0, "bogus"], ValueError, ("take", "mode")),
    Err(
        op.take,
        [t((4, 3)), t((2,), "int64")],
        ValueError,
        ("Take op expects the input data to be 1-dimensional tensor", "ndim 2"),
    ),
    Err(
        op.strided_slice,
        [t((5,)), [0], [0], [5], [0]],
        ValueError,
        ("strided_slice expects nonzero strides",),
    ),
    Err(
        op.dynamic_strided_slice,
        [t((4,)), t((1,)), t((1,), "int64"), t((1,), "int64")],
        TypeError,
        ("dynamic_strided_slice requires the begin to have integer dtype",),
    ),
]
