"""tvm.ir types: PrimType, PointerType, TupleType, FuncType."""

import pytest

import tvm
from tvm import relax
from tvm.ir import FuncType, PointerType, PrimType, TupleType


def test_prim_type():
    assert PrimType("int64").dtype == "int64"
    assert relax.PrimType is PrimType
    assert tvm.ir.structural_equal(PrimType("int64"), PrimType("int64"))
    assert not tvm.ir.structural_equal(PrimType("int64"), PrimType("int32"))


def test_prim_type_from_value():
    from tvm.tirx.expr import IntImm

    t = PrimType(IntImm("int64", 3))
    assert t.dtype == "int64" and t.value.value == 3
    with pytest.raises(TypeError, match="dtype string"):
        PrimType(3.5)


def test_pointer_and_tuple_types():
    p = PointerType(PrimType("float32"), "global")
    assert p.element_type.dtype == "float32" and p.storage_scope == "global"
    with pytest.raises(TypeError, match="expects a Type"):
        PointerType("float32")
    t = TupleType([PrimType("int32"), PrimType("float32")])
    assert len(t.fields) == 2
    assert relax.TupleType is TupleType
    with pytest.raises(TypeError, match="field 1 must be a Type"):
        TupleType([PrimType("int32"), 3])


def test_func_type():
    f = FuncType([PrimType("int32")], PrimType("int32"))
    assert f.arg_types[0].dtype == "int32" and f.ret_type.dtype == "int32"
    assert tvm.ir.structural_equal(f, FuncType([PrimType("int32")], PrimType("int32")))


def test_types_are_immutable():
    t = PrimType("int32")
    with pytest.raises(AttributeError, match="immutable"):
        t.dtype = "int64"
