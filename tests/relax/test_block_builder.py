"""BlockBuilder: scopes, emission, naming, normalization (ANF, type inference), errors."""

import pytest

import tvm
from tvm import relax
from tvm.ir import Op
from tvm.ir.op import register_op
from tvm.relax import op
from tvm.tirx.expr import Var as TirVar


def _t(shape, dtype="float32"):
    return relax.TensorType(shape, dtype)


def _names(func, block=0):
    return [b.var.name_hint for b in func.body.blocks[block].bindings]


def test_function_with_dataflow_block():
    x = relax.Var("x", _t([3, 4]))
    y = relax.Var("y", _t([4, 5]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x, y]):
        with bb.dataflow():
            lv = bb.emit(op.add(x, x))
            mm = bb.emit(op.matmul(lv, y))
            gv = bb.emit_output(mm)
        bb.emit_func_output(gv)
    func = bb.get()["main"]
    assert func.attrs["global_symbol"] == "main"
    assert len(func.body.blocks) == 1
    block = func.body.blocks[0]
    assert isinstance(block, relax.DataflowBlock)
    assert [type(b.var) for b in block.bindings] == [relax.DataflowVar] * 2 + [relax.Var]
    assert _names(func) == ["lv", "lv1", "gv"]
    assert func.body.body is gv
    tvm.ir.assert_structural_equal(func.ret_ty, _t([3, 5]))
    tvm.ir.assert_structural_equal(gv.ty, _t([3, 5]))


def test_naming_scheme_matches_tvm():
    # Observed in Apache TVM 0.27: one name table per builder, shared across functions.
    x = relax.Var("x", _t([3, 4]))
    bb = relax.BlockBuilder()
    with bb.function("f", [x]):
        a = bb.emit(op.add(x, x), name_hint="x_adjoint")
        a = bb.emit(op.add(a, x), name_hint="x_adjoint")
        a = bb.emit(op.add(a, x), name_hint="lv1")
        a = bb.emit(op.add(a, x))
        a = bb.emit(op.add(a, x), name_hint="lv")
        a = bb.emit(op.add(a, x), name_hint="lv")
        a = bb.emit(op.add(op.add(a, x), x))
        bb.emit_func_output(a)
    with bb.function("g", [x]):
        bb.emit_func_output(bb.emit(op.add(x, x)))
    mod = bb.get()
    assert _names(mod["f"]) == ["x_adjoint", "x_adjoint1", "lv1", "gv", "lv", "lv2", "gv1", "gv2"]
    assert _names(mod["g"]) == ["gv3"]


def test_nested_calls_are_bound_anf():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            out = bb.emit_output(op.multiply(op.add(x, x), op.add(x, x)))
        bb.emit_func_output(out)
    bindings = bb.get()["main"].body.blocks[0].bindings
    assert len(bindings) == 3
    assert all(isinstance(a, relax.Var) for a in bindings[2].value.args)


def test_emit_func_output_binds_non_leaf_output():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        bb.emit_func_output(op.add(x, x))
    func = bb.get()["main"]
    assert isinstance(func.body.body, relax.Var)
    assert _names(func) == ["gv"]


def test_params_given_to_emit_func_output_and_tuple_output():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("main"):
        bb.emit_func_output([x, x], params=[x])
    func = bb.get()["main"]
    assert func.params == (x,)
    assert isinstance(func.ret_ty, relax.TupleType)


def test_private_function_and_attrs():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("helper", [x], attrs={"k": 1}, private=True, pure=False):
        bb.emit_func_output(x)
    func = bb.get()["helper"]
    assert "global_symbol" not in func.attrs and func.attrs["k"] == 1
    assert not func.is_pure


def test_match_cast_defines_symbolic_vars():
    x = relax.Var("x", relax.TensorType(ndim=2, dtype="float32"))
    n, m = TirVar("n", "int64"), TirVar("m", "int64")
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            y = bb.match_cast(x, _t([n, m]))
            z = bb.emit(op.add(y, y))
            gv = bb.emit_output(z)
        bb.emit_func_output(gv)
    func = bb.get()["main"]
    first = func.body.blocks[0].bindings[0]
    assert isinstance(first, relax.MatchCast)
    assert isinstance(first.var, relax.DataflowVar)
    tvm.ir.assert_structural_equal(z.ty, _t([n, m]))
    # n and m are defined inside the body only: the return type is erased to the rank.
    assert func.ret_ty.shape is None and func.ret_ty.ndim == 2


def test_call_global_function_derives_symbolic_return():
    n = TirVar("n", "int64")
    a = relax.Var("a", _t([n, 4]))
    bb = relax.BlockBuilder()
    with bb.function("callee", [a]):
        gv_callee_out = bb.emit(op.add(a, a))
        bb.emit_func_output(gv_callee_out)
    callee = bb.get().get_global_var("callee")
    x = relax.Var("x", _t([7, 4]))
    with bb.function("main", [x]):
        out = bb.emit(relax.Call(callee, [x]))
        bb.emit_func_output(out)
    tvm.ir.assert_structural_equal(out.ty, _t([7, 4]))


def test_call_extern_and_packed():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x], pure=False):
        a = bb.emit(op.call_packed("my.func", x, ty_args=_t([3])))
        b = bb.emit(op.call_packed("my.other", x))
        c = bb.emit(op.call_dps_packed("my.dps", [x], _t([3])))
        bb.emit_func_output(relax.Tuple([a, b, c]))
    tvm.ir.assert_structural_equal(a.ty, _t([3]))
    assert isinstance(b.ty, relax.ObjectType)
    tvm.ir.assert_structural_equal(c.ty, _t([3]))


def test_if_normalization():
    cond = relax.Var("c", relax.TensorType([], "bool"))
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("main", [cond, x]):
        out = bb.emit(relax.If(cond, op.add(x, x), x))
        bb.emit_func_output(out)
    value = bb.get()["main"].body.blocks[0].bindings[0].value
    assert isinstance(value.true_branch, relax.SeqExpr)
    assert isinstance(value.true_branch.body, relax.Var)  # the add was bound in the branch
    tvm.ir.assert_structural_equal(out.ty, _t([3]))
    y = relax.Var("y", _t([4]))
    mixed = relax.BlockBuilder().normalize(relax.If(cond, x, y))
    assert mixed.ty.shape is None and mixed.ty.ndim == 1


def test_tuple_get_item_inference_and_errors():
    x = relax.Var("x", _t([3]))
    t = relax.Var("t", relax.TupleType([x.ty, _t([4])]))
    bb = relax.BlockBuilder()
    tvm.ir.assert_structural_equal(bb.normalize(t[1]).ty, _t([4]))
    with pytest.raises(
        IndexError,
        match="Index out of bounds: Tuple t is of size 2, and cannot be accessed with index 5",
    ):
        bb.normalize(relax.TupleGetItem(t, 5))
    with pytest.raises(
        TypeError, match="The type of Tuple must be TupleType, but expression x has type"
    ):
        bb.normalize(relax.TupleGetItem(x, 0))
    obj = relax.Var("o", relax.ObjectType())
    assert isinstance(bb.normalize(obj[0]).ty, relax.ObjectType)


def test_normalize_is_identity_on_normal_form():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    call = bb.normalize(op.add(x, x))
    assert bb.normalize(call) is call
    with bb.function("main", [x]):
        bb.emit_func_output(bb.emit(op.add(x, x)))
    func = bb.get()["main"]
    assert relax.BlockBuilder().normalize(func) is func


def test_normalize_nested_call_needs_a_block():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with pytest.raises(ValueError, match="needs an open binding block"):
        bb.normalize(op.add(op.add(x, x), x))
    bb.begin_dataflow_block()
    call = bb.normalize(op.add(op.add(x, x), x))
    block = bb.end_block()
    assert isinstance(block, relax.DataflowBlock) and len(block.bindings) == 1
    assert call.args[0] is block.bindings[0].var


def test_op_without_inference_rule_names_the_op():
    register_op("relax.test_no_rule", 1, family="test_family")
    x = relax.Var("x", _t([3]))
    with pytest.raises(
        TypeError, match="FInferType has not been registered for relax.test_no_rule"
    ):
        relax.BlockBuilder().normalize(relax.Call(Op.get("relax.test_no_rule"), [x]))


def test_untyped_var_is_an_error():
    x = relax.Var("x")
    with pytest.raises(TypeError, match="Var x has no type"):
        relax.BlockBuilder().normalize(op.add(x, x))
    bb = relax.BlockBuilder()
    with pytest.raises(TypeError, match="param x has no type annotation"), bb.function("main", [x]):
        pass


def test_scope_errors():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with (
        pytest.raises(ValueError, match="emit_func_output must be called"),
        bb.function("main", [x]),
    ):
        bb.emit(op.add(x, x))
    with pytest.raises(ValueError, match="inside a bb.function"), bb.dataflow():
        pass
    with pytest.raises(ValueError, match="needs an open binding block"):
        bb.emit(op.add(x, x))
    with bb.function("f", [x]):
        with pytest.raises(ValueError, match="only be called inside a dataflow block"):
            bb.emit_output(x)
        with bb.dataflow():
            with pytest.raises(ValueError, match="outside of a dataflow block"):
                bb.emit_func_output(x)
            with pytest.raises(ValueError, match="cannot be nested"), bb.dataflow():
                pass
            gv = bb.emit_output(x)
        with (
            pytest.raises(ValueError, match="cannot be nested inside function"),
            bb.function("g", [x]),
        ):
            pass
        bb.emit_func_output(gv)
    with pytest.raises(ValueError, match="emit_func_output must be called"):
        bb.emit_func_output(x)


def test_current_builder():
    assert relax.BlockBuilder.current() is None
    bb = relax.BlockBuilder()
    x = relax.Var("x", _t([3]))
    with bb.function("main", [x]):
        assert relax.BlockBuilder.current() is bb
        bb.emit_func_output(x)
    assert relax.BlockBuilder.current() is None
    with relax.BlockBuilder() as other:
        assert relax.BlockBuilder.current() is other


def test_add_func_update_func_lookup_binding():
    x = relax.Var("x", _t([3]))
    f = relax.Function([x], relax.SeqExpr([], x))
    bb = relax.BlockBuilder()
    gv = bb.add_func(f, "f")
    assert bb.add_func(f, "f") is gv  # the same function is not added twice
    same = relax.Function([x], relax.SeqExpr([], x))
    assert bb.add_func(same, "other") is gv  # structurally equal: shared
    y = relax.Var("y", _t([4]))
    g = relax.Function([y], relax.SeqExpr([], y))
    gv1 = bb.add_func(g, "f")
    assert gv1.name_hint == "f1"
    bb.update_func(gv, g)
    assert bb.get()[gv] is g
    with bb.function("main", [x]):
        lv = bb.emit(op.add(x, x))
        assert bb.lookup_binding(lv).op is Op.get("relax.add")
        assert bb.lookup_binding(x) is None
        bb.emit_func_output(lv)


def test_builder_over_existing_module_does_not_mutate_it():
    x = relax.Var("x", _t([3]))
    mod = tvm.IRModule({"f": relax.Function([x], relax.SeqExpr([], x))})
    bb = relax.BlockBuilder(mod)
    with bb.function("main", [x]):
        out = bb.emit(relax.Call(bb.get().get_global_var("f"), [x]))
        bb.emit_func_output(out)
    assert "main" in bb.get() and "main" not in mod
    tvm.ir.assert_structural_equal(out.ty, _t([3]))


def test_call_to_unknown_global_is_error():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with pytest.raises(TypeError, match="not defined in the module"):
        bb.normalize(relax.Call(tvm.ir.GlobalVar("missing"), [x]))


def test_private_builder_function_equals_parsed_style_function():
    # Functions and modules always carry a (possibly empty) DictAttrs, as in TVM, so a
    # builder-made private function equals one built from an empty attribute dict.
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("p", [x], private=True):
        bb.emit_func_output(x)
    built = bb.get()["p"]
    assert isinstance(built.attrs, tvm.ir.DictAttrs) and len(built.attrs) == 0
    y = relax.Var("y", _t([3]))
    other = relax.Function([y], relax.SeqExpr([], y), _t([3]), attrs={})
    tvm.ir.assert_structural_equal(built, other)
    assert tvm.ir.structural_equal(tvm.IRModule(attrs={}), tvm.IRModule())


def test_deeply_nested_expression_is_normalized_without_recursion():
    import sys

    x = relax.Var("x", _t([3]))
    depth = 3000
    expr = x
    for _ in range(depth):
        expr = op.add(expr, x)
    pair = relax.TupleGetItem(relax.Tuple([expr, op.multiply(x, x)]), 0)
    bb = relax.BlockBuilder()
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # well below the nesting depth
    try:
        with bb.function("main", [x]):
            out = bb.emit(pair)
            bb.emit_func_output(out)
    finally:
        sys.setrecursionlimit(old_limit)
    bindings = bb.get()["main"].body.blocks[0].bindings
    # depth adds, one multiply, and the TupleGetItem itself.
    assert len(bindings) == depth + 2
    assert bindings[0].value.args == (x, x)
    assert isinstance(bindings[-1].value, relax.TupleGetItem)


def test_nested_emission_names_and_kinds_match_tvm():
    # Observed in Apache TVM 0.27 for the same program.
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("main", [x]):
        with bb.dataflow():
            a = bb.emit(op.add(op.multiply(x, x), op.add(x, x)))
            b = bb.match_cast(a, _t([3]))
            c = bb.emit_output(op.add(op.multiply(b, b), x))
        d = bb.match_cast(c, relax.TensorType(ndim=1, dtype="float32"))
        e = bb.emit(relax.Tuple([op.add(d, d), d]))
        bb.emit_func_output(op.add(op.multiply(d, d), e[0]))
    func = bb.get()["main"]
    shapes = [
        [(type(b).__name__, type(b.var).__name__, b.var.name_hint) for b in blk.bindings]
        for blk in func.body.blocks
    ]
    assert shapes == [
        [
            ("VarBinding", "DataflowVar", "lv"),
            ("VarBinding", "DataflowVar", "lv1"),
            ("VarBinding", "DataflowVar", "lv2"),
            ("MatchCast", "DataflowVar", "lv3"),
            ("VarBinding", "DataflowVar", "lv4"),
            ("VarBinding", "Var", "gv"),
        ],
        [
            ("MatchCast", "Var", "gv1"),
            ("VarBinding", "Var", "gv2"),
            ("VarBinding", "Var", "gv3"),
            ("VarBinding", "Var", "gv4"),
            ("VarBinding", "Var", "gv5"),
            ("VarBinding", "Var", "gv6"),
        ],
    ]
    assert func.body.body.name_hint == "gv6"


def test_call_uses_the_modules_current_callee_signature():
    a = relax.Var("a", _t([3]))
    old = relax.Function([a], relax.SeqExpr([], a), _t([3]))
    mod = tvm.IRModule({"f": old})
    gv = mod.get_global_var("f")
    b = relax.Var("b", _t([3]))
    new = relax.Function([b], relax.SeqExpr([], relax.const([1.0, 2.0])), _t([2]))
    mod.update_func(gv, new)  # the GlobalVar still carries the old signature
    x = relax.Var("x", _t([3]))
    ty = relax.BlockBuilder(mod).normalize(relax.Call(gv, [x])).ty
    tvm.ir.assert_structural_equal(ty, _t([2]))


def test_scoping_of_symbolic_vars_in_result_types_matches_tvm():
    # Observed in Apache TVM 0.27.
    n, k = TirVar("n", "int64"), TirVar("k", "int64")
    c = relax.Var("c", relax.TensorType([], "bool"))
    x = relax.Var("x", _t([n, 4]))
    bb = relax.BlockBuilder()
    # An If outside any function: n is not in scope, so only the rank is kept.
    assert bb.normalize(relax.If(c, x, x)).ty.shape is None
    # A SeqExpr only erases what is bound inside it.
    tvm.ir.assert_structural_equal(bb.normalize(relax.SeqExpr([], x)).ty, _t([n, 4]))
    # An unannotated return type keeps only the signature's symbolic vars.
    with bb.function("f", [x]):
        r = bb.emit(relax.ShapeExpr([k, n]))
        bb.emit_func_output(r)
    ret = bb.get()["f"].ret_ty
    assert isinstance(ret, relax.ShapeType) and ret.values is None and ret.ndim == 2
    y = relax.Var("y", _t([n, 4]))
    with bb.function("g", [y]):
        bb.emit_func_output(y)
    tvm.ir.assert_structural_equal(bb.get()["g"].ret_ty, _t([n, 4]))


def test_testing_scope_unique_names_and_private_aliases():
    n = TirVar("n", "int64")
    x = relax.Var("x", _t([n, 3]))
    bb = relax.BlockBuilder()
    with bb.testing_scope(def_vars=[x]):
        call = bb.normalize(op.add(op.add(x, x), x))
        # n is in scope: an If keeps the symbolic shape.
        c = relax.Var("c", relax.TensorType([], "bool"))
        tvm.ir.assert_structural_equal(bb.normalize(relax.If(c, x, x)).ty, _t([n, 3]))
    assert isinstance(call.args[0], relax.Var)
    assert bb.get_unique_name("t") == "t" and bb.get_unique_name("t") == "t1"
    bb._begin_dataflow_block()
    assert bb.current_block_is_dataflow()
    assert isinstance(bb._end_block(), relax.DataflowBlock)


def test_finalize_names_functions_after_global_symbol():
    x = relax.Var("x", _t([3]))
    bb = relax.BlockBuilder()
    with bb.function("helper", [x], attrs={"global_symbol": "renamed"}):
        bb.emit_func_output(bb.emit(op.add(x, x)))
    helper = bb.get().get_global_var("helper")
    y = relax.Var("y", _t([3]))
    with bb.function("main", [y]):
        bb.emit_func_output(bb.emit(relax.Call(helper, [y])))
    mod = bb.finalize()
    assert sorted(g.name_hint for g in mod.get_global_vars()) == ["main", "renamed"]
    call = mod["main"].body.blocks[0].bindings[0].value
    assert call.op is mod.get_global_var("renamed")
    relax.analysis.well_formed(mod)


def test_current_is_restored_with_nested_with_and_function_scopes():
    x = relax.Var("x", _t([3]))
    with relax.BlockBuilder() as bb:
        with bb.function("main", [x]):
            assert relax.BlockBuilder.current() is bb
            bb.emit_func_output(x)
        assert relax.BlockBuilder.current() is bb  # the outer `with bb` is still active
    assert relax.BlockBuilder.current() is None


def test_add_func_dedup_key_keeps_equal_functions_together():
    # The dedup key summarizes parameter types: functions equal up to variable renaming
    # (symbolic dims too) share a key and are shared; others get their own GlobalVar.
    from tvm import tirx
    from tvm.relax.block_builder import _dedup_key

    def ident(shape, dtype="float32", name="x"):
        v = relax.Var(name, relax.TensorType(shape, dtype))
        return relax.Function([v], relax.SeqExpr([], v))

    n, m = tirx.Var("n", "int64"), tirx.Var("m", "int64")
    assert _dedup_key(ident([n, 4])) == _dedup_key(ident([m, 4], name="y"))
    assert _dedup_key(ident([3, 4])) != _dedup_key(ident([4, 4]))
    assert _dedup_key(ident([3, 4])) != _dedup_key(ident([3, 4], "int32"))
    bb = relax.BlockBuilder()
    gv = bb.add_func(ident([n, 4]), "f")
    assert bb.add_func(ident([m, 4], name="y"), "g") is gv
    assert bb.add_func(ident([3, 4]), "f").name_hint == "f1"
    assert bb.add_func(ident([3, 4], "int32"), "f").name_hint == "f2"
    obj = relax.Var("o", relax.ObjectType())
    assert bb.add_func(relax.Function([obj], relax.SeqExpr([], obj)), "f").name_hint == "f3"


def test_scope_misuse_is_value_error_and_tvm_internal_error():
    from tvm.error import InternalError
    from tvm.relax.block_builder import BlockBuilderScopeError

    assert issubclass(BlockBuilderScopeError, ValueError)
    assert issubclass(BlockBuilderScopeError, InternalError)
    x = relax.Var("x", relax.TensorType([2], "float32"))
    bb = relax.BlockBuilder()
    with pytest.raises(RuntimeError, match="no parameters were given"), bb.function("f"):
        bb.emit_func_output(bb.emit(relax.op.add(x, x)))
    bb = relax.BlockBuilder()
    with pytest.raises(RuntimeError, match="emit_func_output must be called"):  # noqa: SIM117
        with bb.function("f", [x]):  # the error is raised when this scope exits
            bb.emit(relax.op.add(x, x))
    assert relax.BlockBuilder.current() is None
    with pytest.raises(RuntimeError, match="cannot be nested"), bb.function("f", [x]):  # noqa: SIM117
        with bb.function("g", [x]):  # raises on entry
            pass
    with bb.function("f", [x]):  # the builder is usable again
        bb.emit_func_output(x)
    with bb.function("g", []):  # an explicit empty list: no parameters
        bb.emit_func_output(relax.const(1.0))


def test_emit_func_output_returns_the_global_var():
    bb = relax.BlockBuilder()
    with bb.function("helper", [], private=True):
        gvar = bb.emit_func_output(relax.const(0, "int64"))
    assert isinstance(gvar, tvm.ir.GlobalVar) and gvar.name_hint == "helper"
    assert bb.get()[gvar] is not None


def _three_bindings():
    bb = relax.BlockBuilder()
    with bb.function("func", []):
        a = bb.emit(relax.const(1, "int64"), "a")
        b = bb.emit(relax.const(2, "int64"), "b")
        bb.emit_func_output(bb.emit(op.add(a, b), "c"))
    return bb.finalize()["func"].body


def test_nested_seq_in_dataflow_block_splits_the_block():
    # The SeqExpr's plain binding block goes between two dataflow blocks (as TVM's
    # normalizer does); "e" is bound to the SeqExpr's result.
    seq = _three_bindings()
    bb = relax.BlockBuilder()
    with bb.function("func", [], private=True):
        with bb.dataflow():
            bb.emit(relax.const(3, "int64"), "d")
            e = bb.emit(seq, "e")
            out = bb.emit_output(e, "f")
        bb.emit_func_output(out)
    func = bb.finalize()["func"]
    kinds = [type(block).__name__ for block in func.body.blocks]
    assert kinds == ["DataflowBlock", "BindingBlock", "DataflowBlock"]
    assert [b.var.name_hint for b in func.body.blocks[1].bindings] == ["a", "b", "c"]
    assert func.body.blocks[2].bindings[0].value.name_hint == "c"
    relax.analysis.well_formed(tvm.IRModule.from_expr(func))


def test_nested_seq_using_outer_dataflow_vars_is_malformed():
    lhs = relax.Var("a", _t([]))
    bb = relax.BlockBuilder()
    with bb.function("func", [lhs]):
        bb.emit_func_output(bb.emit(op.add(lhs, lhs)))
    func = bb.finalize()["func"]
    bb = relax.BlockBuilder()
    with bb.function("func", [], private=True):
        with bb.dataflow():
            local = bb.emit(relax.const(3, "float32"), "local_a")
            out = bb.emit_output(bb.emit(func.bind_params({lhs: local}).body, "f"), "f")
        with pytest.raises(RuntimeError, match="Malformed AST.*DataflowVars \\(local_a,\\)") \
                as info:
            bb.emit_func_output(out)
    assert isinstance(info.value, ValueError)
