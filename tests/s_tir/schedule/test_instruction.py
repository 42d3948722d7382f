"""InstructionKind and TVM-style Instruction(kind, inputs, attrs, outputs)."""

import pytest

from tvm import s_tir
from tvm.s_tir.schedule import Instruction, InstructionKind, LoopRV, SBlockRV, Trace
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def scale(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.sblock("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] * T.float32(2)


def test_kinds_by_tvm_name():
    kind = InstructionKind.get("GetLoops")
    assert kind.name == "GetLoops" and kind == "get_loops" and kind.is_pure
    assert not InstructionKind.get("EnterPostproc").is_pure
    assert InstructionKind.get("GetSBlock").same_as(InstructionKind.get("get_sblock"))
    with pytest.raises(ValueError, match="unknown instruction kind 'NoSuchKind'"):
        InstructionKind.get("NoSuchKind")


def test_tvm_style_instructions_print_and_replay():
    b0, l1, l2, l3 = SBlockRV(), LoopRV(), LoopRV(), LoopRV()
    insts = [
        Instruction(kind=InstructionKind.get("GetSBlock"), inputs=[], attrs=["B", "main"],
                    outputs=[b0]),
        Instruction(kind=InstructionKind.get("GetLoops"), inputs=[b0], attrs=[],
                    outputs=[l1]),
        Instruction(kind=InstructionKind.get("Split"), inputs=[l1, None, T.int32(16)],
                    attrs=[T.bool(True), T.bool(False)], outputs=[l2, l3]),
    ]
    assert str(insts[1]) == "_, = sch.get_loops(block=_)"
    assert insts[2].inputs[0].same_as(l1) and len(insts[2].attrs) == 2
    trace = Trace(insts, {})
    assert trace.as_python()[2] == (
        "l2, l3 = sch.split(loop=l1, factors=[None, 16], preserve_unit_iters=True, "
        "disable_predication=False)")
    sch = s_tir.Schedule(scale)
    trace.apply_to_schedule(sch, remove_postproc=False)
    assert [int(sch.get(loop).extent) for loop in sch.get_loops(sch.get_sblock("B"))] == [4, 16]


def test_tvm_style_instruction_errors():
    with pytest.raises(ValueError, match="expected 2 attrs"):
        Instruction(kind=InstructionKind.get("GetSBlock"), inputs=[], attrs=["B"], outputs=[])
