"""remove_all_unused: dead bindings are dropped, impure calls outside dataflow kept."""

import pytest

import tvm
from tvm import relax
from tvm.relax import op
from tvm.relax.analysis import remove_all_unused
from tvm.script import relax as R
from tvm.script import tirx as TX

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


def test_unused_match_cast_that_defines_used_shape_vars_is_kept():
    @R.function
    def f(x: R.Tensor(dtype="float32")) -> R.Shape:
        n, m = TX.int64(), TX.int64()
        _ = R.match_cast(x, R.Tensor((n, m), "float32"))
        return R.shape([n * 2, m])

    out = remove_all_unused(f)
    bindings = out.body.blocks[0].bindings
    assert len(bindings) == 1 and isinstance(bindings[0], relax.MatchCast)


def test_unused_match_cast_defining_unused_vars_is_removed():
    @R.function
    def f(x: R.Tensor(dtype="float32")) -> R.Tensor(dtype="float32"):
        n = TX.int64()
        _ = R.match_cast(x, R.Tensor((n,), "float32"))
        return x

    assert not remove_all_unused(f).body.blocks
