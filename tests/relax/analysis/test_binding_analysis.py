"""get_var2val, name_to_binding, udchain, used_vars, contains_impure_call, post_order_visit,
and the symbolic-var / call-derivation helpers."""

import tvm
from tvm import relax
from tvm.ir import GlobalVar, Op
from tvm.relax import op
from tvm.relax.analysis import (
    contains_impure_call,
    definable_tir_vars_in_type,
    derive_call_ret_type,
    get_var2val,
    name_to_binding,
    post_order_visit,
    tir_vars_in_type,
    udchain,
    used_vars,
)
from tvm.tirx.expr import Var as TirVar

T = relax.TensorType


def _func(pure=True):
    x = relax.Var("x", T([3], "float32"))
    bb = relax.BlockBuilder()
    with bb.function("main", [x], pure=pure):
        with bb.dataflow():
            a = bb.emit(op.add(x, x), name_hint="a")
            b = bb.emit(op.multiply(a, x), name_hint="b")
            c = bb.emit(op.add(a, b), name_hint="c")
            gv = bb.emit_output(c)
        if not pure:
            bb.emit(op.print(gv, format="{}"))
        bb.emit_func_output(gv)
    return bb.get()["main"], x, a, b, c, gv


def test_var2val_and_names():
    func, _x, a, b, c, gv = _func()
    var2val = get_var2val(func)
    assert var2val[a].op is Op.get("relax.add") and var2val[gv] is c
    assert [bd.var for bd in name_to_binding(func)["b"]] == [b]


def test_udchain_and_used_vars():
    func, x, a, b, c, gv = _func()
    chain = udchain(func.body.blocks[0])
    assert chain[a] == [b, c] and chain[b] == [c] and chain[c] == [gv] and chain[gv] == []
    assert used_vars(func) == [x, a, b, c, gv]


def test_contains_impure_call():
    func = _func()[0]
    assert not contains_impure_call(func)
    impure = _func(pure=False)[0]
    assert contains_impure_call(impure)
    assert not contains_impure_call(impure.with_attr("relax.force_pure", True))
    x = relax.Var("x", T([3], "float32"))
    assert contains_impure_call(relax.Call(relax.ExternFunc("f"), [x]))
    gv = GlobalVar("self")
    assert not contains_impure_call(relax.Call(gv, [x]), own_name=gv)


def test_post_order_visit():
    x = relax.Var("x", T([3], "float32"))
    call = op.add(op.multiply(x, x), x)
    seen = []
    post_order_visit(call, lambda n: seen.append(type(n).__name__))
    assert seen.index("Var") < seen.index("Call")
    assert seen[-1] == "Call"


def test_tir_vars_in_type():
    n = TirVar("n", "int64")
    ty = T([n * 2, n], "float32")
    assert tir_vars_in_type(ty) == [n]
    assert definable_tir_vars_in_type(ty) == [n]
    assert definable_tir_vars_in_type(T([n * 2, 4], "float32")) == []


def test_derive_call_ret_type():
    n = TirVar("n", "int64")
    m = TirVar("m", "int64")
    fty = relax.FuncType([T([n, 4], "float32")], T([n, m], "float32"))
    x = relax.Var("x", T([7, 4], "float32"))
    ret = derive_call_ret_type(fty, relax.Call(relax.Var("f", fty), [x]), None)
    # n is bound to 7; m is not bound by any argument, so it is erased.
    assert ret.ndim == 2 and ret.shape is None
    fty2 = relax.FuncType([T([n, 4], "float32")], T([n, 2], "float32"))
    ret2 = derive_call_ret_type(fty2, relax.Call(relax.Var("f", fty2), [x]))
    tvm.ir.assert_structural_equal(ret2, T([7, 2], "float32"))


def test_derive_substitutes_expressions_and_erases_unbound_vars():
    # Observed in Apache TVM 0.27.
    n, m, k = TirVar("n", "int64"), TirVar("m", "int64"), TirVar("k", "int64")
    x = relax.Var("x", T([k * 2, 4], "float32"))
    f1 = relax.FuncType([T([n, 4], "float32")], T([n, 4], "float32"))
    tvm.ir.assert_structural_equal(
        derive_call_ret_type(f1, relax.Call(relax.Var("f", f1), [x])), T([k * 2, 4], "float32")
    )
    y = relax.Var("y", T(ndim=2, dtype="float32"))
    assert derive_call_ret_type(f1, relax.Call(relax.Var("f", f1), [y])).shape is None
    f2 = relax.FuncType([T([n, m], "float32")], T([n], "float32"))
    z = relax.Var("z", T([7, 5], "float32"))
    tvm.ir.assert_structural_equal(
        derive_call_ret_type(f2, relax.Call(relax.Var("f", f2), [z])), T([7], "float32")
    )
