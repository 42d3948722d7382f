"""Cases of matmul, einsum and outer."""

import numpy as np

from tvm.relax import op

from . import Case, Err, t

CASES = [
    Case(op.matmul, [t((2, 3)), t((3, 4))], 'R.Tensor((2, 4), dtype="float32")', np.matmul),
    Case(
        op.matmul,
        [t((5, 2, 3)), t((3,))],
        'R.Tensor((5, 2), dtype="float32")',
        np.matmul,
        id="matmul-vector",
    ),
    Case(
        op.matmul,
        [t(("b", 2, "k")), t(("k", 4))],
        'R.Tensor((b, 2, 4), dtype="float32")',
        np.matmul,
        sizes={"b": 2, "k": 3},
        id="matmul-sym",
    ),
    Case(
        op.matmul,
        [t((2, 3), "int32"), t((3, 2), "int32")],
        'R.Tensor((2, 2), dtype="int64")',
        lambda a, b: np.matmul(a, b).astype("int64"),
        kwargs={"out_dtype": "int64"},
        id="matmul-out_dtype",
    ),
    Case(
        op.einsum,
        [[t((2, 3)), t((3, 4))], "ij,jk->ik"],
        'R.Tensor((2, 4), dtype="float32")',
        lambda a, b: np.einsum("ij,jk->ik", a, b),
    ),
    Case(
        op.einsum,
        [[t((3, 3))], "ii"],
        'R.Tensor((), dtype="float32")',
        lambda a: np.einsum("ii", a),
        id="einsum-trace",
    ),
    Case(
        op.einsum,
        [[t((3, 3, 2)), t((2, 4))], "iij,jk->ik"],
        'R.Tensor((3, 4), dtype="float32")',
        lambda a, b: np.einsum("iij,jk->ik", a, b),
        rtol=1e-4,
        id="einsum-diagonal-contract",
    ),
    Case(
        op.einsum,
        [[t((2, 3)), t((2, 3))], "ij,ij->i"],
        'R.Tensor((2,), dtype="float32")',
        lambda a, b: np.einsum("ij,ij->i", a, b),
        id="einsum-rowdot",
    ),
    Case(op.outer, [t((3,)), t((4,))], 'R.Tensor((3, 4), dtype="float32")', np.outer),
    Case(
        op.outer,
        [t(("n",)), t((2,))],
        'R.Tensor((n, 2), dtype="float32")',
        np.outer,
        sizes={"n": 3},
        id="outer-sym",
    ),
    Case(op.matmul, [t(None), t((3, 4))], 'R.Tensor(dtype="float32")', id="matmul-unknown"),
    Case(
        op.einsum,
        [[t(("n", "k")), t(("k", "m"))], "ik,km->im"],
        'R.Tensor((n, m), dtype="float32")',
        lambda a, b: a @ b,
        sizes={"n": 2, "k": 3, "m": 4},
        id="einsum-sym",
    ),
    Case(
        op.einsum,
        [[t((2, 3, 4)), t((4, 5))], "...ij,...jk->...ik"],
        'R.Tensor((2, 3, 5), dtype="float32")',
        lambda a, b: np.einsum("...ij,...jk->...ik", a, b),
        id="einsum-ellipsis",
    ),
    Case(
        op.einsum,
        [[t((2, 1, 3, 4)), t((5, 4, 6))], "...ij,...jk"],
        'R.Tensor((2, 5, 3, 6), dtype="float32")',
        lambda a, b: np.einsum("...ij,...jk", a, b),
        id="einsum-ellipsis-broadcast",
    ),
    Case(
        op.einsum,
        [[t((2, 3, 4))], "i...->..."],
        'R.Tensor((3, 4), dtype="float32")',
        lambda a: np.einsum("i...->...", a),
        id="einsum-ellipsis-sum",
    ),
    Case(
        op.einsum,
        [[t(("n", 3, 4)), t((4, 2))], "...j,jk->...k"],
        'R.Tensor((n, 3, 2), dtype="float32")',
        lambda a, b: np.einsum("...j,jk->...k", a, b),
        sizes={"n": 2},
        id="einsum-ellipsis-sym",
    ),
    Case(
        op.einsum,
        [[t(None), t((4, 5))], "...ij,jk->...ik"],
        'R.Tensor(dtype="float32")',
        id="einsum-ellipsis-unknown",
    ),
]

ERRORS = [
    Err(
        op.matmul,
        [t((2, 3)), t((2, 3))],
        ValueError,
        (
            "Matmul requires the reduction length of the operands to be equal",
            "T.int64(3) and T.int64(2)",
        ),
    ),
    Err(op.einsum, [[t((2, 3)), t((4, 5))], "ij,jk->ik"], ValueError, ("einsum", "'j'")),
    Err(op.einsum, [[t((2, 3))], "ij,jk->ik"], ValueError, ("einsum", "operands")),
    Err(op.einsum, [[t((3,))], "...ij->..."], ValueError, ("einsum", "'...ij'", "ndim 1")),
    Err(op.einsum, [[t((2, 3)), t((4, 3))], "...j,...j->..."], ValueError, ("einsum", "extents")),
    Err(op.einsum, [[t((2, 3))], "i.j->i"], ValueError, ("einsum", "ellipsis")),
    Err(op.outer, [t((2, 3)), t((3,))], ValueError, ("outer", "1-D")),
]
