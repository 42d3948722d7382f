"""relax.transform.NormalizeGlobalVar: public functions take their global_symbol as name."""

import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R


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
