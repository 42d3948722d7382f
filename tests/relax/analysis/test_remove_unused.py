"""remove_all_unused: dead bindings are dropped, impure calls outside dataflow kept."""

import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.relax.analysis import remove_all_unused

T = relax.TensorType


def _t():
    return T([3], "float32")


def test_removes_unused_in_dataflow():
    x = relax.Var("x", _t())
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            bb.emit(op.add(x, x))  # unused
            keep = bb.emit(op.multiply(x, x))
            bb.emit(op.add(keep, keep))  # unused, uses keep
            gv = bb.emit_output(keep)
        bb.emit_func_output(gv)
    func = bb.get()["main"]
    cleaned = remove_all_unused(func)
    names = [b.var.name_hint for b in cleaned.body.blocks[0].bindings]
    assert names == ["lv1", "gv"]
    assert remove_all_unused(cleaned) is cleaned

    x2 = relax.Var("x", _t())
    bb2 = relax.BlockBuilder()
    with bb2.function("main", [x2]):
        with bb2.dataflow():
            keep2 = bb2.emit(op.multiply(x2, x2))
            gv2 = bb2.emit_output(keep2)
        bb2.emit_func_output(gv2)
    tvm.ir.assert_structural_equal(cleaned, bb2.get()["main"])


def test_keeps_impure_calls_outside_dataflow():
    x = relax.Var("x", _t())
    bb = relax.BlockBuilder()
    with bb.function("main", [x], pure=False):
        bb.emit(op.print(x, format="{}"))
        bb.emit(op.add(x, x))
        bb.emit_func_output(x)
    cleaned = remove_all_unused(bb.get()["main"])
    bindings = cleaned.body.blocks[0].bindings
    assert len(bindings) == 1 and bindings[0].value.op.name == "relax.print"


def test_empty_blocks_dropped_and_module_input():
    x = relax.Var("x", _t())
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            bb.emit(op.add(x, x))
            gv = bb.emit_output(x)
        bb.emit_func_output(gv)
    mod = remove_all_unused(bb.get())
    assert [b.var.name_hint for b in mod["main"].body.blocks[0].bindings] == ["gv"]
    with pytest.raises(TypeError, match="expects a relax.Function or IRModule"):
        remove_all_unused(x)
