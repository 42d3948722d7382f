"""TVMScript: subroutine calls (`Module.sub(args)`) and predicated `vload`/`vstore` statements."""

import pytest

import tvm
from tvm.script import ir as I
from tvm.script import tirx as T


def test_call_of_a_private_prim_func_is_a_tirx_call_of_its_global_var():
    @I.ir_module(s_tir=True)
    class Module:
        @T.prim_func(s_tir=True)
        def main(A: T.Buffer(4, "float32")):
            Module.fill(A.data, 4)

        @T.prim_func(private=True, s_tir=True)
        def fill(A_data: T.handle("float32"), n: T.int32):
            A = T.decl_buffer(4, "float32", data=A_data)
            for i in range(n):
                A[i] = T.float32(1)

    call = Module["main"].body.value
    assert isinstance(call, tvm.tirx.Call)
    assert call.op.same_as(Module.get_global_var("fill"))
    assert call.dtype == "void"
    assert isinstance(call.args[1], tvm.tirx.IntImm) and call.args[1].value == 4


def test_keyword_arguments_are_rejected():
    with pytest.raises(tvm.error.DiagnosticError, match="positional arguments only"):

        @I.ir_module(s_tir=True)
        class Module:
            @T.prim_func(s_tir=True)
            def main(A: T.Buffer(4, "float32")):
                Module.fill(A_data=A.data)

            @T.prim_func(private=True, s_tir=True)
            def fill(A_data: T.handle("float32")):
                A = T.decl_buffer(4, "float32", data=A_data)
                A[0] = T.float32(1)


def test_predicated_vload_vstore_round_trip():
    @T.prim_func(private=True, s_tir=True)
    def func(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(2):
            B.vstore([T.Ramp(i * 4, 1, 4)],
                     A.vload([T.Ramp(i * 4, 1, 4)],
                             predicate=T.get_active_lane_mask("uint1x4", i * 4, 7)),
                     predicate=T.get_active_lane_mask("uint1x4", i * 4, 7))

    store = func.body.body
    assert isinstance(store, tvm.tirx.BufferStore) and store.predicate is not None
    assert store.value.predicate is not None
    text = func.script()
    assert "B.vstore([T.Ramp(i * 4, 1, 4)], A.vload([T.Ramp(i * 4, 1, 4)], predicate=" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), func)
