"""Buffer and decl_buffer: defaults, scope, indexing, errors."""

import pytest

from tvm import tirx
from tvm.ffi.structural import structural_equal
from tvm.ir import PointerType, PrimType


def test_decl_buffer_defaults_match_tvm():
    A = tirx.decl_buffer((4, 5), "float32", name="X")
    assert A.name == "X" and A.dtype == "float32"
    assert [s.value for s in A.shape] == [4, 5]
    assert A.strides == () and A.elem_offset.value == 0
    assert A.data_alignment == 64 and A.offset_factor == 1
    assert A.axis_separators == () and A.scope() == "global"
    assert A.data.name == "X" and A.data.dtype == "handle"
    assert structural_equal(A.data.type_annotation, PointerType(PrimType("float32"), ""))
    assert tirx.decl_buffer((3,), None).dtype == "float32"


def test_scope_comes_from_the_data_pointer():
    S = tirx.decl_buffer((8,), "float16", name="S", scope="shared")
    assert S.scope() == "shared"
    assert S.data.type_annotation.storage_scope == "shared"


def test_symbolic_shape_and_explicit_data():
    n = tirx.Var("n", "int32")
    data = tirx.Var("ptr", PointerType(PrimType("int8"), "local"))
    B = tirx.decl_buffer((n, 2), "int8", name="B", data=data, strides=[2, 1], elem_offset=3,
                         data_alignment=16, offset_factor=4, axis_separators=[1])
    assert B.shape[0] is n and B.data is data and B.scope() == "local"
    assert [s.value for s in B.strides] == [2, 1] and B.elem_offset.value == 3
    assert (B.data_alignment, B.offset_factor, B.axis_separators) == (16, 4, (1,))


def test_indexing_builds_loads_and_regions():
    A = tirx.decl_buffer((4, 5), "int32", name="A")
    i = tirx.Var("i", "int32")
    load = A[i, 2]
    assert isinstance(load, tirx.BufferLoad) and load.indices[1].value == 2
    assert load.dtype == "int32"
    assert isinstance(A[0:2, i], tirx.BufferRegion)
    store = A.vstore([i, 0], 7)
    assert isinstance(store, tirx.BufferStore) and store.value.value == 7
    assert A.vload([i, 1]).indices[1].value == 1
    with pytest.raises(ValueError, match="only scalar loads"):
        A.vload([i, 1], "int32x4")
    with pytest.raises(ValueError, match="step 1"):
        A[0:4:2, 0]


def test_offset_of_row_major_and_strided():
    A = tirx.decl_buffer((4, 5), "float32", name="A")
    (off,) = A.offset_of([2, 3])
    assert off.value == 13
    S = tirx.decl_buffer((4, 5), "float32", name="S", strides=[1, 4])
    assert S.offset_of([2, 3])[0].value == 14


def test_decl_buffer_errors():
    with pytest.raises(TypeError, match="ints or PrimExprs"):
        tirx.decl_buffer((4, "x"))
    with pytest.raises(TypeError, match="data must be a tirx.Var"):
        tirx.decl_buffer((4,), data="ptr")
    with pytest.raises(ValueError, match="buffer_type"):
        tirx.decl_buffer((4,), buffer_type="weird")
    assert tirx.decl_buffer((4,), buffer_type="auto_broadcast").buffer_type == 2


def test_buffers_compare_by_content_not_name():
    data = tirx.Var("p", PointerType(PrimType("float32")))
    a = tirx.decl_buffer((4,), name="a", data=data)
    b = tirx.decl_buffer((4,), name="b", data=data)
    assert structural_equal(a, b)
    assert not structural_equal(a, tirx.decl_buffer((5,), name="a", data=data))


def test_numpy_integer_shapes_and_flattened_buffer():
    import numpy as np

    A = tirx.decl_buffer((np.int64(2), np.int32(3)), "float32", name="A")
    assert [s.value for s in A.shape] == [2, 3]
    flat = A.get_flattened_buffer()
    assert [s.value for s in flat.shape] == [6] and flat.data is A.data
    S = tirx.decl_buffer((2, 3), "float32", name="S", strides=[8, 2])
    assert S.get_flattened_buffer().shape[0].value == 1 * 8 + 2 * 2 + 1


def test_buffer_data_pointer_type():
    import tvm

    a = tvm.tirx.decl_buffer((8,), "int4x4", name="A")
    ty = tvm.tirx.buffer_data_pointer_type(a)
    assert isinstance(ty, tvm.ir.PointerType)
    assert str(ty) == 'T.handle("int4x4", "global")'
    shared = tvm.tirx.decl_buffer((8,), "float16", name="B", scope="shared")
    assert str(tvm.tirx.buffer_data_pointer_type(shared)) == 'T.handle("float16", "shared")'
    # A Var of that type can be the buffer's data.
    data = tvm.tirx.Var("A_data", ty)
    assert tvm.tirx.DeclBuffer(a, data=data).data is data
    with pytest.raises(TypeError, match="expects a tirx.Buffer"):
        tvm.tirx.buffer_data_pointer_type(a.data)
