"""tvm.testing.utils.check_numerical_grads (the path upstream tests import it from)."""

import numpy as np
import pytest

from tvm.testing.utils import check_numerical_grads


def test_check_numerical_grads_from_utils():
    x = np.array([1.0, 2.0, -0.5])
    check_numerical_grads(lambda x: float(np.sum(x * x)), [x], [2 * x])
    with pytest.raises(AssertionError):
        check_numerical_grads(lambda x: float(np.sum(x * x)), [x], [3 * x])


def test_inputs_keep_their_float_dtype():
    seen = []

    def f(x):
        seen.append(x.dtype)
        return float((x * x).sum())

    x = np.array([1.0, -2.0], "float32")
    check_numerical_grads(f, [x], [2 * x], delta=1e-2)
    assert set(seen) == {np.dtype("float32")}
    check_numerical_grads(lambda n: float(n.sum()), [np.array([1, 2])], [np.ones(2)])


def test_the_check_is_on_the_norm_of_the_whole_gradient():
    # 100 elements, one of them off by 0.05: beyond atol + rtol * |g| for that element, but
    # the distance 0.05 is far below atol * sqrt(100) = 0.1 + rtol * norm (as TVM checks).
    x = np.linspace(-1.0, 1.0, 100)
    grad = 2 * x
    grad[7] += 0.05
    check_numerical_grads(lambda a: float(np.sum(a * a)), [x], [grad], atol=1e-2, rtol=1e-3)
    grad[7] += 5.0
    with pytest.raises(AssertionError, match=r"grads wrt '0' differ too much(.|\n)*"
                                             r"first 10 of wrong positions: \[\(7,\)\]"):
        check_numerical_grads(lambda a: float(np.sum(a * a)), [x], [grad], atol=1e-2,
                              rtol=1e-3)


def test_forward_difference_falls_back_to_central_differences():
    # A forward difference of x**3 at 1 with delta 0.1 is 3.31: off by 0.31; the central
    # difference (3.01) matches the analytical 3 within atol.
    calls = []

    def cube(a):
        calls.append(1)
        return float(np.sum(a ** 3))

    check_numerical_grads(cube, [np.array([1.0])], [np.array([3.0])], delta=0.1, atol=0.02,
                          rtol=0.0)
    assert len(calls) == 3  # base, +delta, -delta


def test_nan_and_shape_errors():
    with pytest.raises(ValueError, match="NaN or infinity detected"):
        check_numerical_grads(lambda a: float(np.sum(np.sqrt(a))), [np.array([-1.0])],
                              [np.array([0.0])])
    from tvm.testing.numerical_grads import GradientShapeError

    with pytest.raises(GradientShapeError, match="has unexpected shape \\(3,\\), expected") \
            as info:
        check_numerical_grads(lambda a: float(a.sum()), {"x": np.ones(2)}, {"x": np.ones(3)})
    assert isinstance(info.value, ValueError) and isinstance(info.value, AssertionError)
