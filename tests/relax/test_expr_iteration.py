"""Iterating Relax expressions ends (issue 22, defect 8): a tuple iterates over its fields, a
shape over its dims, anything else is a TypeError instead of an endless ``x[0], x[1], ...``."""

import pytest

from tvm import relax
from tvm.script import relax as R
from tvm.script import tirx as T


def test_a_tensor_types_shape_lists_its_dims():
    x = relax.Var("x", R.Tensor((2, 3), "float32"))
    assert [int(d) for d in list(x.ty.shape)] == [2, 3]


def test_a_tuple_typed_var_iterates_over_its_fields_and_stops():
    t = relax.Var("t", R.Tuple(R.Tensor((2, 3), "float32"), R.Tensor((2,), "float32")))
    items = list(t)
    assert [i.index for i in items] == [0, 1]
    assert all(i.tuple_value is t for i in items)
    with pytest.raises(IndexError, match="tuple index 2 out of range for 2 fields"):
        t[2]


@pytest.mark.parametrize(
    "ty", [R.Tensor((2, 3), "float32"), R.Shape([2, 3]), R.Object()], ids=str
)
def test_other_relax_values_are_not_iterable(ty):
    v = relax.Var("v", ty)
    with pytest.raises(TypeError, match="is not iterable; only tuple-typed"):
        list(v)


def test_buffer_of_a_relax_var_is_a_type_error_not_a_hang():
    v = relax.Var("v", R.Tensor((2, 3), "float32"))
    with pytest.raises(TypeError, match="not iterable"):
        T.Buffer(v)
