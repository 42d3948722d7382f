"""``tvm.ir.Range``: ``Range(begin, end)`` is ``[begin, end)`` as in Apache TVM 0.27.

Expected values (min/extent text, dtypes, ``str``) were read from Apache TVM 0.27.
"""

import pytest

import tvm
from tvm import tirx
from tvm.ir import Range
from tvm.script import tirx as T


def _show(r):
    return str(r.min), str(r.extent), r.min.dtype, r.extent.dtype


def test_begin_end_integers_fold():
    r = Range(2, 5)
    assert isinstance(r.min, tirx.IntImm) and isinstance(r.extent, tirx.IntImm)
    assert _show(r) == ("2", "3", "int32", "int32")
    assert str(r) == "I.Range(2, 5)"


def test_single_argument_is_zero_to_n():
    assert _show(Range(5)) == ("0", "5", "int32", "int32")
    n = tirx.Var("n", "int64")
    r = Range(n)
    assert _show(r) == ("T.int64(0)", "n", "int64", "int64")
    assert r.extent is n


def test_symbolic_end_keeps_begin_dtype_and_promotes_extent():
    n = tirx.Var("n", "int64")
    r = Range(1, n)
    assert _show(r) == ("1", "n - T.int64(1)", "int32", "int64")


def test_symbolic_begin_and_end_is_not_simplified():
    m = tirx.Var("m", "int32")
    r = Range(m, m + 4)
    assert r.min is m
    assert str(r.extent) == "m + 4 - m"


def test_zero_begin_keeps_end_as_extent():
    n = tirx.Var("n", "int32")
    assert Range(0, n).extent is n


def test_int_end_takes_dtype_from_begin_through_subtraction():
    r = Range(tirx.IntImm("int64", 2), 5)
    assert _show(r) == ("T.int64(2)", "T.int64(3)", "int64", "int64")
    assert str(r) == "I.Range(T.int64(2), T.int64(5))"


def test_keywords_and_span():
    r = Range(begin=1, end=3)
    assert str(r) == "I.Range(1, 3)"
    assert r.span is None


def test_reversed_bounds_give_negative_extent():
    # TVM does not reject an empty range; the extent is simply negative.
    assert str(Range(5, 2).extent) == "-3"


def test_from_min_extent():
    r = Range.from_min_extent(2, 5)
    assert _show(r) == ("2", "5", "int32", "int32")
    assert str(r) == "I.Range(2, 7)"
    v = tirx.Var("v", "int32")
    r = Range.from_min_extent(v, tirx.IntImm("int32", 1))
    assert r.min is v and r.extent.value == 1


def test_structural_equality_between_spellings():
    tvm.ir.assert_structural_equal(Range(2, 5), Range.from_min_extent(2, 3))
    tvm.ir.assert_structural_equal(Range(7), Range.from_min_extent(0, 7))
    with pytest.raises(ValueError):
        tvm.ir.assert_structural_equal(Range(2, 5), Range.from_min_extent(2, 5))


def test_replace_keeps_fields():
    r = Range(2, 5).replace(extent=tirx.IntImm("int32", 10))
    assert str(r) == "I.Range(2, 12)"


def test_bad_bounds_raise_type_error_naming_the_bound():
    with pytest.raises(TypeError, match="Range begin must be an integer"):
        Range("a", 5)
    with pytest.raises(TypeError, match="Range end must be an integer"):
        Range(0, [1])
    with pytest.raises(TypeError, match="Range end must have an integer dtype.*float32"):
        Range(0, tirx.FloatImm("float32", 2.0))


@T.prim_func(s_tir=True)
def _offset_loops(A: T.Buffer((16,), "float32")):
    for i in range(2, 10):
        with T.sblock("b"):
            vi = T.axis.spatial((2, 10), i)
            A[vi] = T.float32(0)


def test_script_domains_are_begin_end():
    loop = _offset_loops.body
    while not isinstance(loop, tirx.For):
        loop = loop.body if hasattr(loop, "body") else loop.block.body
    assert (loop.min.value, loop.extent.value) == (2, 8)
    realize = loop.body
    block = realize.block
    dom = block.iter_vars[0].dom
    assert (dom.min.value, dom.extent.value) == (2, 8)


def test_script_round_trip():
    text = _offset_loops.script()
    assert "range(2, 10)" in text
    assert "T.axis.spatial((2, 10), i)" in text
    reparsed = tvm.script.from_source(text)
    tvm.ir.assert_structural_equal(_offset_loops, reparsed)
