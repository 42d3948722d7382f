"""``T.assume`` and ``T.vscale``: construction, TVMScript round trip, errors."""

import pytest

import tvm
from tvm import tirx
from tvm.script import tirx as T


def test_assume_round_trips_through_tvmscript():
    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((8,), "int32")):
        for i in range(8):
            with T.sblock("assume"):
                vi = T.axis.remap("S", [i])
                T.evaluate(T.assume(vi < 4 or A[vi] == 0))

    text = func.script()
    assert "T.assume(vi < 4 or A[vi] == 0)" in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), func)
    call = func.body.block.body.body.block.body.value
    assert call.op.name == "tirx.assume" and call.dtype == "bool"


def test_assume_checks_its_condition():
    x = tirx.Var("x", "int32")
    assert tirx.assume(x > 1).args[0].dtype == "bool"
    assert tirx.assume().args[0].value == 1
    with pytest.raises(TypeError, match="boolean condition"):
        tirx.assume(x + 1)


def test_vscale_is_an_int32_intrinsic():
    v = tirx.vscale()
    assert v.dtype == "int32" and v.op.name == "tirx.vscale" and not v.args
    assert str(4 * v) == "4 * T.vscale()"
