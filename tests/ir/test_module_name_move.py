"""``IRModule._move()`` and the ``__name__`` an ``@I.ir_module`` class gives its module."""

import pytest

import tvm
from tvm.ir import IRModule
from tvm.script import ir as I
from tvm.script import tirx as T


def _module():
    x = tvm.tirx.Var("x", "int32")
    func = tvm.tirx.PrimFunc([x], tvm.tirx.Evaluate(x)).with_attr("target_bits", 32)
    return IRModule({"main": func})


def test_move_hands_the_module_to_a_pass():
    mod = _module()
    assert mod._move() is mod
    out = tvm.tirx.transform.NarrowDataType(32)(mod._move())
    assert isinstance(out, IRModule)
    tvm.ir.assert_structural_equal(out, mod)


def test_ir_module_class_keeps_its_name():
    @I.ir_module
    class BlankIRModule:
        pass

    assert isinstance(BlankIRModule, IRModule) and len(BlankIRModule.functions) == 0
    assert BlankIRModule.__name__ == "BlankIRModule"

    @I.ir_module(check_well_formed=False)
    class WithFunc:
        @T.prim_func
        def main():
            T.evaluate(0)

    assert WithFunc.__name__ == "WithFunc"
    # Only the Python object carries it: not an IR field, so equality ignores it.
    assert IRModule.__name__ == "IRModule"
    plain = IRModule({"main": WithFunc["main"]})
    tvm.ir.assert_structural_equal(plain, WithFunc)
    with pytest.raises(AttributeError):
        _ = plain.__name__
    assert not hasattr(WithFunc.with_attr("k", 1), "__name__")
