"""TVMScript: ``Module.sub(args)`` inside a PrimFunc calls another PrimFunc of the module."""

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
