"""``tvm.runtime.from_dlpack`` shares bfloat16/float8 NumPy arrays (``ml_dtypes``), whose
dtype NumPy's own ``__dlpack__`` refuses, as ``tvm.runtime.tensor`` already accepts them."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tvm


@pytest.mark.parametrize("name", ["bfloat16", "float8_e4m3fn", "float8_e5m2"])
def test_from_dlpack_shares_ml_dtypes_arrays(name):
    array = np.linspace(-2, 2, 12).astype(getattr(ml_dtypes, name)).reshape(3, 4)
    shared = tvm.runtime.from_dlpack(array)
    assert str(shared.dtype) == name and shared.shape == (3, 4)
    np.testing.assert_array_equal(shared.numpy().astype("float32"), array.astype("float32"))
    # Shared, not copied: a write through NumPy shows in the tensor.
    array[0, 0] = array.dtype.type(1.0)
    assert float(shared.numpy()[0, 0]) == 1.0


def test_from_dlpack_rejects_a_strided_ml_dtypes_array():
    array = np.zeros((4, 4), ml_dtypes.bfloat16)[:, ::2]
    with pytest.raises(ValueError, match="must be C-contiguous"):
        tvm.runtime.from_dlpack(array)
