"""``tirx.For`` built by hand: literal bounds take the loop variable's dtype, as in TVM 0.27,
and a literal the dtype cannot hold is rejected."""

import pytest

import tvm
from tvm import tirx


def _loop(dtype, lo, extent, step=None):
    return tirx.For(tirx.Var("i", dtype), lo, extent, tirx.ForKind.SERIAL, tirx.Evaluate(0),
                    step=step)


def test_python_int_bounds_take_loop_dtype():
    loop = _loop("uint32", 0, 128)
    assert (loop.min.dtype, loop.extent.dtype) == ("uint32", "uint32")


def test_intimm_bounds_are_converted_to_loop_dtype():
    loop = _loop("int64", tirx.IntImm("int32", 0), tirx.IntImm("int32", 100),
                 step=tirx.IntImm("int32", 2))
    assert (loop.min.dtype, loop.extent.dtype, loop.step.dtype) == ("int64",) * 3
    assert (int(loop.min), int(loop.extent), int(loop.step)) == (0, 100, 2)


@pytest.mark.parametrize(("dtype", "lo", "extent", "bad"), [
    ("uint32", -1, 128, -1),
    ("uint32", 0, 1 << 32, 1 << 32),
    ("int8", 0, tirx.IntImm("int32", 200), 200),
])
def test_unrepresentable_literal_is_rejected(dtype, lo, extent, bad):
    with pytest.raises(ValueError, match=f"Literal value {bad} is not representable .*{dtype}"):
        _loop(dtype, lo, extent)


def test_symbolic_bounds_are_kept():
    n = tirx.Var("n", "int32")
    loop = _loop("int32", 0, n)
    assert loop.extent.same_as(n)
    # A bound of another dtype that is not a literal is left as given.
    m = tirx.Var("m", "int64")
    assert _loop("int32", 0, m).extent.same_as(m)


def test_printed_uint32_loop_parses_back():
    loop = _loop("uint32", 0, 4)
    func = tirx.PrimFunc([], loop)
    parsed = tvm.script.from_source(func.script())
    tvm.ir.assert_structural_equal(func, parsed)
