"""Regression tests: PrimFunc signatures printed as Apache TVM 0.27 prints them."""

import pytest

import tvm
from tvm.script import from_source

_SRC = '''
@T.prim_func(private=True)
def copy(var_A: T.handle, var_B: T.handle, n: T.int64):
    A = T.match_buffer(var_A, (n,), "float32")
    B = T.match_buffer(var_B, (n,), "float32")
    for i in range(n):
        B[i] = A[i]
'''

# Apache TVM 0.27's output for _SRC: the scalar parameter ``n``, first used in A's shape,
# prints there as the string "n" and is then referred to by name.
_EXPECTED = '''# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis

@T.prim_func(private=True)
def main(A: T.Buffer(("n",), "float32"), B: T.Buffer((n,), "float32"), n: T.int64):
    for i in range(n):
        B[i] = A[i]'''


def test_scalar_param_used_in_earlier_buffer_shape():
    func = from_source(_SRC)
    assert func.buffer_map[func.params[0]].shape[0] is func.params[2]
    assert func.script() == _EXPECTED


@pytest.mark.xfail(
    reason="the T parser makes a new Var for `n: T.int64` instead of reusing the string dim "
    '"n" of an earlier buffer parameter (src/tvm/script/parser/tirx)',
    strict=True,
)
def test_scalar_param_used_in_earlier_buffer_shape_round_trip():
    func = from_source(_SRC)
    tvm.ir.assert_structural_equal(from_source(_EXPECTED), func)


def test_scalar_param_used_after_buffers_only():
    src = '''
@T.prim_func(private=True)
def f(n: T.int64, var_A: T.handle):
    A = T.match_buffer(var_A, (n,), "float32")
    for i in range(n):
        A[i] = T.float32(0.0)
'''
    func = from_source(src)
    text = func.script()
    assert 'def main(n: T.int64, A: T.Buffer((n,), "float32")):' in text
    tvm.ir.assert_structural_equal(from_source(text), func)
