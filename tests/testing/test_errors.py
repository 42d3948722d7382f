"""tvm.testing.test_raise_error: errors of a given kind raised through tvm_ffi."""

import pytest

import tvm
import tvm.testing


def test_raise_error_comes_back_as_the_registered_class():
    with pytest.raises(tvm.error.OpNotImplemented, match="myop") as info:
        tvm.testing.test_raise_error("OpNotImplemented", "myop")
    assert isinstance(info.value, NotImplementedError)
    with pytest.raises(ValueError, match="bad value"):
        tvm.testing.test_raise_error("ValueError", "bad value")
