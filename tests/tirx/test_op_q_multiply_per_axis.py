"""tirx.q_multiply_shift_per_axis: an int32 call that parses and prints as TVM's."""

import tvm
from tvm import tirx
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def requant(A: T.Buffer((4,), "int32"), S: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
    for i in range(4):
        with T.sblock("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = T.q_multiply_shift_per_axis(A[vi], S[vi], 0, 3, 31, False, True)


def test_per_axis_call_roundtrips():
    text = requant.script()
    assert "T.q_multiply_shift_per_axis(A[vi], S[vi], 0, 3, 31, T.bool(False), T.bool(True))" \
        in text
    tvm.ir.assert_structural_equal(requant, tvm.script.from_source(text))
    call = tirx.q_multiply_shift_per_axis(1, 2, 0, 3, 31, False, True)
    assert call.dtype == "int32" and len(call.args) == 7
