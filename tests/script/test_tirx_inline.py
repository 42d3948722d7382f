"""``@T.inline``: parse-time inlining with Python's LEGB name lookup."""

import pytest

from tvm.error import DiagnosticError
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T

SCALE = 3


@T.inline
def store_scaled(buf, i):
    # ``SCALE`` comes from this module's globals, not from the kernel that calls us.
    buf[i] = buf[i] * SCALE


def test_module_level_inline_uses_its_globals():
    @T.prim_func(private=True)
    def kernel(A: T.Buffer((8,), "int32")):
        SCALE = 100  # noqa: F841 - a caller's local must not leak into the inline
        for i in range(8):
            store_scaled(A, i)

    @T.prim_func(private=True)
    def expected(A: T.Buffer((8,), "int32")):
        SCALE = 100  # noqa: F841
        for i in range(8):
            A[i] = A[i] * 3

    assert_structural_equal(kernel, expected)


def test_closure_and_inline_arguments():
    offset = 5

    @T.inline
    def shift(buf, i):
        buf[i] = buf[i] + offset

    @T.inline
    def twice(fn, buf, i):
        fn(buf, i)
        fn(buf, i)

    @T.prim_func(private=True)
    def kernel(A: T.Buffer((4,), "int32")):
        twice(shift, A, 1)

    @T.prim_func(private=True)
    def expected(A: T.Buffer((4,), "int32")):
        A[1] = A[1] + 5
        A[1] = A[1] + 5

    assert_structural_equal(kernel, expected)


def test_kernel_local_inline_late_binding_and_recursion():
    @T.prim_func(private=True)
    def kernel(A: T.Buffer((4,), "int32")):
        @T.inline
        def fill(n):
            if n > 0:
                fill(n - 1)
                A[n - 1] = base + n

        base = T.int32(10)
        fill(3)

    @T.prim_func(private=True)
    def expected(A: T.Buffer((4,), "int32")):
        base = T.int32(10)
        A[0] = base + 1
        A[1] = base + 2
        A[2] = base + 3

    assert_structural_equal(kernel, expected)


def test_inline_returns_a_value():
    @T.inline
    def double(x):
        return x * 2

    @T.prim_func(private=True)
    def kernel(A: T.Buffer((4,), "int32")):
        A[0] = double(A[1])

    @T.prim_func(private=True)
    def expected(A: T.Buffer((4,), "int32")):
        A[0] = A[1] * 2

    assert_structural_equal(kernel, expected)


def test_kernel_local_inline_argument_errors():
    with pytest.raises(DiagnosticError, match="missing arguments"):
        @T.prim_func(private=True)
        def kernel(A: T.Buffer((4,), "int32")):
            @T.inline
            def put(i, v):
                A[i] = v

            put(0)


def test_inline_outside_a_kernel_is_an_error():
    with pytest.raises(TypeError, match="only be called inside a @T.prim_func"):
        store_scaled(None, 0)
