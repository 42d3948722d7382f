"""``te.compute`` names its axes after fcompute's parameters (fast path and inspect agree)."""

import functools

import pytest

from tvm import te
from tvm.te.tensor import _param_names
from tvm.te.tensor import _param_names_by_signature as _by_inspect


def _plain(i, j):
    return i + j


def _closure(i, j):
    return lambda: i + j  # i and j are cell variables


@functools.wraps(_plain)
def _wrapped(*indices):
    return indices


class _Holder:
    def method(self, i, j):
        return i


@pytest.mark.parametrize(
    "fcompute",
    [
        _plain,
        _closure,
        _wrapped,  # __wrapped__: inspect reports the wrapped function's parameters
        _Holder().method,
        functools.partial(_plain, 1),
        lambda *idx: 0,
        lambda i, *rest: 0,
        lambda i, j=1: 0,
        lambda i, /, j: 0,
        lambda i, **kw: 0,
        lambda i, *, k: 0,
        lambda i, *a, k, **kw: 0,
    ],
)
def test_param_names_match_inspect(fcompute):
    assert _param_names(fcompute) == _by_inspect(fcompute)


def test_axis_names_follow_parameters_and_varargs():
    A = te.placeholder((2, 3, 4), name="A")
    B = te.compute(A.shape, lambda x, y, z: A[x, y, z], name="B")
    C = te.compute(A.shape, lambda x, *rest: A[(x, *rest)], name="C")
    D = te.compute(A.shape, lambda *i: A[i], name="D", varargs_names=["p", "q", "r"])
    assert [iv.var.name for iv in B.op.axis] == ["x", "y", "z"]
    assert [iv.var.name for iv in C.op.axis] == ["x", "i1", "i2"]
    assert [iv.var.name for iv in D.op.axis] == ["p", "q", "r"]
    with pytest.raises(ValueError, match="takes 2 arguments, but the shape has 3"):
        te.compute(A.shape, lambda x, y: A[x, y, 0])
