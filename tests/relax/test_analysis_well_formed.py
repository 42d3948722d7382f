"""relax.analysis.well_formed / check_well_formed: one bad module per rule (spec C.5)."""

import doctest
import importlib
import re

import pytest

import tvm
from tvm import relax as rx
from tvm import tirx
from tvm.ffi.node import set_field
from tvm.ir.error_context import error_node
from tvm.ir.op import register_op, register_op_attr
from tvm.relax import BlockBuilder
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def TT(*shape, dtype="float32"):
    return rx.TensorType(list(shape), dtype)


def typed(expr):
    """The expression with its type inferred (its arguments must already be leaves)."""
    return BlockBuilder().normalize(expr)


def seq(blocks, body):
    result = rx.SeqExpr(blocks, body)
    set_field(result, "ty", body.ty)
    return result


def func(params, bindings, body, ret_ty=None, dataflow=False, attrs=None, is_pure=True):
    block_cls = rx.DataflowBlock if dataflow else rx.BindingBlock
    blocks = [block_cls(bindings)] if bindings else []
    result = rx.Function(params, seq(blocks, body), ret_ty or body.ty, is_pure)
    for key, value in (attrs or {}).items():
        result = result.with_attr(key, value)
    return result


def module(**funcs):
    return tvm.IRModule(dict(funcs))


def check_fails(obj, cls, message, check_ty=True, node=None):
    with pytest.raises(cls, match=re.escape(message)) as info:
        rx.analysis.well_formed(obj, check_ty)
    assert not isinstance(info.value, RuntimeError)
    assert rx.analysis.check_well_formed(obj, check_ty) is False
    if node is not None:
        assert error_node(info.value) is node
    return info.value


@I.ir_module
class Good:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), c: R.Tensor((), "bool")):
        n = T.int64()
        with R.dataflow():
            y = R.add(x, x)
            R.output(y)
        if c:
            z = R.multiply(y, y)
        else:
            z = y
        s = R.shape([n, 4])
        return (z, s)

    @R.function(pure=False)
    def effect(x: R.Tensor((3,), "float32")):
        R.print(x, format="{}")
        return x


def test_well_formed_module_and_function_pass():
    assert rx.analysis.well_formed(Good) is None
    assert rx.analysis.check_well_formed(Good)
    assert rx.analysis.check_well_formed(Good["main"], check_ty=False)
    assert rx.analysis.check_well_formed(Good, check_struct_info=True)


def test_rejects_non_ir():
    with pytest.raises(TypeError, match="IRModule or a relax.Function"):
        rx.analysis.well_formed(3)


def test_rule1_missing_type_checked_even_without_check_ty():
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))
    call = rx.op.add(x, x)
    mod = module(main=func([x], [rx.VarBinding(y, call)], y))
    check_fails(mod, TypeError, "The ty of Expr R.add(x, x) is missing.", False, node=call)


def test_rule1b_variable_inside_a_type_must_be_typed():
    shape = rx.Var("s")  # no type
    x = rx.Var("x", rx.TensorType(shape, "float32"))
    mod = module(main=func([x], [], x))
    check_fails(mod, TypeError, "Expr must have ty populated.  Expr.type_key=relax.expr.Var")
    assert rx.analysis.check_well_formed(mod, check_ty=False)


def test_rule2_global_var_not_in_module():
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))
    gv = tvm.ir.GlobalVar("foo")
    call = rx.Call(gv, [x])
    set_field(call, "ty", TT(3))
    mod = module(main=func([x], [rx.VarBinding(y, call)], y))
    check_fails(mod, ValueError, 'GlobalVar I.GlobalVar("foo") is not defined.', node=gv)


def test_rule3_global_symbol_matches_name():
    x = rx.Var("x", TT(3))
    mod = module(bar=func([x], [], x, attrs={"global_symbol": "foo"}))
    check_fails(
        mod,
        ValueError,
        'Name in GlobalVar is not equal to name in gsymbol: I.GlobalVar("bar") != foo',
    )


def test_rule4_param_shared_between_functions():
    x = rx.Var("x", TT(3))
    mod = module(f=func([x], [], x), g=func([x], [], x))
    check_fails(
        mod,
        ValueError,
        'Relax variable x is used as a parameter in both function "f" and function "g".',
    )


def test_rule4b_symbolic_var_defined_by_two_signatures():
    n = tirx.Var("n", "int64")
    x, x2 = rx.Var("x", TT(n)), rx.Var("x2", TT(n))
    mod = module(f=func([x], [], x), g=func([x2], [], x2))
    check_fails(mod, ValueError, 'Var n is defined in both function "f" and function "g".')


def test_rule5_undefined_relax_var():
    x, u = rx.Var("x", TT(3)), rx.Var("undef", TT(3))
    check_fails(module(main=func([x], [], u)), ValueError, "Var undef is not defined.", node=u)


def test_rule5_undefined_symbolic_var_in_binding_type():
    n = tirx.Var("n", "int64")
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(n))
    mod = module(main=func([x], [rx.VarBinding(y, x)], x))
    check_fails(mod, ValueError, "Var n is not defined.")
    assert rx.analysis.check_well_formed(mod, check_ty=False)  # an annotation is a type check


def test_rule5_undefined_symbolic_var_in_shape_and_signature():
    n = tirx.Var("n", "int64")
    x, s = rx.Var("x", TT(3)), rx.Var("s", rx.ShapeType([n]))
    mod = module(main=func([x], [rx.VarBinding(s, typed(rx.ShapeExpr([n])))], x))
    check_fails(mod, ValueError, "Var n is not defined.", check_ty=False)
    x = rx.Var("x", TT(n * 2))  # n * 2 does not define n
    check_fails(module(main=func([x], [], x)), ValueError, "Var n is not defined.", False)


def test_rule5_match_cast_defines_symbolic_var():
    n = tirx.Var("n", "int64")
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(n))
    mod = module(main=func([x], [rx.MatchCast(y, x, TT(n))], x))
    assert rx.analysis.check_well_formed(mod)


def test_local_function_may_call_itself():
    x, n = rx.Var("x", TT(3)), rx.Var("n", TT(3))
    fvar = rx.Var("f", rx.FuncType([TT(3)], TT(3)))
    call = rx.Call(fvar, [n])
    set_field(call, "ty", TT(3))
    r = rx.Var("r", TT(3))
    local = func([n], [rx.VarBinding(r, call)], r)
    y = rx.Var("y", TT(3))
    outer_call = rx.Call(fvar, [x])
    set_field(outer_call, "ty", TT(3))
    mod = module(main=func([x], [rx.VarBinding(fvar, local), rx.VarBinding(y, outer_call)], y))
    rx.analysis.well_formed(mod)


def test_rule6_defined_twice():
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))
    mod = module(main=func([x], [rx.VarBinding(y, x), rx.VarBinding(y, x)], y))
    check_fails(mod, ValueError, "Var y is defined more than once.")


def test_rule6_dataflow_var_defined_twice():
    x, y, z = rx.Var("x", TT(3)), rx.DataflowVar("y", TT(3)), rx.Var("z", TT(3))
    bindings = [rx.VarBinding(y, x), rx.VarBinding(y, x), rx.VarBinding(z, y)]
    mod = module(main=func([x], bindings, z, dataflow=True))
    check_fails(mod, ValueError, "DataflowVar y is defined more than once.")


def test_rule7_dataflow_var_defined_outside_block():
    x, y = rx.Var("x", TT(3)), rx.DataflowVar("y", TT(3))
    mod = module(main=func([x], [rx.VarBinding(y, x)], x))
    check_fails(mod, ValueError, "DataflowVar y is defined outside DataflowBlock.", node=y)


def test_rule7_dataflow_var_as_parameter():
    x = rx.DataflowVar("x", TT(3))
    check_fails(module(main=func([x], [], x)), ValueError, "DataflowVar x is defined outside")


def test_rule7_dataflow_var_used_outside_block():
    x, y = rx.Var("x", TT(3)), rx.DataflowVar("y", TT(3))
    mod = module(main=func([x], [rx.VarBinding(y, x)], y, dataflow=True))
    check_fails(mod, ValueError, "DataflowVar y is used outside DataflowBlock.")


def test_rule7_dataflow_var_not_defined():
    x, y, z = rx.Var("x", TT(3)), rx.DataflowVar("y", TT(3)), rx.Var("z", TT(3))
    mod = module(main=func([x], [rx.VarBinding(z, y)], z, dataflow=True))
    check_fails(mod, ValueError, "DataflowVar y is not defined.")


def test_rule7_dataflow_var_in_dependent_type():
    x = rx.Var("x", TT(3))
    shape = rx.DataflowVar("s", rx.ShapeType(ndim=1))
    y = rx.DataflowVar("y", rx.TensorType(shape, "float32"))
    z = rx.Var("z", TT(3))
    bindings = [
        rx.VarBinding(shape, typed(rx.op.shape_of(x))),
        rx.VarBinding(y, x),
        rx.VarBinding(z, x),
    ]
    mod = module(main=func([x], bindings, z, dataflow=True))
    check_fails(mod, ValueError, "DataflowVar cannot be used as a dependent type expression.")


def test_rule2b_global_var_type_must_be_a_function_type():
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))
    gv = tvm.ir.GlobalVar("helper")
    a = rx.Var("a", TT(3))
    call = rx.Call(gv, [x])
    set_field(call, "ty", TT(3))
    mod = module(main=func([x], [rx.VarBinding(y, call)], y))
    mod = tvm.IRModule({**mod.functions, gv: func([a], [], a)})
    set_field(gv, "ty", TT(3))
    check_fails(
        mod, TypeError, 'The ty of GlobalVar I.GlobalVar("helper") must be either FuncType.'
    )


def test_rule8_if_branch_bindings_do_not_escape():
    c, x = rx.Var("c", rx.TensorType([], "bool")), rx.Var("x", TT(3))
    y, z, w = rx.Var("y", TT(3)), rx.Var("z", TT(3)), rx.Var("w", TT(3))
    branch_true = seq([rx.BindingBlock([rx.VarBinding(y, x)])], y)
    cond = rx.If(c, branch_true, seq([], x))
    set_field(cond, "ty", TT(3))
    mod = module(main=func([c, x], [rx.VarBinding(z, cond), rx.VarBinding(w, y)], w))
    check_fails(mod, ValueError, "Var y is not defined.")


def test_rule9_seq_expr_as_binding_value():
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))
    mod = module(main=func([x], [rx.VarBinding(y, seq([], x))], y))
    check_fails(mod, ValueError, "SeqExpr only serves as the function body in FunctionNode")


def test_rule9_seq_expr_body_must_be_leaf():
    x = rx.Var("x", TT(3))
    check_fails(
        module(main=func([x], [], typed(rx.op.add(x, x)))),
        TypeError,
        "SeqExpr bodies must be leaf expressions.",
    )


def _nested_add(x):
    outer = rx.Call(tvm.ir.Op.get("relax.add"), [typed(rx.op.add(x, x)), x])
    set_field(outer, "ty", TT(3))
    return outer


def test_rule10_call_argument_not_leaf():
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))
    mod = module(main=func([x], [rx.VarBinding(y, _nested_add(x))], y))
    check_fails(mod, ValueError, "Call is not in ANF form, arg 0 gets ir.Call")


def test_rule10_tuple_field_not_leaf():
    x, y = rx.Var("x", TT(3)), rx.Var("y", rx.TupleType([TT(3)]))
    tup = rx.Tuple([typed(rx.op.add(x, x))])
    set_field(tup, "ty", rx.TupleType([TT(3)]))
    mod = module(main=func([x], [rx.VarBinding(y, tup)], x))
    check_fails(mod, ValueError, "Tuple is not in ANF form, field 0 gets ir.Call")


def test_rule10_tuple_get_item_not_leaf():
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))
    item = rx.TupleGetItem(typed(rx.op.add(x, x)), 0)
    set_field(item, "ty", TT(3))
    mod = module(main=func([x], [rx.VarBinding(y, item)], x))
    check_fails(mod, TypeError, "The tuple value in a TupleGetItem node must be a leaf")


def test_rule10_if_condition_not_leaf():
    c, x, z = rx.Var("c", rx.TensorType([], "bool")), rx.Var("x", TT(3)), rx.Var("z", TT(3))
    cond = rx.If(typed(rx.op.equal(c, c)), seq([], x), seq([], x))
    set_field(cond, "ty", TT(3))
    mod = module(main=func([c, x], [rx.VarBinding(z, cond)], z))
    check_fails(mod, TypeError, "The condition for an if node must be a leaf expression.")


def test_rule11_function_without_return_type():
    x = rx.Var("x", TT(3))
    f = func([x], [], x)
    set_field(f, "ret_ty", None)
    check_fails(f, TypeError, "Function must have defined ret_ty")


def test_rule12_if_inside_dataflow_block():
    c, x, z = rx.Var("c", rx.TensorType([], "bool")), rx.Var("x", TT(3)), rx.Var("z", TT(3))
    cond = rx.If(c, seq([], x), seq([], x))
    set_field(cond, "ty", TT(3))
    mod = module(main=func([c, x], [rx.VarBinding(z, cond)], z, dataflow=True))
    check_fails(mod, ValueError, "If nodes are not allowed to appear in dataflow blocks.")


def _print_call(x):
    return typed(rx.op.print(x, format="{}"))


def test_rule13_impure_call_in_dataflow_block_even_force_pure():
    x, z = rx.Var("x", TT(3)), rx.DataflowVar("z", rx.TupleType([]))
    call = _print_call(x)
    f = func([x], [rx.VarBinding(z, call)], x, dataflow=True, attrs={"relax.force_pure": True})
    err = check_fails(module(main=f), ValueError, "occurs within a dataflow block.", node=call)
    assert "R.print" in str(err)
    assert rx.analysis.check_well_formed(module(main=f), check_ty=False)


def test_rule14_pure_function_with_impure_call():
    x, z = rx.Var("x", TT(3)), rx.Var("z", rx.TupleType([]))
    mod = module(main=func([x], [rx.VarBinding(z, _print_call(x))], x))
    check_fails(
        mod,
        ValueError,
        "Function main is annotated as pure but contains an impure call: R.print(",
    )
    forced = module(main=mod["main"].with_attr("relax.force_pure", True))
    assert rx.analysis.check_well_formed(forced)


def test_rule15_force_pure_requires_is_pure():
    x = rx.Var("x", TT(3))
    f = func([x], [], x, is_pure=False, attrs={"relax.force_pure": True})
    check_fails(
        module(main=f),
        ValueError,
        "Function main has true for relax.force_pure but false for is_pure; relax.force_pure "
        "should be true only if is_pure is also true.",
    )


def test_rule16_shape_values_are_integers():
    x, s = rx.Var("x", TT(3)), rx.Var("s", rx.ShapeType(ndim=1))
    # The constructor rejects a float value (as TVM's does): only a rewritten field gets here.
    with pytest.raises(TypeError, match="the value in ShapeType can only have dtype of int64"):
        rx.ShapeExpr([tirx.FloatImm("float32", 1.0)])
    with pytest.raises(RuntimeError, match="can only have dtype of int64"):
        rx.TensorType([tirx.Var("dim", "float32")], "float32")
    shape = rx.ShapeExpr([1])
    set_field(shape, "values", (tirx.FloatImm("float32", 1.0),))
    set_field(shape, "ty", rx.ShapeType(ndim=1))
    mod = module(main=func([x], [rx.VarBinding(s, shape)], x))
    check_fails(mod, TypeError, "Shape expressions must be of integer type, but got float32")


def test_rule17_inline_prim_func():
    x, y = rx.Var("x", TT(3)), rx.Var("y", rx.ObjectType())
    prim = tirx.PrimFunc([], tirx.Evaluate(0))
    mod = module(main=func([x], [rx.VarBinding(y, prim)], x))
    check_fails(mod, ValueError, "Inline PrimFunc is disallowed in Relax IR.", node=prim)


def test_rule18_binding_type_not_a_subtype():
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(4))
    mod = module(main=func([x], [rx.VarBinding(y, x)], x))
    check_fails(
        mod,
        TypeError,
        'Expression of type R.Tensor((3,), dtype="float32") cannot be assigned to a variable of '
        'type R.Tensor((4,), dtype="float32")',
    )
    assert rx.analysis.check_well_formed(mod, check_ty=False)


def _test_op(name):
    op = register_op(name, 1)
    register_op_attr(name, "FInferType", lambda call, bb: call.args[0].ty)
    return op


def test_rule19_fnormalize_must_be_applied():
    op = _test_op("test.wf_fnormalize")
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))
    register_op_attr(op.name, "FNormalize", lambda bb, call: rx.Call(op, [x, x]))
    mod = module(main=func([x], [rx.VarBinding(y, typed(rx.Call(op, [x])))], y))
    check_fails(mod, ValueError, "calls to that operator must be normalized with it.")


def test_rule20_fvalidate_failure():
    op = _test_op("test.wf_fvalidate")
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))

    def validate(call):
        raise ValueError("argument must be positive")

    register_op_attr(op.name, "FValidate", validate)
    mod = module(main=func([x], [rx.VarBinding(y, typed(rx.Call(op, [x])))], y))
    check_fails(
        mod,
        ValueError,
        "Operator-specific validation (FValidate) for test.wf_fvalidate identified error: \n"
        "argument must be positive",
    )


def test_rule21_annotation_provably_wrong():
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(4))
    call = rx.op.add(x, x)
    set_field(call, "ty", TT(4))
    mod = module(main=func([x], [rx.VarBinding(y, call)], y))
    check_fails(
        mod,
        TypeError,
        "All information in Type annotations must be correct.  However, while the expression "
        'R.add(x, x) is annotated as R.Tensor((4,), dtype="float32"), the expression outputs '
        'R.Tensor((3,), dtype="float32")',
    )


def test_rule21_inference_fails():
    x, y = rx.Var("x", TT(3, 4)), rx.Var("y", TT(3, 4))
    call = rx.op.matmul(x, y)
    set_field(call, "ty", TT(3, 4))
    mod = module(main=func([x], [rx.VarBinding(rx.Var("z", TT(3, 4)), call)], x))
    set_field(mod["main"], "params", (x, y))
    check_fails(
        mod,
        TypeError,
        "Each Relax expression must be able to have its Type inferred.  However, inferring the "
        "type of expression R.matmul(x, y, out_dtype=None) resulted in the error: \nMatmul",
    )


def test_rule5_symbolic_vars_in_ty_args_and_return_type():
    # call_packed's ty_args and the return type use m, which nothing defines.
    m = tirx.Var("m", "int64")
    x, y = rx.Var("x", TT(3)), rx.Var("y", TT(3))
    call = rx.Call(rx.ExternFunc("f"), [x], ty_args=[TT(m)])
    set_field(call, "ty", TT(3))
    check_fails(module(main=func([x], [rx.VarBinding(y, call)], y)), ValueError,
                "Var m is not defined.", check_ty=False, node=call)
    bad_ret = func([x], [], x, ret_ty=TT(m))
    check_fails(module(main=bad_ret), ValueError, "Var m is not defined.")


def test_rule5_return_type_may_use_match_cast_vars():
    @R.function
    def f(x: R.Tensor(ndim=1, dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        y = R.match_cast(x, R.Tensor((n,), "float32"))
        return y

    rx.analysis.well_formed(module(f=f))


@I.ir_module(check_well_formed=False)
class BadCallTIR:
    @R.function
    def prim_dtype(A: R.Tensor([16], "float16"), s: R.Prim("int64")):
        B = R.call_tir(BadCallTIR.scale, (A, s), out_ty=R.Tensor([16], "float16"))
        return B

    @R.function
    def shape_as_scalar():
        B = R.call_tir(BadCallTIR.fill, (R.shape([1, 2]),), out_ty=R.Tensor([1], "float32"))
        return B

    @R.function
    def inferred_output(A: R.Tensor([8, 4], "float16")):
        B = R.call_tir(BadCallTIR.flatten, A, out_ty=R.Tensor([64], "float16"))
        return B

    @R.function
    def good(A: R.Tensor([8, 4], "float16"), s: R.Prim("float32")):
        B = R.call_tir(BadCallTIR.flatten, A, out_ty=R.Tensor([32], "float16"))
        Z = R.zeros([16], "float16")
        C = R.call_tir(BadCallTIR.scale, (Z, s), out_ty=R.Tensor([16], "float16"))
        return (B, C)

    @T.prim_func
    def scale(A: T.Buffer([T.int64(16)], "float16"), s: T.float32,
              B: T.Buffer([T.int64(16)], "float16")):
        for i in range(T.int64(16)):
            B[i] = A[i] * T.Cast("float16", s)

    @T.prim_func
    def fill(m: T.int64, n: T.int64, B: T.Buffer([T.int64(1)], "float32")):
        B[0] = T.Cast("float32", m + n)

    @T.prim_func
    def flatten(a: T.handle, b: T.handle):
        M, N = T.int64(), T.int64()
        A = T.match_buffer(a, [M, N], "float16")
        B = T.match_buffer(b, [M * N], "float16")
        for i in range(M * N):
            B[i] = A[i // N, i % N]


@pytest.mark.parametrize(("name", "message"), [
    ("prim_dtype", "Argument 1 type mismatch: expected T.float32, given T.int64"),
    ("shape_as_scalar", "Argument 0 type mismatch: expected T.int64, given R.Shape([1, 2])"),
    ("inferred_output", ("implies that the output should be R.Tensor((32,), "
                         'dtype="float16"), but the `out_ty` argument was R.Tensor((64,)')),
])
def test_rule20_call_tir_fits_its_prim_func(name, message):
    mod = tvm.IRModule({gv: f for gv, f in BadCallTIR.functions.items()
                        if gv.name_hint in (name, "scale", "fill", "flatten")})
    err = check_fails(mod, ValueError, message)
    assert "FValidate" in str(err) and "relax.call_tir" in str(err)


def test_rule20_call_tir_matching_prim_func_is_well_formed():
    mod = tvm.IRModule({gv: f for gv, f in BadCallTIR.functions.items()
                        if gv.name_hint in ("good", "scale", "flatten")})
    rx.analysis.well_formed(mod)


def test_tir_functions_are_ignored():
    prim = tirx.PrimFunc([], tirx.Evaluate(0))
    mod = tvm.IRModule({"main": Good["main"], "kernel": prim})
    assert rx.analysis.check_well_formed(mod)


@pytest.mark.parametrize(
    "name", ["tvm.relax.analysis.well_formed", "tvm.ir.error_context", "tvm.ir.instrument"]
)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"
    assert callable(rx.analysis.well_formed)  # the function, not the module of the same name
