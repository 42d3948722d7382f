"""Cases of tensor creation: full, *_like, arange, tril/triu, eye, ones/zeros."""

import numpy as np

from tvm import relax, tirx
from tvm.relax import op

from . import Case, Err, t

CASES = [
    Case(
        op.full,
        [(2, 3), relax.const(1.5, "float32")],
        'R.Tensor((2, 3), dtype="float32")',
        lambda: np.full((2, 3), 1.5, "float32"),
    ),
    Case(
        op.full,
        [(2, 3), relax.const(7, "int32")],
        'R.Tensor((2, 3), dtype="int32")',
        lambda: np.full((2, 3), 7, "int32"),
        id="full-int",
    ),
    Case(
        op.full,
        [(4,), relax.const(2.0, "float32")],
        'R.Tensor((4,), dtype="float16")',
        lambda: np.full((4,), 2.0, "float16"),
        kwargs={"dtype": "float16"},
        id="full-dtype",
    ),
    Case(
        op.full_like,
        [t((2, 3), "int32"), relax.const(1.5, "float32")],
        'R.Tensor((2, 3), dtype="int32")',
        lambda x: np.full((2, 3), 1, "int32"),
    ),
    Case(
        op.ones_like,
        [t(("n", 2))],
        'R.Tensor((n, 2), dtype="float32")',
        np.ones_like,
        sizes={"n": 3},
    ),
    Case(
        op.zeros_like,
        [t((2, 2))],
        'R.Tensor((2, 2), dtype="int64")',
        lambda x: np.zeros((2, 2), "int64"),
        kwargs={"dtype": "int64"},
    ),
    # Float inputs of the *_like ops: their gradient is zero (issue 9's compiled checks).
    Case(
        op.full_like,
        [t((2, 3)), relax.const(1.5, "float32")],
        'R.Tensor((2, 3), dtype="float32")',
        lambda x: np.full((2, 3), 1.5, "float32"),
        id="full_like-float",
    ),
    Case(
        op.ones_like,
        [t((3,))],
        'R.Tensor((3,), dtype="float32")',
        np.ones_like,
        id="ones_like-static",
    ),
    Case(
        op.zeros_like,
        [t((2, 2))],
        'R.Tensor((2, 2), dtype="float32")',
        np.zeros_like,
        id="zeros_like-float",
    ),
    Case(
        op.ones,
        [(2, 1), "float32"],
        'R.Tensor((2, 1), dtype="float32")',
        lambda: np.ones((2, 1), "float32"),
    ),
    Case(op.zeros, [(3,), "int32"], 'R.Tensor((3,), dtype="int32")', lambda: np.zeros(3, "int32")),
    Case(op.arange, [0, 10, 2], 'R.Tensor((5,), dtype="int64")', lambda: np.arange(0, 10, 2)),
    Case(op.arange, [5], 'R.Tensor((5,), dtype="int64")', lambda: np.arange(5), id="arange-end"),
    Case(
        op.arange,
        [0.0, 5.0, 0.5],
        'R.Tensor((10,), dtype="float32")',
        lambda: np.arange(0, 5, 0.5, dtype="float32"),
        id="arange-float",
    ),
    Case(
        op.arange,
        [1, tirx.Var("n", "int64"), 3],
        'R.Tensor(((n + 1) // 3,), dtype="int64")',
        id="arange-sym",
    ),
    Case(op.eye, [tirx.Var("n", "int64"), 3], 'R.Tensor((n, 3), dtype="float32")', id="eye-sym"),
    Case(op.tril, [t((3, 4))], 'R.Tensor((3, 4), dtype="float32")', np.tril),
    Case(
        op.tril,
        [t((2, 3, 3)), 1],
        'R.Tensor((2, 3, 3), dtype="float32")',
        lambda x: np.tril(x, 1),
        id="tril-k",
    ),
    Case(op.triu, [t((3, 4)), -1], 'R.Tensor((3, 4), dtype="float32")', lambda x: np.triu(x, -1)),
    Case(op.eye, [3], 'R.Tensor((3, 3), dtype="float32")', lambda: np.eye(3, dtype="float32")),
    Case(
        op.eye,
        [3, 4, 1],
        'R.Tensor((3, 4), dtype="float32")',
        lambda: np.eye(3, 4, 1, dtype="float32"),
        id="eye-k",
    ),
]

ERRORS = [
    Err(
        op.full,
        [(2, 3), relax.const(np.ones(2, "float32"))],
        ValueError,
        (
            "Full requires the input fill value to be zero rank Tensor",
            'R.Tensor((2,), dtype="float32")',
        ),
    ),
    Err(op.tril, [t((3,))], ValueError, ("tril", "at least two dimensions")),
    Err(op.ones, [t((3,)), "float32"], TypeError, ("Ones/Zeros", "Shape")),
    Err(op.arange, [0, 5, 0], ValueError, ("arange requires a nonzero step",)),
    Err(op.eye, [t((2,))], TypeError, ("eye expects n to be an int, a float, a PrimExpr",)),
]
