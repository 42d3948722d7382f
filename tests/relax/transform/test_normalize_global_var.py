"""relax.transform.NormalizeGlobalVar: public functions take their global_symbol as name."""

import pytest

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def _before():
    @I.ir_module(check_well_formed=False)
    class Before:
        @R.function(private=True)
        def f():
            return R.const(1, "int32")

        @R.function
        def f1():
            R.func_attr({"global_symbol": "f"})
            cls = Before
            gv: R.Tensor((), dtype="int32") = cls.f()
            return gv

    return Before


def test_public_function_takes_its_symbol_and_the_private_one_moves():
    before = _before()
    assert not relax.analysis.check_well_formed(before)
    after = relax.transform.NormalizeGlobalVar()(before)
    relax.analysis.well_formed(after)
    assert sorted(g.name_hint for g in after.get_global_vars()) == ["f", "f1"]
    assert after["f"].attrs["global_symbol"] == "f"
    assert after["f1"].attrs is None or after["f1"].attrs.get("global_symbol") is None
    call = after["f"].body.blocks[0].bindings[0].value
    assert call.op.same_as(after.get_global_var("f1"))

    @I.ir_module
    class Expected:
        @R.function
        def f():
            cls = Expected
            gv: R.Tensor((), dtype="int32") = cls.f1()
            return gv

        @R.function(private=True)
        def f1():
            return R.const(1, "int32")

    tvm.ir.assert_structural_equal(after, Expected)


def test_nothing_to_rename_returns_the_module():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            return x

    assert relax.transform.NormalizeGlobalVar()(Mod).same_as(Mod)


def test_private_names_follow_tvms_name_supply():
    # Public "func" takes its symbol; the private "func" becomes "func1", and the private
    # function already named "func1" then becomes "func11" (TVM's unique-name supply).
    bb = relax.BlockBuilder()
    with bb.function("func", [], private=True):
        first = bb.emit_func_output(relax.const(0, "int64"))
    with bb.function("func", [], private=True):
        second = bb.emit_func_output(bb.emit(relax.Call(first, [])))
    with bb.function("func", []):
        bb.emit_func_output(bb.emit(relax.Call(second, [])))
    before = bb.get()
    assert sorted(g.name_hint for g in before.get_global_vars()) == ["func", "func1", "func2"]
    assert not relax.analysis.check_well_formed(before)
    after = relax.transform.NormalizeGlobalVar()(before)
    relax.analysis.well_formed(after)
    assert sorted(g.name_hint for g in after.get_global_vars()) == ["func", "func1", "func11"]
    calls = {g.name_hint: f.body.blocks[0].bindings[0].value.op.name_hint
             for g, f in after.functions.items() if f.body.blocks}
    assert calls == {"func": "func11", "func11": "func1"}


def test_duplicate_global_symbols_are_rejected():
    bb = relax.BlockBuilder()
    with bb.function("a", [], attrs={"global_symbol": "same"}):
        bb.emit_func_output(relax.const(0, "int64"))
    with bb.function("b", [], attrs={"global_symbol": "same"}):
        bb.emit_func_output(relax.const(1, "int64"))
    with pytest.raises(ValueError, match="IRModule contains duplicate global symbol: same"):
        relax.transform.NormalizeGlobalVar()(bb.get())


def test_rebinding_takes_the_new_callee_type():
    # gv's annotation contradicts the call's type; once the callee is renamed the binding is
    # re-emitted with the value's type, and the return type follows the body (as in TVM).
    @I.ir_module(check_well_formed=False)
    class Before:
        @T.prim_func(private=True)
        def f(x: T.Buffer((1,), "int32")):
            x[0] = T.int32(0)

        @R.function
        def f1():
            R.func_attr({"global_symbol": "f"})
            cls = Before
            gv: R.Tensor((), dtype="int32") = R.call_tir(cls.f, (), R.Tensor((1,), "int32"))
            return gv

    after = relax.transform.NormalizeGlobalVar()(Before)
    relax.analysis.well_formed(after)
    assert sorted(g.name_hint for g in after.get_global_vars()) == ["f", "f1"]
    tvm.ir.assert_structural_equal(after["f"].ret_ty, relax.TensorType([1], "int32"))
