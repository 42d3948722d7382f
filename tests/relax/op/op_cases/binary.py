"""Cases of the binary family: broadcasting, symbolic dims, dtypes, TVM's integer division."""

import numpy as np

from tvm.relax import op

from . import Case, Err, t

F23 = 'R.Tensor((2, 3), dtype="float32")'
B23 = 'R.Tensor((2, 3), dtype="bool")'

ARITH = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "floor_divide": lambda a, b: np.floor(a / b),
    "power": np.power,
    "atan2": np.arctan2,
    "log_add_exp": np.logaddexp,
    "maximum": np.maximum,
    "minimum": np.minimum,
}
COMPARE = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}

CASES = []
for name, fn in ARITH.items():
    CASES.append(
        Case(
            getattr(op, name),
            [t((2, 3), domain="pos"), t((3,), domain="pos")],
            F23,
            lambda a, b, fn=fn: fn(a, b).astype("float32"),
            id=name,
        )
    )
for name, fn in COMPARE.items():
    CASES.append(Case(getattr(op, name), [t((2, 1)), t((1, 3))], B23, fn, id=name))

INTS_A = np.array([7, -7, 7, -7, 0], "int32")
INTS_B = np.array([2, 2, -2, -2, 3], "int32")
I5 = 'R.Tensor((5,), dtype="int32")'
CASES += [
    # TVM's integer division truncates; floor_divide/floor_mod round toward minus infinity.
    Case(
        op.divide,
        [t((5,), "int32"), t((5,), "int32")],
        I5,
        lambda a, b: np.array([3, -3, -3, 3, 0], "int32"),
        inputs=[INTS_A, INTS_B],
        id="divide-int-truncates",
    ),
    Case(
        op.mod,
        [t((5,), "int32"), t((5,), "int32")],
        I5,
        lambda a, b: np.array([1, -1, 1, -1, 0], "int32"),
        inputs=[INTS_A, INTS_B],
        id="mod-int-truncates",
    ),
    Case(
        op.floor_divide,
        [t((5,), "int32"), t((5,), "int32")],
        I5,
        lambda a, b: np.floor_divide(a, b),
        inputs=[INTS_A, INTS_B],
        id="floor_divide-int",
    ),
    Case(
        op.floor_mod,
        [t((5,), "int32"), t((5,), "int32")],
        I5,
        np.mod,
        inputs=[INTS_A, INTS_B],
        id="floor_mod-int",
    ),
    Case(
        op.floor_mod,
        [t((2, 3), domain="pos"), t((2, 3), domain="pos")],
        F23,
        lambda a, b: (a - np.floor(a / b) * b).astype("float32"),
        id="floor_mod-float",
    ),
    Case(op.mod, [t((2, 3), domain="pos"), t((2, 3), domain="pos")], F23, np.fmod, id="mod-float"),
    Case(
        op.logical_and,
        [t((4,), "bool"), t((4,), "bool")],
        'R.Tensor((4,), dtype="bool")',
        np.logical_and,
    ),
    Case(
        op.logical_or,
        [t((4,), "bool"), t((4,), "bool")],
        'R.Tensor((4,), dtype="bool")',
        np.logical_or,
    ),
    Case(
        op.logical_xor,
        [t((4,), "bool"), t((4,), "bool")],
        'R.Tensor((4,), dtype="bool")',
        np.logical_xor,
    ),
    Case(
        op.bitwise_and,
        [t((4,), "int32"), t((4,), "int32")],
        'R.Tensor((4,), dtype="int32")',
        np.bitwise_and,
    ),
    Case(
        op.bitwise_or,
        [t((4,), "int32"), t((4,), "int32")],
        'R.Tensor((4,), dtype="int32")',
        np.bitwise_or,
    ),
    Case(
        op.bitwise_xor,
        [t((4,), "int32"), t((4,), "int32")],
        'R.Tensor((4,), dtype="int32")',
        np.bitwise_xor,
    ),
    Case(
        op.left_shift,
        [t((4,), "int32"), t((4,), "int32", domain="pos")],
        'R.Tensor((4,), dtype="int32")',
        np.left_shift,
    ),
    Case(
        op.right_shift,
        [t((4,), "int32"), t((4,), "int32", domain="pos")],
        'R.Tensor((4,), dtype="int32")',
        np.right_shift,
    ),
    # Symbolic shapes: equal symbols broadcast; size-1 dims broadcast against symbols.
    Case(
        op.subtract,
        [t(("n", 3)), t((1, 3))],
        'R.Tensor((n, 3), dtype="float32")',
        np.subtract,
        sizes={"n": 2},
        id="subtract-sym",
    ),
    Case(
        op.less,
        [t(("n", "m")), t(("n", "m"))],
        'R.Tensor((n, m), dtype="bool")',
        np.less,
        sizes={"n": 2, "m": 3},
        id="less-sym",
    ),
    Case(
        op.maximum,
        [t(("n",)), t(("m",))],
        'R.Tensor(dtype="float32", ndim=1)',
        id="maximum-undecided",
    ),
    Case(
        op.divide,
        [t(None, ndim=2), t((3,))],
        'R.Tensor(dtype="float32", ndim=2)',
        id="divide-unknown-shape",
    ),
    Case(op.power, [t(None), t((3,))], 'R.Tensor(dtype="float32")', id="power-unknown-rank"),
    Case(
        op.power,
        [t((3,), "int32"), t((3,), "int32")],
        'R.Tensor((3,), dtype="int32")',
        lambda a, b: np.array([8, 1, -8], "int32"),
        inputs=[np.array([2, 3, -2], "int32"), np.array([3, 0, 3], "int32")],
        id="power-int",
    ),
    Case(
        op.right_shift,
        [t((3,), "int32"), t((3,), "int32")],
        'R.Tensor((3,), dtype="int32")',
        lambda a, b: np.array([-4, 2, 3], "int32"),
        inputs=[np.array([-8, 8, 7], "int32"), np.array([1, 2, 1], "int32")],
        id="right_shift-negative",
    ),
]

ERRORS = [
    Err(
        op.subtract,
        [t((2, 3)), t((2, 3), "int32")],
        TypeError,
        ("Binary operators must have the same datatype", "T.float32", "T.int32"),
    ),
    Err(op.equal, [t((2, 3)), t((4,))], ValueError, ("equal", "not broadcastable")),
]

# atan2 keeps the quadrant of (x2, x1): every sign combination, and x2 == 0.
CASES.append(
    Case(
        op.atan2,
        [t((6,)), t((6,))],
        'R.Tensor((6,), dtype="float32")',
        lambda a, b: np.arctan2(a, b).astype("float32"),
        inputs=[
            np.array([1, 1, -1, -1, 2, -2], "float32"),
            np.array([1, -1, 1, -1, 0, 0], "float32"),
        ],
        grad=False,
        id="atan2-quadrants",
    )
)
