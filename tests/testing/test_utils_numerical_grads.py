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
