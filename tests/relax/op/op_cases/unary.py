"""Cases of the unary family: every op on a static and a symbolic shape, NumPy values."""

import math

import numpy as np

from tvm.relax import op

from . import Case, Err, t

F32 = 'R.Tensor((2, 3), dtype="float32")'
SYM = 'R.Tensor((n, 3), dtype="float32")'

#: op name -> (NumPy reference, input domain)
NUMPY = {
    "abs": (np.abs, "any"),
    "acos": (np.arccos, "unit"),
    "acosh": (np.arccosh, "ge1"),
    "asin": (np.arcsin, "unit"),
    "asinh": (np.arcsinh, "any"),
    "atan": (np.arctan, "any"),
    "atanh": (np.arctanh, "unit"),
    "ceil": (np.ceil, "any"),
    "cos": (np.cos, "any"),
    "cosh": (np.cosh, "any"),
    "erf": (np.vectorize(math.erf), "any"),
    "exp": (np.exp, "any"),
    "floor": (np.floor, "any"),
    "log": (np.log, "pos"),
    "negative": (np.negative, "any"),
    "round": (np.round, "any"),
    "rsqrt": (lambda x: 1 / np.sqrt(x), "pos"),
    "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), "any"),
    "sign": (np.sign, "any"),
    "sin": (np.sin, "any"),
    "sinh": (np.sinh, "any"),
    "sqrt": (np.sqrt, "pos"),
    "square": (np.square, "any"),
    "tan": (np.tan, "unit"),
    "tanh": (np.tanh, "any"),
    "trunc": (np.trunc, "any"),
    "logical_not": (lambda x: np.logical_not(x).astype(x.dtype), "any"),
}

CASES = []
for name, (fn, domain) in NUMPY.items():
    CASES.append(
        Case(
            getattr(op, name),
            [t((2, 3), domain=domain)],
            F32,
            lambda x, fn=fn: fn(x).astype(x.dtype),
            id=name,
        )
    )
    CASES.append(
        Case(
            getattr(op, name),
            [t(("n", 3), domain=domain)],
            SYM,
            lambda x, fn=fn: fn(x).astype(x.dtype),
            sizes={"n": 4},
            id=f"{name}-sym",
        )
    )

for name, fn in (("isnan", np.isnan), ("isinf", np.isinf), ("isfinite", np.isfinite)):
    CASES.append(
        Case(
            getattr(op, name),
            [t((2, 3))],
            'R.Tensor((2, 3), dtype="bool")',
            fn,
            inputs=[np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, 2.0]], "float32")],
            id=name,
        )
    )

CASES += [
    # Integer inputs keep their dtype for the "any dtype" ops.
    Case(op.abs, [t((4,), "int32")], 'R.Tensor((4,), dtype="int32")', np.abs, id="abs-int"),
    Case(
        op.bitwise_not,
        [t((4,), "int32")],
        'R.Tensor((4,), dtype="int32")',
        np.invert,
        id="bitwise_not-int",
    ),
    Case(op.square, [t((4,), "int64")], 'R.Tensor((4,), dtype="int64")', np.square),
    Case(
        op.exp,
        [t(None, "float32", ndim=3)],
        'R.Tensor(dtype="float32", ndim=3)',
        id="exp-unknown-shape",
    ),
    Case(op.exp, [t(None, "float16")], 'R.Tensor(dtype="float16")', id="exp-unknown-rank"),
    Case(
        op.clip,
        [t(()), -0.5, 0.5],
        'R.Tensor((), dtype="float32")',
        lambda x: np.clip(x, -0.5, 0.5),
        id="clip-0d",
    ),
    Case(op.exp, [t(())], 'R.Tensor((), dtype="float32")', np.exp, id="exp-0d"),
    Case(op.clip, [t((2, 3)), 0.0, 1.0], F32, lambda x: np.clip(x, 0.0, 1.0)),
    Case(
        op.clip,
        [t((5,), "int32"), -1, 2],
        'R.Tensor((5,), dtype="int32")',
        lambda x: np.clip(x, -1, 2),
        id="clip-int",
    ),
    Case(
        op.round,
        [t((6,))],
        'R.Tensor((6,), dtype="float32")',
        lambda x: np.array([0, 2, 2, 0, -2, 2], "float32"),
        inputs=[np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.4], "float32")],
        id="round-half",
    ),
    Case(
        op.sign,
        [t((4,), "int32")],
        'R.Tensor((4,), dtype="int32")',
        np.sign,
        inputs=[np.array([-3, 0, 2, -1], "int32")],
        id="sign-int",
    ),
]

ERRORS = [
    Err(
        op.exp,
        [t((2, 3), "int32")],
        TypeError,
        ("exp", "requires the input tensor to have float dtype", "T.int32"),
    ),
    Err(op.sqrt, [t((2,), "int64")], TypeError, ("sqrt", "float dtype")),
    Err(op.sigmoid, [t((2,), "bool")], TypeError, ("sigmoid", "float dtype", "T.bool")),
    Err(op.abs, [t((2,)), t((2,))], TypeError, ("positional",)),
]
