"""Property-based fuzzing of calls into compiled kernels (issue 22, "Fuzzing and CI").

A compiled PrimFunc and a compiled Relax VM function are called with drawn arguments (arrays
of other shapes, dtypes and layouts, scalars, None, strings, too few or too many arguments).
Each call either succeeds (then the result is right) or raises ``ValueError``/``TypeError``;
nothing else, and never a crash of the process. Bounded by a fixed number of examples.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tvm
from tvm import relax, te
from tvm.script import relax as R

ALLOWED = (ValueError, TypeError)
FUZZ = settings(max_examples=80, deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def kernel():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    func = te.create_prim_func([A, B]).with_attr("global_symbol", "double")
    return tvm.compile(func, target="llvm")["double"]


@pytest.fixture(scope="module")
def vm_main():
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(relax.op.add(x, x)))
    ex = tvm.compile(bb.get(), target="llvm")
    return relax.VirtualMachine(ex, tvm.cpu())["main"]


_DTYPES = ["float32", "float64", "float16", "int32", "int64", "int8", "uint8", "bool"]


@st.composite
def argument(draw):
    kind = draw(st.sampled_from(["array", "array", "array", "tensor", "scalar", "none", "str",
                                 "list", "strided"]))
    if kind in ("array", "tensor", "strided"):
        ndim = draw(st.integers(0, 3))
        shape = tuple(draw(st.sampled_from([0, 1, 2, 3, 6, 8])) for _ in range(ndim))
        dtype = draw(st.sampled_from(_DTYPES))
        arr = np.zeros(shape, dtype)
        if kind == "strided" and ndim:
            arr = np.zeros(tuple(2 * s for s in shape), dtype)[(slice(None, None, 2),) * ndim]
        return tvm.runtime.tensor(arr) if kind == "tensor" else arr
    if kind == "scalar":
        return draw(st.one_of(st.integers(-2**70, 2**70), st.floats(), st.booleans()))
    if kind == "str":
        return draw(st.text(max_size=5))
    if kind == "list":
        return [1.0] * draw(st.integers(0, 8))
    return None


def _call(fn, args):
    try:
        fn(*args)
    except ALLOWED:
        return False
    except Exception as err:  # noqa: BLE001 - the property under test
        pytest.fail(f"{type(err).__name__}: {err} for arguments {args!r}")
    return True


@FUZZ
@given(args=st.lists(argument(), min_size=0, max_size=3))
def test_kernel_calls_with_drawn_arguments_raise_only_value_or_type_errors(kernel, args):
    _call(kernel, args)


@FUZZ
@given(args=st.lists(argument(), min_size=0, max_size=2))
def test_vm_calls_with_drawn_arguments_raise_only_value_or_type_errors(vm_main, args):
    _call(vm_main, args)


def test_a_good_call_still_computes(kernel, vm_main):
    a = np.arange(8, dtype="float32")
    b = np.zeros(8, "float32")
    kernel(a, b)
    np.testing.assert_allclose(b, a * 2)
    x = np.ones((2, 3), "float32")
    np.testing.assert_allclose(vm_main(tvm.runtime.tensor(x)).numpy(), x * 2)
