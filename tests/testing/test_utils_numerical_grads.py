"""tvm.testing.utils.check_numerical_grads (the path upstream tests import it from)."""

import numpy as np
import pytest

from tvm.testing.utils import check_numerical_grads


def test_check_numerical_grads_from_utils():
    x = np.array([1.0, 2.0, -0.5])
    check_numerical_grads(lambda x: float(np.sum(x * x)), [x], [2 * x])
    with pytest.raises(AssertionError):
        check_numerical_grads(lambda x: float(np.sum(x * x)), [x], [3 * x])
