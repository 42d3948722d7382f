"""Property test: the packed-API wrapper accepts exactly the calls its spec allows."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from llvmlite import ir

from tvm.backend.llvm import build_module
from tvm.backend.llvm.packed_api import TensorParam, emit_packed_function

SPEC = [TensorParam("A", "float32", ("n", 4)), TensorParam("B", "float32", ("n", 4, None))]


@pytest.fixture(scope="module")
def checked():
    module = ir.Module("prop")
    emit_packed_function(module, "prop", SPEC, lambda builder, args: None)
    return build_module(module)["prop"]


def _expected_error(args):
    """The error kind the spec demands for ``args`` (None when the call is valid)."""
    if len(args) != len(SPEC):
        return TypeError
    n = None
    for arr, param in zip(args, SPEC):
        if not isinstance(arr, np.ndarray):
            return TypeError
        if arr.ndim != len(param.shape):
            return ValueError
        if arr.dtype != np.float32:
            return TypeError
        for extent, want in zip(arr.shape, param.shape):
            if isinstance(want, int) and extent != want:
                return ValueError
            if want == "n":
                if n is not None and extent != n:
                    return ValueError
                n = extent
        if arr.size and not arr.flags.c_contiguous:
            # DLPack export ignores strides of size-1 dimensions, like the wrapper.
            return ValueError
    return None


arrays = st.builds(
    lambda shape, dtype, step: np.zeros([s * step for s in shape], dtype)[
        tuple(slice(None, None, step) for _ in shape)
    ],
    st.lists(st.integers(0, 5), min_size=0, max_size=4),
    st.sampled_from(["float32", "float64", "int32"]),
    st.sampled_from([1, 1, 2]),
)
values = st.one_of(arrays, st.integers(-3, 3), st.none(), st.floats(allow_nan=False))


@settings(max_examples=300, deadline=None)
@given(st.lists(values, min_size=0, max_size=3))
def test_accepts_exactly_what_the_spec_allows(checked, args):
    expected = _expected_error(args)
    if expected is None:
        checked(*args)
        return
    with pytest.raises(expected) as err:
        checked(*args)
    assert (
        "when calling:\n  `prop(A: Tensor([n, 4], float32), B: Tensor([n, 4, ?], float32))`"
        in str(err.value)
        or str(err.value).startswith("Expected 2 arguments")
    )


def _near_valid(n, k, mutation, which):
    a = np.zeros((n, 4), "float32")
    b = np.zeros((n, 4, k), "float32")
    args = [a, b]
    target = args[which]
    if mutation == "dtype":
        target = target.astype("float64")
    elif mutation == "extent":
        target = np.zeros((target.shape[0] + 1, *target.shape[1:]), "float32")
    elif mutation == "strided":
        target = np.zeros((target.shape[0] * 2, *target.shape[1:]), "float32")[::2]
    elif mutation == "transposed":
        target = np.zeros(target.shape[::-1], "float32").T
    elif mutation == "ndim":
        target = target[..., None]
    args[which] = target
    return args


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 6),
    st.integers(0, 3),
    st.sampled_from([None, "dtype", "extent", "strided", "transposed", "ndim"]),
    st.integers(0, 1),
)
def test_near_valid_calls(checked, n, k, mutation, which):
    args = _near_valid(n, k, mutation, which)
    expected = _expected_error(args)
    if mutation is None:
        assert expected is None
    if expected is None:
        checked(*args)
    else:
        with pytest.raises(expected):
            checked(*args)
