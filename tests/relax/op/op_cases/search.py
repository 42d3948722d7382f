"""Cases of argmax/argmin, sort/argsort, topk."""

import numpy as np

from tvm.relax import op

from . import Case, Err, t

CASES = [
    Case(
        op.argmax, [t((2, 3, 4)), 1], 'R.Tensor((2, 4), dtype="int64")', lambda x: np.argmax(x, 1)
    ),
    Case(
        op.argmin,
        [t((2, 3)), None, True],
        'R.Tensor((1, 1), dtype="int64")',
        lambda x: np.argmin(x, keepdims=True),
        id="argmin-all",
    ),
    Case(
        op.argmax,
        [t(("n", 3)), -1],
        'R.Tensor((n,), dtype="int64")',
        lambda x: np.argmax(x, -1),
        sizes={"n": 2},
        id="argmax-sym",
    ),
    Case(op.sort, [t((3, 4))], 'R.Tensor((3, 4), dtype="float32")', lambda x: np.sort(x, -1)),
    Case(
        op.sort,
        [t((3, 4)), 0, True],
        'R.Tensor((3, 4), dtype="float32")',
        lambda x: -np.sort(-x, 0),
        id="sort-descending",
    ),
    Case(
        op.argsort,
        [t((3, 4))],
        'R.Tensor((3, 4), dtype="int32")',
        lambda x: np.argsort(x, -1, kind="stable").astype("int32"),
    ),
    Case(
        op.argsort,
        [t((5,), "int32")],
        'R.Tensor((5,), dtype="int64")',
        lambda x: np.array([1, 0, 2, 3, 4]),
        kwargs={"descending": True, "dtype": "int64"},
        inputs=[np.array([3, 5, 3, 1, 0], "int32")],
        id="argsort-stable-descending",
    ),
    Case(
        op.topk,
        [t((3, 5)), 2],
        'R.Tuple(R.Tensor((3, 2), dtype="float32"), R.Tensor((3, 2), dtype="int32"))',
        lambda x: (-np.sort(-x, -1)[:, :2], np.argsort(-x, -1, kind="stable")[:, :2]),
    ),
    Case(
        op.topk,
        [t((5,)), 2],
        'R.Tensor((2,), dtype="float32")',
        lambda x: np.sort(x)[:2],
        kwargs={"ret_type": "values", "largest": False},
        id="topk-smallest-values",
    ),
    Case(
        op.topk,
        [t((5,)), 3],
        'R.Tensor((3,), dtype="int64")',
        lambda x: np.argsort(-x, kind="stable")[:3],
        kwargs={"ret_type": "indices", "dtype": "int64"},
        id="topk-indices",
    ),
    Case(
        op.topk,
        [t((6,), "int32")],
        'R.Tuple(R.Tensor((3,), dtype="int32"), R.Tensor((3,), dtype="int32"))',
        lambda x: (np.array([0, 1, 1], "int32"), np.array([4, 1, 3], "int32")),
        kwargs={"k": 3, "largest": False},
        inputs=[np.array([4, 1, 4, 1, 0, 9], "int32")],
        id="topk-ties",
    ),
    Case(
        op.argmax,
        [t((2, 4))],
        'R.Tensor((), dtype="int64")',
        lambda x: np.array(1),
        inputs=[np.array([[1, 5, 5, 0], [2, 5, 1, 1]], "float32")],
        id="argmax-flat-ties",
    ),
    Case(op.argmax, [t(None)], 'R.Tensor((), dtype="int64")', id="argmax-unknown-rank"),
    Case(
        op.topk,
        [t(("n", 5)), 2],
        'R.Tuple(R.Tensor((n, 2), dtype="float32"), R.Tensor((n, 2), dtype="int32"))',
        id="topk-sym",
    ),
]

ERRORS = [
    Err(
        op.argmax,
        [t((2, 3)), 4],
        ValueError,
        ("argmax", "the input axis 4 is out of range", "[-2, 2)"),
    ),
    Err(op.sort, [t((2, 3)), 2], ValueError, ("sort", "out of range")),
    Err(op.topk, [t((2, 3)), 1], ValueError, ("topk", "ret_type"), kwargs={"ret_type": "x"}),
    Err(op.argsort, [t((2, 3)), 3], ValueError, ("argsort", "the input axis 3 is out of range")),
]
