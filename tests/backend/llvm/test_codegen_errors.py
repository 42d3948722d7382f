"""Bad calls of compiled PrimFuncs raise TypeError/ValueError naming function, parameter, values."""


import numpy as np
import pytest

import tvm
from tvm import te
from tvm.testing.dlpack import fake_dlpack_tensor


@pytest.fixture(scope="module")
def add():
    n = te.var("n")
    A = te.placeholder((n, 4), "float32", name="A")
    B = te.placeholder((n, 4), "float32", name="B")
    C = te.compute((n, 4), lambda i, j: A[i, j] + B[i, j], name="C")
    return tvm.compile(te.create_prim_func([A, B, C]).with_attr("global_symbol", "add"))["add"]


def _zeros(*shape, dtype="float32"):
    return np.zeros(shape, dtype)


def test_argument_count(add):
    with pytest.raises(TypeError, match=r"(?s)Expected 3 arguments.*add\(.*got 2"):
        add(_zeros(2, 4), _zeros(2, 4))


def test_argument_kind(add):
    with pytest.raises(TypeError, match=r"(?s)argument #1.*expected Tensor, got int"):
        add(_zeros(2, 4), 3, _zeros(2, 4))


def test_ndim(add):
    with pytest.raises(ValueError, match=r"(?s)Mismatched B.ndim on argument #1.*expected 2, got 1"):
        add(_zeros(2, 4), _zeros(8), _zeros(2, 4))


def test_dtype(add):
    with pytest.raises(TypeError, match=r"(?s)Mismatched C.dtype.*expected float32, got float64"):
        add(_zeros(2, 4), _zeros(2, 4), _zeros(2, 4, dtype="float64"))


def test_static_shape(add):
    with pytest.raises(ValueError, match=r"(?s)Invalid A.shape\[1\].*expected 4, got 5"):
        add(_zeros(2, 5), _zeros(2, 4), _zeros(2, 4))


def test_symbolic_shape_consistency(add):
    with pytest.raises(ValueError, match=r"(?s)Mismatched B.shape\[0\].*n = 2.*got 3"):
        add(_zeros(2, 4), _zeros(3, 4), _zeros(2, 4))


def test_non_compact_strides_rejected(add):
    base = _zeros(4, 8)
    with pytest.raises(ValueError, match=r"(?s)Mismatched A.strides.*compact"):
        add(base[:, ::2], _zeros(4, 4), _zeros(4, 4))


def _on_device(array, device_type):
    """A tvm_ffi.Tensor over ``array``'s memory that claims to live on ``device_type``."""
    return fake_dlpack_tensor(array, array.shape, device_type=device_type)


def test_device(add):
    fake = _on_device(_zeros(2, 4), 2)
    with pytest.raises(ValueError, match=r"(?s)Mismatched B.device.*expected cpu, got cuda"):
        add(_zeros(2, 4), fake, _zeros(2, 4))


def test_good_call_after_bad_calls(add):
    a = np.ones((3, 4), "float32")
    c = _zeros(3, 4)
    add(a, a, c)
    np.testing.assert_array_equal(c, 2 * a)


@pytest.fixture(scope="module")
def repeat2():
    n = te.var("n")
    A = te.placeholder((n,), "float32", name="A")
    B = te.compute((n * 2,), lambda i: A[i // 2], name="B")
    return tvm.compile(te.create_prim_func([A, B]).with_attr("global_symbol", "rep"))["rep"]


def test_compound_dimension_is_checked(repeat2):
    a = np.arange(3, dtype="float32")
    b = _zeros(6)
    repeat2(a, b)
    np.testing.assert_array_equal(b, np.repeat(a, 2))
    # As TVM: the expected extent in terms of the argument that binds n (A.shape[0])
    with pytest.raises(ValueError, match=r"(?s)Invalid B.shape\[0\] on argument #1 when "
                                         r"calling:\n  `rep\(A: Tensor\(\[n\], float32\), "
                                         r"B: Tensor\(\[n \* 2\], float32\)\)`,\n  "
                                         r"expected A.shape\[0\] \* 2 = 6, got 5"):
        repeat2(a, _zeros(5))


def test_compound_dimension_needs_its_variables_bound():
    n = te.var("n")
    A = te.placeholder((n * 2,), "float32", name="A")
    B = te.compute((n * 2,), lambda i: A[i] + 1.0, name="B")
    with pytest.raises(ValueError, match="uses n, which no plain dimension or scalar parameter"):
        tvm.compile(te.create_prim_func([A, B]))


def test_shape_variable_defined_by_a_later_parameter():
    from tvm.script import tirx as T

    # n appears first inside A's compound dim; B's plain dim binds it (any order is fine)
    @T.prim_func(s_tir=True)
    def pairs(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n + 1,), "int32")
        B = T.match_buffer(b, (n,), "int32")
        for i in range(n):
            B[i] = A[i] + A[i + 1]

    assert tvm.tirx.analysis.verify_well_formed(pairs)
    lib = tvm.compile(pairs, target="llvm")
    out = np.zeros(4, dtype="int32")
    lib(np.array([1, 2, 3, 4, 5], dtype="int32"), out)
    np.testing.assert_array_equal(out, [3, 5, 7, 9])
    with pytest.raises(ValueError, match=r"(?s)Invalid A.shape\[0\] on argument #0.*"
                                         r"expected B.shape\[0\] \+ 1 = 5, got 10"):
        lib(np.zeros(10, dtype="int32"), out)
