"""Buffer.access_ptr: tvm_access_ptr calls with the offset/extent/mask TVM computes."""

import pytest

import tvm
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def pointers(B: T.Buffer((16, 8), "float32"), C: T.Buffer((16,), "float32")):
    T.evaluate(B.access_ptr("r", extent=128))
    T.evaluate(B.access_ptr("rw", offset=4))
    T.evaluate(C.access_ptr("w", "float32", content_lanes=4))
    T.evaluate(T.cast(C[0], "float16"))


def test_access_ptr_prints_as_tvm():
    text = pointers.script()
    assert 'T.tvm_access_ptr(T.type_annotation("float32"), B.data, 0, 128, 1)' in text
    assert 'T.tvm_access_ptr(T.type_annotation("float32"), B.data, 4, 124, 3)' in text
    assert 'T.tvm_access_ptr(T.type_annotation("float32x4"), C.data, 0, 4, 2)' in text
    assert 'T.Cast("float16", C[0])' in text
    tvm.ir.assert_structural_equal(pointers, tvm.script.from_source(text))


def test_access_ptr_rejects_bad_mask():
    buf = tvm.tirx.decl_buffer((4,), "int8", name="X")
    with pytest.raises(ValueError, match="access_mask 'rx' may only contain"):
        buf.access_ptr("rx")
