"""``PrimFuncPass``: which module it returns, and the GlobalVar types it leaves.

A pass that only changes bodies rebuilds the module with functions of the same signature
(the GlobalVar type is then kept rather than derived again); these tests check the types always
equal what a fresh ``IRModule()`` derives, including after another module changed a shared
GlobalVar's type.
"""

import tvm
from tvm.ffi.structural import structural_equal
from tvm.ir import IRModule
from tvm.tirx import BufferStore, Evaluate, PrimFunc, SeqStmt, Var, decl_buffer
from tvm.tirx.transform import prim_func_pass


def _func(n=4, name="f"):
    A = decl_buffer((n,), "float32", name="A")
    return PrimFunc([A], BufferStore(A, 1.0, [0])).with_attr("global_symbol", name)


@prim_func_pass(opt_level=0, name="test.AppendNoOp")
def _append_noop(func, mod, ctx):
    return func.with_body(SeqStmt([func.body, Evaluate(0)]))


@prim_func_pass(opt_level=0, name="test.AddParam")
def _add_param(func, mod, ctx):
    return PrimFunc([*func.params, Var("n", "int32")], func.body, buffer_map=func.buffer_map,
                    attrs=func.attrs)


@prim_func_pass(opt_level=0, name="test.Identity")
def _identity(func, mod, ctx):
    return func


def _expected_type(gvar, func):
    return IRModule({gvar.name_hint: func}).get_global_var(gvar.name_hint).ty


def _types_are_current(mod):
    return all(structural_equal(gv.ty, _expected_type(gv, f)) for gv, f in mod.functions.items())


def test_unchanged_module_is_returned_as_is():
    mod = IRModule({"f": _func()})
    assert _identity(mod) is mod


def test_body_only_changes_keep_current_types():
    mod = IRModule({"f": _func(), "g": _func(8, "g")})
    for _ in range(3):  # the first pass records the types, later ones reuse them
        new = _append_noop(mod)
        assert new is not mod and _types_are_current(new)
        assert new["f"].body.seq[0] is mod["f"].body
        mod = new
    assert new.attrs is mod.attrs


def test_parameter_changes_update_the_type():
    mod = _append_noop(IRModule({"f": _func()}))
    before = mod.get_global_var("f").ty
    out = _add_param(mod)
    gv = out.get_global_var("f")
    assert len(gv.ty.params) == len(before.params) + 1
    assert _types_are_current(out)
    out = _append_noop(out)  # and the new signature is the one reused afterwards
    assert _types_are_current(out)


def test_type_changed_by_another_module_is_recomputed():
    mod = _append_noop(IRModule({"f": _func()}))
    gv = mod.get_global_var("f")
    # Another module with the same GlobalVar and a different function resets its type.
    IRModule({gv: _func(16)})
    assert not structural_equal(gv.ty, _expected_type(gv, mod["f"]))
    out = _append_noop(mod)
    assert _types_are_current(out)


def test_with_body_reuses_the_function_type_only_when_the_signature_is_the_same():
    func = _func()
    same = func.with_body(Evaluate(0))
    assert same.ty is func.ty
    changed = PrimFunc([*func.params, Var("n", "int32")], func.body, buffer_map=func.buffer_map)
    assert len(changed.with_body(Evaluate(0)).ty.arg_types) == len(func.ty.arg_types) + 1
    assert tvm.ir.structural_equal(changed.with_body(Evaluate(0)).ty, changed.ty)


def test_prim_func_pass_on_a_class():
    from tvm.script import tirx as T

    @tvm.tirx.transform.prim_func_pass(opt_level=1)
    class ReplaceBody:
        def __init__(self, value):
            self.value = value

        def transform_function(self, func, mod, ctx):
            return func.with_body(tvm.tirx.Evaluate(self.value))

    @T.prim_func(private=True, s_tir=True)
    def func(x: T.int32):
        T.evaluate(x + 1)

    pass_ = ReplaceBody(7)
    assert isinstance(pass_, tvm.tirx.transform.PrimFuncPass)
    assert pass_.info.name == "ReplaceBody" and pass_.info.opt_level == 1
    out = pass_(tvm.IRModule.from_expr(func))["main"]
    assert out.body.value.value == 7
