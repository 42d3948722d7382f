"""IRModule: lookup, in-place updates, attributes, structural equality by function names."""

import pytest

import tvm
from tvm import relax
from tvm.ir import DictAttrs, GlobalVar, IRModule


def _func(n=3):
    x = relax.Var("x", relax.TensorType([n], "float32"))
    return relax.Function([x], relax.SeqExpr([], x))


def test_lookup_by_name_and_gvar():
    f = _func()
    mod = IRModule({"main": f})
    gv = mod.get_global_var("main")
    assert mod["main"] is f
    assert mod[gv] is f
    assert mod[GlobalVar("main")] is f  # same name designates the same function
    assert "main" in mod and gv in mod and "other" not in mod
    assert mod.get_global_vars() == [gv]
    assert mod.functions_items() == [(gv, f)]
    assert gv.ty is f.ty  # the GlobalVar gets the function's type


def test_missing_global_var_message():
    mod = IRModule({"main": _func()})
    with pytest.raises(ValueError) as err:
        mod.get_global_var("main1")
    assert (
        str(err.value) == 'Cannot find global var "main1" in the Module\ncandidates are: ["main"]'
    )
    mod["b"] = _func()
    with pytest.raises(ValueError, match=r'candidates are: \["main", "b"\]'):
        mod["zzz"]
    with pytest.raises(ValueError, match=r"candidates are: \[\]"):
        IRModule().get_global_var("x")


def test_setitem_and_update_func_are_in_place_but_copy_on_write():
    mod = IRModule()
    f, g = _func(), _func(4)
    mod["main"] = f
    old_functions = mod.functions
    mod["main"] = g
    assert mod["main"] is g
    assert len(mod) == 1
    assert old_functions[mod.get_global_var("main")] is f  # earlier dict is unchanged
    gv = GlobalVar("other")
    mod.update_func(gv, f)
    assert mod[gv] is f
    mod.remove("other")
    assert "other" not in mod
    with pytest.raises(TypeError, match="GlobalVar"):
        mod.update_func("main", f)


def test_attrs_and_with_attr():
    mod = IRModule({"main": _func()}, attrs={"device": "cpu"})
    assert isinstance(mod.attrs, DictAttrs)
    assert mod.get_attr("device") == "cpu"
    mod2 = mod.with_attr("opt", 3)
    assert mod2.get_attr("opt") == 3 and mod.get_attr("opt") is None
    assert mod2.without_attr("opt").get_attr("opt") is None
    assert IRModule().with_attr("a", 1).attrs["a"] == 1


def test_global_infos():
    mod = IRModule(global_infos={"vdevice": ["dev0"]})
    assert mod.global_infos["vdevice"] == ("dev0",)
    mod.update_global_info("vdevice", ["a", "b"])
    assert mod.global_infos["vdevice"] == ("a", "b")


def test_from_expr():
    f = _func()
    mod = IRModule.from_expr(f)
    assert mod["main"] is f
    named = IRModule.from_expr(f.with_attr("global_symbol", "foo"))
    assert "foo" in named
    c = relax.const(1.0)
    wrapped = IRModule.from_expr(c)
    assert isinstance(wrapped["main"], relax.Function)
    assert wrapped["main"].params == ()


def test_structural_equality_by_names():
    a = IRModule({"main": _func(), "g": _func(4)})
    b = IRModule({"g": _func(4), "main": _func()})
    assert tvm.ir.structural_equal(a, b)
    assert tvm.ir.structural_hash(a) == tvm.ir.structural_hash(b)
    c = IRModule({"main": _func(), "h": _func(4)})
    assert not tvm.ir.structural_equal(a, c)
    d = IRModule({"main": _func(), "g": _func(5)})
    assert not tvm.ir.structural_equal(a, d)


def test_bad_keys():
    with pytest.raises(TypeError, match="GlobalVar or str"):
        IRModule({3: _func()})
    with pytest.raises(TypeError, match="str or GlobalVar"):
        IRModule()[3]


def test_dict_attrs_mapping():
    attrs = DictAttrs({"a": 1, "b": "x"})
    assert dict(attrs.items()) == {"a": 1, "b": "x"}
    assert list(attrs) == ["a", "b"]
    assert attrs.get("c", 5) == 5
    assert tvm.ir.structural_equal(attrs, DictAttrs({"b": "x", "a": 1}))
    with pytest.raises(TypeError, match="keys must be str"):
        DictAttrs({1: 2})
    assert tvm.ir.make_node("ir.DictAttrs", a=1)["a"] == 1
    with pytest.raises(ValueError, match="no node type"):
        tvm.ir.make_node("nope.Nothing")


def _prim_func(n):
    from tvm import te

    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    return te.create_prim_func([A, B])


def test_prim_func_global_var_type_is_derived_once_per_function():
    from tvm.ffi.node import set_field

    f4, f8 = _prim_func(4), _prim_func(8)
    gv = GlobalVar("f")
    mod = IRModule({gv: f4})
    ty = gv.ty
    assert str(ty.params[0].shape) == "R.shape([4])"
    # Rebuilding a module with the same function keeps the type object (not derived again).
    assert mod.clone() is not mod and gv.ty is ty
    IRModule({gv: f4})
    assert gv.ty is ty
    # Another function under the same GlobalVar gets its own type, and back again.
    IRModule({gv: f8})
    assert str(gv.ty.params[0].shape) == "R.shape([8])"
    IRModule({gv: f4})
    assert str(gv.ty.params[0].shape) == "R.shape([4])" and gv.ty is not ty
    # A type set on the GlobalVar by other means is replaced by the function's own again.
    set_field(gv, "ty", relax.ObjectType())
    IRModule({gv: f4})
    assert str(gv.ty.params[0].shape) == "R.shape([4])"


def test_prim_func_with_a_new_body_keeps_the_global_var_type():
    # The type is made from the parameters and buffer map alone: a function that shares them
    # (a TIR pass changed the body) keeps the GlobalVar's type object; new parameters do not.
    from tvm import tirx

    f4 = _prim_func(4)
    gv = GlobalVar("f")
    IRModule({gv: f4})
    ty = gv.ty
    rebodied = f4.replace(body=tirx.SeqStmt([f4.body, tirx.Evaluate(0)]))
    assert rebodied.param_vars is f4.param_vars and rebodied.buffer_map is f4.buffer_map
    IRModule({gv: rebodied})
    assert gv.ty is ty
    IRModule({gv: _prim_func(4)})  # equal but distinct parameters: derived again
    assert gv.ty is not ty and str(gv.ty) == str(ty)
