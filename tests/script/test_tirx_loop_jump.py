"""``T.break_loop()`` / ``T.continue_loop()``: TVMScript's ``break`` / ``continue`` (TVM 0.27)."""

import tvm
from tvm import tirx
from tvm.script import from_source
from tvm.script import tirx as T
from tvm.tirx import stmt as S


def _loop_body(func):
    loop = func.body
    assert isinstance(loop, S.For)
    return list(loop.body.seq)


def test_break_loop_and_continue_loop_are_control_jump_calls():
    for make, name in ((tirx.break_loop, "tirx.break_loop"),
                       (tirx.continue_loop, "tirx.continue_loop")):
        call = make()
        assert isinstance(call, tirx.Call) and call.op.name == name and len(call.args) == 0
        effect = tvm.ir.Op.get(name).get_attr("TCallEffectKind")
        assert effect == tirx.CallEffectKind.ControlJump
    assert T.break_loop().op.name == "tirx.break_loop"


def test_keywords_and_explicit_calls_parse_to_the_same_ir():
    @T.prim_func(s_tir=True)
    def explicit():
        for i in range(16):
            if i % 2 == 0:
                T.evaluate(T.continue_loop())
            if i < 15:
                T.evaluate(T.break_loop())

    @T.prim_func(s_tir=True)
    def bare():
        for i in range(16):
            if i % 2 == 0:
                T.continue_loop()
            if i < 15:
                T.break_loop()

    @T.prim_func(s_tir=True)
    def keywords():
        for i in range(16):
            if i % 2 == 0:
                continue
            if i < 15:
                break

    first, second = _loop_body(keywords)
    assert isinstance(first.then_case, S.Continue)
    assert isinstance(second.then_case, S.Break)
    for other in (explicit, bare):
        tvm.ir.assert_structural_equal(other.body, keywords.body)


def test_printed_as_calls_and_round_trips():
    @T.prim_func(s_tir=True)
    def main(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(1000):
            if i % 13 == 0:
                A[1] = A[1] + T.float32(1.0)
                continue
            if A[0] >= B[0]:
                break

    text = main.script()
    # The form TVM 0.27 prints (checked against it).
    expected_tail = """
    for i in range(1000):
        if i % 13 == 0:
            A[1] = A[1] + T.float32(1.0)
            T.continue_loop()
        if A[0] >= B[0]:
            T.break_loop()"""
    assert text.rstrip().endswith(expected_tail)
    assert "break\n" not in text and "continue\n" not in text
    tvm.ir.assert_structural_equal(from_source(text), main)

