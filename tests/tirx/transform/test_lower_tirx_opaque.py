"""LowerTIRxOpaque: thread-binding loops -> launch_thread, unit loops removed, pragmas."""

import tvm
from tvm.script import tirx as T


def run(func):
    return tvm.tirx.transform.LowerTIRxOpaque()(tvm.IRModule({"main": func}))["main"]


def test_thread_binding_loop_becomes_launch_thread_and_unit_loop_goes():
    @T.prim_func
    def before(A: T.Buffer((128,), "float32")):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            for j in range(1):
                A[tx + j] = T.float32(1)

    out = run(before)
    assert isinstance(out.body, tvm.tirx.AttrStmt)
    assert out.body.attr_key == "thread_extent"
    assert out.body.node.thread_tag == "threadIdx.x"
    assert isinstance(out.body.body, tvm.tirx.BufferStore)  # the unit loop is gone
    # Its variable is replaced by the loop start (not simplified, as in 0.27).
    assert "A[tx + 0] = T.float32(1.0)" in out.script()


def test_pragma_annotation_becomes_attr_and_others_stay():
    @T.prim_func
    def before(A: T.Buffer((4,), "float32")):
        for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16, "keep": 1}):
            A[i] = T.float32(0)

    out = run(before)
    text = out.script()
    assert 'T.attr(i, "pragma_auto_unroll_max_step", 16)' in text
    assert '"keep": 1' in text
    assert "pragma_auto_unroll_max_step\": " not in text


def test_function_without_such_loops_is_unchanged():
    @T.prim_func
    def f(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)

    assert run(f) is f
