"""Cases of reductions and scans."""

import numpy as np

from tvm.relax import op

from . import Case, Err, t

REDUCE = {
    "sum": np.sum,
    "mean": np.mean,
    "max": np.max,
    "min": np.min,
    "prod": np.prod,
    "std": np.std,
    "variance": np.var,
}

CASES = []
for name, fn in REDUCE.items():
    CASES.append(
        Case(
            getattr(op, name),
            [t((2, 3, 4)), [1]],
            'R.Tensor((2, 4), dtype="float32")',
            lambda x, fn=fn: fn(x, axis=1),
            id=name,
        )
    )
    CASES.append(
        Case(
            getattr(op, name),
            [t(("n", 3)), None, True],
            'R.Tensor((1, 1), dtype="float32")',
            lambda x, fn=fn: fn(x, keepdims=True),
            sizes={"n": 2},
            id=f"{name}-all-keepdims",
        )
    )

CASES += [
    Case(
        op.sum,
        [t(("n", 3)), [-1]],
        'R.Tensor((n,), dtype="float32")',
        lambda x: x.sum(-1),
        sizes={"n": 2},
        id="sum-sym",
    ),
    Case(op.mean, [t(None)], 'R.Tensor((), dtype="float32")', id="mean-unknown-rank"),
    Case(op.cumsum, [t((2, 3)), 1], 'R.Tensor((2, 3), dtype="float32")', lambda x: np.cumsum(x, 1)),
    Case(
        op.cumsum,
        [t((2, 3), "int32")],
        'R.Tensor((6,), dtype="int32")',
        lambda x: np.cumsum(x).astype("int32"),
        id="cumsum-flat",
    ),
    Case(
        op.cumsum,
        [t((4,)), 0, None, True],
        'R.Tensor((4,), dtype="float32")',
        lambda x: np.concatenate([[0], np.cumsum(x)[:-1]]).astype("float32"),
        id="cumsum-exclusive",
    ),
    Case(
        op.cumprod,
        [t((2, 3)), 0, "float64"],
        'R.Tensor((2, 3), dtype="float64")',
        lambda x: np.cumprod(x.astype("float64"), 0),
    ),
    Case(
        op.cumprod,
        [t((2, 3)), 1, None, True],
        'R.Tensor((2, 3), dtype="float32")',
        lambda x: np.concatenate([np.ones((2, 1)), np.cumprod(x, 1)[:, :-1]], 1),
        id="cumprod-exclusive",
    ),
    Case(
        op.cumsum,
        [t((3,), "bool"), None, "int32"],
        'R.Tensor((3,), dtype="int32")',
        lambda x: np.cumsum(x.astype("int32")).astype("int32"),
        id="cumsum-bool-to-int",
    ),
    Case(
        op.prod,
        [t((2, 3), "int32"), [0, 1]],
        'R.Tensor((), dtype="int32")',
        lambda x: np.prod(x).astype("int32"),
        id="prod-int-all",
    ),
    Case(
        op.cumsum,
        [t(("n", 3))],
        'R.Tensor((n * 3,), dtype="float32")',
        lambda x: np.cumsum(x),
        sizes={"n": 2},
        id="cumsum-sym-flat",
    ),
    Case(
        op.sum, [t(None, ndim=3), [1]], 'R.Tensor(dtype="float32", ndim=2)', id="sum-unknown-shape"
    ),
]

ERRORS = [
    Err(op.sum, [t((2, 3)), [2]], ValueError, ("sum", "range", "[-2, 2)")),
    Err(op.mean, [t((2, 3)), [0, 0]], ValueError, ("mean", "non-repetitive")),
    Err(op.cumsum, [t((2, 3)), 2], ValueError, ("cumsum", "out of range")),
]
