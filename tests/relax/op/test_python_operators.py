"""Python operators on Relax expressions build the ops TVM 0.27 builds for them."""

from __future__ import annotations

import numpy as np
import pytest

from tvm import relax
from tvm.relax.testing import evaluate

X = relax.Var("x", relax.TensorType((2, 3), "float32"))
Y = relax.Var("y", relax.TensorType((3,), "float32"))


@pytest.mark.parametrize(
    "build, op_name",
    [
        (lambda x, y: x + y, "relax.add"),
        (lambda x, y: x - y, "relax.subtract"),
        (lambda x, y: x * y, "relax.multiply"),
        (lambda x, y: x / y, "relax.divide"),
        (lambda x, y: x // y, "relax.floor_divide"),
        (lambda x, y: x % y, "relax.mod"),
        (lambda x, y: x**y, "relax.power"),
        (lambda x, y: x < y, "relax.less"),
        (lambda x, y: x <= y, "relax.less_equal"),
        (lambda x, y: x > y, "relax.greater"),
        (lambda x, y: x >= y, "relax.greater_equal"),
        (lambda x, y: -x, "relax.negative"),
        (lambda x, y: x.astype("int32"), "relax.astype"),
    ],
)
def test_operator_builds_op(build, op_name):
    call = build(X, Y)
    assert call.op.name == op_name
    assert call.args[0] is X


def test_operators_evaluate_like_numpy():
    bb = relax.BlockBuilder()
    with bb.function("main", [X, Y]):
        out = bb.emit(relax.Tuple([X + Y, X * Y - X, -(X % Y), X < Y]))
        bb.emit_func_output(out)
    x = np.array([[1.5, -2.0, 3.0], [4.0, 5.5, -6.0]], "float32")
    y = np.array([2.0, 3.0, 4.0], "float32")
    added, mixed, neg_mod, less = evaluate(bb.get(), x, y)
    np.testing.assert_allclose(added, x + y)
    np.testing.assert_allclose(mixed, x * y - x)
    np.testing.assert_allclose(neg_mod, -np.fmod(x, y))  # mod follows the dividend's sign
    np.testing.assert_array_equal(less, x < y)


def test_python_numbers_need_const_first():
    with pytest.raises(TypeError, match="Please convert 1.0 with `const` first"):
        X + 1.0
    assert relax.BlockBuilder().normalize(X + relax.const(1.0, "float32")).ty.shape is not None
