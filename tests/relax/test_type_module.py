"""tvm.relax.type is the module path of the Relax types in TVM 0.27."""

from tvm import relax


def test_relax_type_names_the_same_classes():
    from tvm.relax.type import ShapeType, TensorType, TupleType

    assert TensorType is relax.TensorType and TupleType is relax.TupleType
    ty = TupleType([TensorType((2,), "float32"), ShapeType([3])])
    assert ty.script() == 'R.Tuple(R.Tensor((2,), dtype="float32"), R.Shape([3]))'


def test_shape_expr_indexes_its_dimensions():
    import pytest

    shape = relax.TensorType((2, 3), "float32").shape
    assert len(shape) == 2 and [int(d) for d in shape] == [2, 3]
    assert int(shape[-1]) == 3
    with pytest.raises(IndexError, match="out of range"):
        shape[2]
    with pytest.raises(TypeError, match="must be an int"):
        shape["a"]
