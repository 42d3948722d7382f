"""Cases of ``ewise_fma`` and ``where``."""

import numpy as np

from tvm.relax import op

from . import Case, Err, t

CASES = [
    Case(
        op.ewise_fma,
        [t((2, 3)), t((2, 3)), t((2, 3))],
        'R.Tensor((2, 3), dtype="float32")',
        lambda a, b, c: a * b + c,
    ),
    Case(
        op.ewise_fma,
        [t(("n", 3)), t(("n", 3)), t(("n", 3))],
        'R.Tensor((n, 3), dtype="float32")',
        lambda a, b, c: a * b + c,
        sizes={"n": 2},
        id="ewise_fma-sym",
    ),
    Case(
        op.where,
        [t((2, 1), "bool"), t((2, 3)), t((3,))],
        'R.Tensor((2, 3), dtype="float32")',
        np.where,
    ),
    Case(
        op.where,
        [t(("n", 1), "bool"), t(("n", 4), "int32"), t((1, 4), "int32")],
        'R.Tensor((n, 4), dtype="int32")',
        np.where,
        sizes={"n": 3},
        id="where-sym",
    ),
    Case(
        op.where,
        [t(None, "bool"), t((2,)), t((2,))],
        'R.Tensor(dtype="float32")',
        id="where-unknown-rank",
    ),
]

ERRORS = [
    Err(
        op.where,
        [t((2, 3)), t((2, 3)), t((2, 3))],
        TypeError,
        ("Where requires the input condition tensor to have boolean dtype", "T.float32"),
    ),
    Err(
        op.where,
        [t((2,), "bool"), t((2,)), t((2,), "int32")],
        TypeError,
        ("Binary operators must have the same datatype", "R.where(p0, p1, p2)"),
    ),
    Err(
        op.ewise_fma,
        [t((2, 3)), t((2, 3)), t((3, 3))],
        ValueError,
        ("The 3 arguments of EwiseFMA must have the same shape",),
    ),
    Err(
        op.ewise_fma,
        [t((2, 3)), t((2, 3), "float16"), t((2, 3))],
        TypeError,
        ("Data types T.float32, T.float16, and T.float32 must be equal for EwiseFMA",),
    ),
]
