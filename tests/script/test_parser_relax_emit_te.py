"""R.emit_te inside TVMScript, `nonlocal` in Relax functions, and unary kernel names."""

import pytest

import tvm
from tvm import relax, topi
from tvm.script import ir as I
from tvm.script import relax as R


def _names(mod):
    return sorted(gv.name_hint for gv in mod.get_global_vars())


def test_emit_te_adds_the_primfunc_to_the_module():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            gv = R.emit_te(topi.exp, x, primfunc_name_hint="my_exp")
            gv1 = R.emit_te(topi.exp, gv, primfunc_name_hint="my_exp")
            return gv1

    assert _names(Mod) == ["main", "my_exp"]  # the second, equal kernel is shared
    call = Mod["main"].body.blocks[0].bindings[0].value
    assert call.op.name == "relax.call_tir" and call.args[0].name_hint == "my_exp"
    assert Mod["main"].ret_ty.script() == 'R.Tensor((2, 3), dtype="float32")'
    assert isinstance(Mod["my_exp"], tvm.tirx.PrimFunc)


def test_emit_te_matches_legalize_ops():
    dtype = "float32"

    @I.ir_module
    class Before:
        @R.function
        def main(x: R.Tensor((2, 3), dtype)):
            nonlocal dtype
            gv = R.exp(x)
            return gv

    @I.ir_module
    class Expected:
        @R.function
        def main(x: R.Tensor((2, 3), dtype)):
            nonlocal dtype
            gv = R.emit_te(topi.exp, x, primfunc_name_hint="tir_exp")
            return gv

    tvm.ir.assert_structural_equal(relax.transform.LegalizeOps()(Before), Expected)


def test_emit_te_needs_a_module():
    with pytest.raises(tvm.error.DiagnosticError, match="I.ir_module"):

        @R.function
        def main(x: R.Tensor((2,), "float32")):
            gv = R.emit_te(topi.exp, x)
            return gv


def test_unary_kernels_are_named_like_tvm():
    @I.ir_module
    class Mod:
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            a = R.sqrt(x)
            b = R.erf(a)
            c = R.square(b)
            return c

    assert _names(relax.transform.LegalizeOps()(Mod)) == ["erf", "main", "tir_sqrt", "tir_square"]


def test_r_tuple():
    @R.function
    def f(x: R.Tensor((2,), "float32")):
        t = R.tuple(x, x)
        e = R.tuple()
        return (t, e)

    t, e = (b.value for b in f.body.blocks[0].bindings)
    assert isinstance(t, relax.Tuple) and len(t.fields) == 2
    assert isinstance(e, relax.Tuple) and len(e.fields) == 0
    assert R.shape([1, 2]).values[1].value == 2  # builtin tuple still works in the R namespace
