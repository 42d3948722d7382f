"""Tensor-core fragment builtins (tvm.tirx.op_wmma) in TVMScript, and T.<op>(..., dtype=...)."""

import pytest

import tvm
from tvm import tirx
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def load_fragment(A: T.Buffer((16, 16), "float16"), B: T.Buffer((16, 16), "float16")):
    T.evaluate(
        T.tvm_load_matrix_sync(
            B.data, 16, 16, 16, 0,
            T.tvm_access_ptr(T.type_annotation(dtype="float16"), A.data, 0, 256, 1,
                             dtype="handle"),
            16, "row_major", dtype="handle",
        )
    )
    T.evaluate(T.tvm_fill_fragment(B.data, 16, 16, 16, 0, T.float16(0), dtype="handle"))
    T.evaluate(T.tvm_mma_sync(B.data, 0, A.data, 0, A.data, 0, B.data, 0, dtype="handle"))


@T.prim_func(s_tir=True)
def select_with_dtype(B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
    for j in range(16):
        with T.sblock("C"):
            v = T.axis.spatial(16, j)
            C[v] = T.if_then_else(v < 15, T.max(B[v], B[v + 1]), B[v], dtype="float32")
            T.evaluate(T.call_extern("f", v, dtype="int32"))


def test_wmma_calls_parse_print_and_roundtrip():
    text = load_fragment.script()
    assert 'T.tvm_access_ptr(T.type_annotation("float16"), A.data, 0, 256, 1)' in text
    assert 'T.tvm_load_matrix_sync(B.data, 16, 16, 16, 0, ' in text
    assert "T.tvm_mma_sync(B.data, 0, A.data, 0, A.data, 0, B.data, 0)" in text
    tvm.ir.assert_structural_equal(load_fragment, tvm.script.from_source(text))


def test_wmma_call_nodes():
    ptr = tirx.tvm_access_ptr(tirx.type_annotation("float16"), tirx.Var("a", "handle"), 0, 8, 1)
    assert ptr.dtype == "handle" and ptr.op.name == "tirx.tvm_access_ptr"
    assert ptr.args[0].dtype == "float16"
    with pytest.raises(TypeError):
        tirx.tvm_fill_fragment(ptr, 16, 16, 16)


def test_dtype_keyword_is_dropped_or_moved_first():
    text = select_with_dtype.script()
    assert "T.if_then_else(v < 15, T.max(B[v], B[v + 1]), B[v])" in text
    assert 'T.call_extern("int32", "f", v)' in text
    tvm.ir.assert_structural_equal(select_with_dtype, tvm.script.from_source(text))
