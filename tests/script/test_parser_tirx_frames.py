"""Frames opened without ``with`` (``T.launch_thread(tx, 128)`` as a statement) last to the
end of the enclosing body, loop bodies included; parse -> print -> parse round trips."""

import tvm
from tvm import tirx
from tvm.script import from_source


def _roundtrip(func):
    text = func.script()
    again = from_source(text)
    tvm.ir.assert_structural_equal(func, again)
    return text


def test_frame_opened_without_with_in_a_loop_body_ends_with_the_body():
    src = """
@T.prim_func(s_tir=True)
def f(a: T.handle) -> None:
    threadIdx_x = T.env_thread("threadIdx.x")
    A = T.match_buffer(a, [16384], dtype="float32")
    for i in T.serial(0, 128):
        T.launch_thread(threadIdx_x, 128)
        A[i * 128 + threadIdx_x] = T.float32(0)
    A[0] = T.float32(1)
"""
    func = from_source(src)
    loop = func.body.seq[0]
    assert isinstance(loop, tirx.For)
    # The thread launch is inside the loop body; the statement after the loop is outside.
    assert isinstance(loop.body, tirx.AttrStmt) and loop.body.attr_key == "thread_extent"
    assert isinstance(func.body.seq[1], tirx.BufferStore)
    _roundtrip(func)
