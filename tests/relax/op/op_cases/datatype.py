"""Cases of ``astype`` and ``wrap_param``."""

import ml_dtypes
import numpy as np

from tvm.relax import op

from . import Case, Err, t

CASES = [
    Case(
        op.astype,
        [t((2, 3)), "int32"],
        'R.Tensor((2, 3), dtype="int32")',
        lambda x: x.astype("int32"),
    ),
    Case(
        op.astype,
        [t(("n",), "int32"), "float16"],
        'R.Tensor((n,), dtype="float16")',
        lambda x: x.astype("float16"),
        sizes={"n": 3},
        id="astype-sym",
    ),
    Case(
        op.astype, [t(None, ndim=2), "bool"], 'R.Tensor(dtype="bool", ndim=2)', id="astype-unknown"
    ),
    Case(
        op.astype,
        [t((3,)), "bfloat16"],
        'R.Tensor((3,), dtype="bfloat16")',
        lambda x: x.astype(ml_dtypes.bfloat16),
        id="astype-bf16",
    ),
    Case(
        op.astype,
        [t((3,), "float16"), "float8_e4m3fn"],
        'R.Tensor((3,), dtype="float8_e4m3fn")',
        lambda x: x.astype(ml_dtypes.float8_e4m3fn),
        id="astype-fp8",
    ),
    Case(
        op.astype,
        [t((2, 3)), "float64"],
        'R.Tensor((2, 3), dtype="float64")',
        lambda x: x.astype("float64"),
        id="astype-f64",
    ),
    Case(op.wrap_param, [t((4,))], 'R.Tensor((4,), dtype="float32")', lambda x: x),
    Case(
        op.wrap_param,
        [t((4,)), "float16"],
        'R.Tensor((4,), dtype="float16")',
        lambda x: x.astype(np.float16),
        id="wrap_param-f16",
    ),
]

ERRORS = [
    Err(op.astype, [t((2,)), None], TypeError, ("astype", "dtype")),
    Err(op.astype, [(2,), "int32"], TypeError, ()),
]
