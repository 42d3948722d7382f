"""Parsing Relax TVMScript: every construct gives the expected IR."""

# ruff: noqa: F841, RUF059 - TVMScript bodies bind names that Python sees as unused

import numpy as np
import pytest

import tvm
from tvm import relax, tirx
from tvm.error import DiagnosticError
from tvm.script import from_source
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


def _bindings(func, block=0):
    return list(func.body.blocks[block].bindings)


def test_function_params_dataflow_and_output_vars():
    @R.function
    def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor((3, 3), "float32")):
        with R.dataflow():
            lv1 = R.add(x, y)
            lv2 = R.sum(lv1, axis=None, keepdims=False)
            R.output(lv2)
        return lv2

    assert isinstance(main, relax.Function)
    assert [p.name_hint for p in main.params] == ["x", "y"]
    assert main.attrs["global_symbol"] == "main"
    block = main.body.blocks[0]
    assert isinstance(block, relax.DataflowBlock)
    lv1, lv2 = (b.var for b in block.bindings)
    assert type(lv1) is relax.DataflowVar and type(lv2) is relax.Var
    assert lv1.ty.shape.values[0].value == 3 and lv1.ty.dtype == "float32"
    assert lv2.ty.ndim == 0
    assert main.body.body is lv2
    assert main.ret_ty.ndim == 0
    assert block.bindings[0].value.op == tvm.ir.Op.get("relax.add")


def test_parsed_function_equals_builder_made_function():
    @R.function
    def parsed(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        y = R.multiply(x, x)
        return y

    x = relax.Var("x", relax.TensorType((2, 3), "float32"))
    bb = relax.BlockBuilder()
    with bb.function("parsed", [x]):
        y = bb.emit(relax.op.multiply(x, x), "y")
        bb.emit_func_output(y)
    expected = bb.get()["parsed"]
    tvm.ir.assert_structural_equal(parsed, expected)


def test_annotation_becomes_the_variable_type():
    @R.function
    def main(x: R.Tensor("float32")):
        w: R.Tensor((3, 3), dtype="float32") = R.add(x, x)
        v: R.Tensor(ndim=2) = R.add(x, x)
        return w

    w, v = (b.var for b in _bindings(main))
    assert [int(d) for d in w.ty.shape.values] == [3, 3]
    assert v.ty.ndim == 2 and v.ty.dtype == "void" and v.ty.shape is None


def test_type_annotations():
    @R.function
    def main(
        a: R.Tensor,
        b: R.Tensor(ndim=2, dtype="int32"),
        c: R.Shape([2, 3]),
        d: R.Shape(ndim=3),
        e: R.Object,
        f: R.Prim("int64"),
        g: R.Tuple(R.Tensor((3,), "float32"), R.Object),
        h: R.Callable([R.Tensor((3,), "float32")], R.Tensor((3,), "float32")),
        i: R.Any,
        j: T.int64,
    ) -> R.Tuple:
        return ()

    tys = [p.ty for p in main.params]
    assert isinstance(tys[0], relax.TensorType) and tys[0].ndim == -1 and tys[0].dtype == "void"
    assert tys[1].ndim == 2 and tys[1].dtype == "int32"
    assert [int(v) for v in tys[2].values] == [2, 3]
    assert tys[3].ndim == 3 and tys[3].values is None
    assert isinstance(tys[4], relax.ObjectType) and isinstance(tys[8], relax.ObjectType)
    assert isinstance(tys[5], relax.PrimType) and tys[5].dtype == "int64"
    assert isinstance(tys[6], relax.TupleType) and len(tys[6].fields) == 2
    assert isinstance(tys[7], relax.FuncType) and len(tys[7].params) == 1
    assert isinstance(tys[9], relax.PrimType) and tys[9].dtype == "int64"
    assert isinstance(main.ret_ty, relax.TupleType) and len(main.ret_ty.fields) == 0


def test_symbolic_shape_vars_are_shared_by_signature_and_body():
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        y: R.Tensor((n, 4), "float32") = R.add(x, x)
        return y

    n_param = main.params[0].ty.shape.values[0]
    assert isinstance(n_param, tirx.Var) and n_param.name == "n" and n_param.dtype == "int64"
    n_body = _bindings(main)[0].var.ty.shape.values[0]
    assert n_body is n_param
    assert main.ret_ty.shape.values[0] is n_param


def test_declared_shape_vars_and_match_cast():
    @R.function
    def main(x: R.Tensor(ndim=2, dtype="float32")):
        a = T.int64()
        b = T.int64()
        y = R.match_cast(x, R.Tensor((a, b), "float32"))
        z: R.Tensor((a, b), "float32") = R.add(y, y)
        return z

    cast, add = _bindings(main)
    assert isinstance(cast, relax.MatchCast)
    a, b = cast.ty.shape.values
    assert (a.name, b.name) == ("a", "b")
    assert cast.var.ty is cast.ty
    assert add.var.ty.shape.values[0] is a


def test_if_else_branches():
    @R.function
    def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
        if c:
            y = R.add(x, x)
            z = R.multiply(y, y)
        else:
            z = x
        return z

    (binding,) = _bindings(main)
    assert binding.var.name_hint == "z"
    node = binding.value
    assert isinstance(node, relax.If)
    then_body = node.true_branch
    assert isinstance(then_body, relax.SeqExpr)
    names = [b.var.name_hint for b in then_body.blocks[0].bindings]
    assert names == ["y", "z_then"]
    assert then_body.body is then_body.blocks[0].bindings[-1].var
    assert node.false_branch.body is main.params[0]
    assert binding.var.ty.shape.values[0].value == 3


def test_if_branches_must_assign_the_same_name():
    program = (
        '@R.function\ndef main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):\n'
        "    if c:\n        y = x\n    else:\n        z = x\n    return x\n"
    )
    with pytest.raises(DiagnosticError, match="same variable"):
        from_source(program)


def test_if_needs_an_else():
    program = (
        '@R.function\ndef main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):\n'
        "    if c:\n        y = x\n    return x\n"
    )
    with pytest.raises(DiagnosticError, match="needs an else branch"):
        from_source(program)


def test_module_calls_between_functions_and_private_functions():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = cls.helper(x)
            return y

        @R.function(private=True)
        def helper(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            return x

    assert isinstance(Module, tvm.ir.IRModule)
    assert [g.name_hint for g in Module.functions] == ["main", "helper"]
    call = _bindings(Module["main"])[0].value
    assert isinstance(call.op, tvm.ir.GlobalVar) and call.op.name_hint == "helper"
    assert call.ty.shape.values[0].value == 3
    helper = Module["helper"]
    assert helper.attrs is None or "global_symbol" not in helper.attrs


def test_module_attrs_global_infos_and_func_attr():
    @I.ir_module
    class Module:
        I.module_attrs({"system_lib_prefix": "x_"})

        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")):
            R.func_attr({"num_input": 1})
            return x

    assert Module.attrs["system_lib_prefix"] == "x_"
    main = Module["main"]
    assert main.attrs["num_input"] == 1 and main.is_pure is False


def test_value_constructors():
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        c = R.const(1.5, "float32")
        d = R.const(np.arange(6, dtype="int32").reshape(2, 3))
        s = R.shape([1, 2])
        p = R.prim_value(3)
        t = R.str("hello")
        u = R.dtype("float16")
        tup = (x, c)
        item = tup[1]
        return item

    values = [b.value for b in _bindings(main)]
    assert isinstance(values[0], relax.Constant) and values[0].data.numpy() == np.float32(1.5)
    np.testing.assert_array_equal(values[1].data.numpy(), np.arange(6).reshape(2, 3))
    assert isinstance(values[2], relax.ShapeExpr)
    assert isinstance(values[3], relax.PrimValue) and values[3].value.value == 3
    assert isinstance(values[4], relax.StringImm) and values[4].value == "hello"
    assert isinstance(values[5], relax.DataTypeImm) and values[5].value == "float16"
    assert isinstance(values[6], relax.Tuple)
    assert isinstance(values[7], relax.TupleGetItem) and values[7].index == 1


def test_scalar_annotation_makes_a_prim_value():
    func = from_source(
        "@R.function\ndef main(p: T.int64):\n    q: T.int32 = 4\n    return q\n"
    )
    value = _bindings(func)[0].value
    assert isinstance(value, relax.PrimValue) and value.value.dtype == "int32"


def test_call_tir_packed_and_dps_packed():
    @I.ir_module
    class Module:
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")):
            y = R.call_packed("my_func", x, ty_args=R.Tensor((3,), "float32"))
            z = R.call_dps_packed("my_dps", (y,), out_ty=R.Tensor((3,), "float32"))
            w = R.call_dps_packed("my_dps", (z,), out_sinfo=R.Tensor((3,), "float32"))
            return w

    y, z, w = (b.value for b in _bindings(Module["main"]))
    assert isinstance(y.op, relax.ExternFunc) and y.op.global_symbol == "my_func"
    assert y.ty.shape.values[0].value == 3
    assert z.op == tvm.ir.Op.get("relax.call_dps_packed")
    tvm.ir.assert_structural_equal(z.ty_args, w.ty_args)


def test_nested_calls_are_bound_first():
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        y = R.add(R.multiply(x, x), x)
        return y

    first, second = _bindings(main)
    assert first.var.name_hint == "gv" and first.value.op == tvm.ir.Op.get("relax.multiply")
    assert second.value.args[0] is first.var


def test_return_of_a_call_is_bound():
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        return R.add(x, x)

    (binding,) = _bindings(main)
    assert main.body.body is binding.var


def test_local_function():
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        @R.function
        def inner(y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            z = R.add(y, y)
            return z

        w = inner(x)
        return w

    inner_binding, call_binding = _bindings(main)
    assert inner_binding.var.name_hint == "inner"
    assert isinstance(inner_binding.value, relax.Function)
    assert call_binding.value.op is inner_binding.var


def test_python_values_from_closure_and_arithmetic_on_shapes():
    size = 4

    @R.function
    def main(x: R.Tensor(("n", size), "float32")):
        n = T.int64()
        y = R.reshape(x, (n * size,))
        return y

    (binding,) = _bindings(main)
    assert binding.var.ty.ndim == 1


def test_rebinding_a_name_makes_a_new_variable():
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        x1 = R.add(x, x)
        x1 = R.add(x1, x1)
        return x1

    first, second = _bindings(main)
    assert second.value.args[0] is first.var
    assert main.body.body is second.var


def test_r_namespace_follows_the_op_library():
    for name in ("add", "multiply", "matmul", "sum", "reshape", "permute_dims", "ones"):
        assert getattr(R, name) is getattr(relax.op, name)
    with pytest.raises(AttributeError, match="tvm.relax.op has no 'no_such_op'"):
        R.no_such_op  # noqa: B018


def test_impure_call_statement_is_kept():
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")):
        R.print(x, format="{}")
        return x

    (binding,) = _bindings(main)
    assert binding.var.name_hint == "_"
    assert binding.value.op == tvm.ir.Op.get("relax.print")


def test_output_may_name_a_variable_bound_earlier_in_the_block():
    @R.function
    def main(x: R.Tensor((3,), "float32")):
        with R.dataflow():
            a = R.add(x, x)
            b = R.multiply(a, a)
            R.output(a, b)
        c = R.add(a, b)
        return c

    block = main.body.blocks[0]
    assert all(type(b.var) is relax.Var for b in block.bindings)


def test_dataflow_vars_are_not_visible_after_the_block():
    program = (
        '@R.function\ndef main(x: R.Tensor((3,), "float32")):\n'
        "    with R.dataflow():\n        a = R.add(x, x)\n        b = R.add(a, a)\n"
        "        R.output(b)\n    return a\n"
    )
    with pytest.raises(DiagnosticError, match="Undefined variable: a"):
        from_source(program)


def test_binding_after_output_is_an_error():
    program = (
        '@R.function\ndef main(x: R.Tensor((3,), "float32")):\n'
        "    with R.dataflow():\n        a = R.add(x, x)\n        R.output(a)\n"
        "        b = R.add(a, a)\n    return a\n"
    )
    with pytest.raises(DiagnosticError, match="R.output must be the last statement"):
        from_source(program)


def test_parameters_need_annotations():
    with pytest.raises(DiagnosticError, match="Parameter x needs a type annotation"):
        from_source("@R.function\ndef main(x):\n    return x\n")


def test_unsupported_statement_in_relax():
    program = '@R.function\ndef main(x: R.Tensor((3,), "float32")):\n    for i in range(3):\n' \
        "        pass\n    return x\n"
    with pytest.raises(DiagnosticError, match="Unsupported statement in the 'relax' dialect: For"):
        from_source(program)


def test_unknown_decorator_keyword():
    with pytest.raises(DiagnosticError, match="unexpected keyword argument 'bogus'"):
        from_source('@R.function(bogus=1)\ndef main(x: R.Tensor((3,), "float32")):\n    return x\n')


def test_calling_an_undefined_module_function():
    program = (
        "@I.ir_module\nclass Module:\n    @R.function\n"
        '    def main(x: R.Tensor((3,), "float32")):\n        cls = Module\n'
        "        y = cls.nothing(x)\n        return y\n"
    )
    with pytest.raises(DiagnosticError, match="Module Module has no function 'nothing'"):
        from_source(program)


def test_standalone_function_decorator_flags():
    @R.function(pure=False, private=True, check_well_formed=False)
    def main(x: R.Tensor((3,), "float32")):
        return x

    assert main.is_pure is False
    assert "global_symbol" not in main.attrs


def test_metadata_constants_round_trip_through_extra_vars():
    data = np.arange(6, dtype="float32").reshape(2, 3)

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        c = R.const(data)
        y = R.add(x, c)
        return y

    text = main.script()
    assert 'metadata["ir.GenericConst"][0]' in text
    const = _bindings(main)[0].value
    again = from_source(text, extra_vars={"metadata": {"ir.GenericConst": [const]}})
    tvm.ir.assert_structural_equal(main, again)
    assert again.script() == text


def test_call_tir_with_out_ty_and_seed_era_out_sinfo():
    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            cls = Module
            y = R.call_tir(cls.kernel, (x,), out_ty=R.Tensor((3,), "float32"))
            z = R.call_tir(cls.kernel, (y,), out_sinfo=R.Tensor((3,), "float32"))
            return z

        @R.function
        def kernel(x: R.Tensor((3,), "float32")):
            return x

    y, z = (b.value for b in _bindings(Module["main"]))
    assert y.op == tvm.ir.Op.get("relax.call_tir")
    assert y.args[0].name_hint == "kernel"
    tvm.ir.assert_structural_equal(y.ty_args, z.ty_args)


def test_tuple_unpacking_of_a_relax_tuple_value():
    @R.function
    def main(x: R.Tensor((3,), "float32"), t: R.Tuple(R.Tensor((3,), "float32"), R.Object)):
        a, b = t
        return a

    first, second = _bindings(main)
    assert isinstance(first.value, relax.TupleGetItem) and first.value.index == 0
    assert first.var.name_hint == "a" and second.var.name_hint == "b"
    assert isinstance(second.var.ty, relax.ObjectType)


def test_module_global_infos():
    infos = {"my_info": [relax.const(1.0)]}

    @I.ir_module
    class Module:
        I.module_global_infos(infos)

        @R.function
        def main(x: R.Tensor((3,), "float32")):
            return x

    assert list(Module.global_infos) == ["my_info"]
    assert len(Module.global_infos["my_info"]) == 1


def test_return_inside_an_if_branch_is_an_error():
    program = (
        '@R.function\ndef main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):\n'
        "    if c:\n        return x\n    else:\n        y = x\n    return y\n"
    )
    with pytest.raises(DiagnosticError, match="if branch cannot return") as info:
        from_source(program)
    assert " --> <str>:4:9" in str(info.value)


def test_statements_after_return_are_an_error():
    program = (
        '@R.function\ndef main(x: R.Tensor((3,), "float32")):\n'
        "    return x\n    y = R.add(x, x)\n"
    )
    with pytest.raises(DiagnosticError, match="No binding may follow the function's return"):
        from_source(program)


def test_new_op_families_appear_in_r_without_parser_changes():
    if not hasattr(relax.op, "nn") or not hasattr(relax.op.nn, "relu"):
        pytest.skip("needs tvm.relax.op.nn.relu")

    @R.function
    def main(x: R.Tensor((3,), "float32")):
        y = R.nn.relu(x)
        return y

    assert R.nn is relax.op.nn
    assert _bindings(main)[0].value.op == tvm.ir.Op.get("relax.nn.relu")
    again = from_source(main.script())
    tvm.ir.assert_structural_equal(main, again)


def test_checkpoint_markers_from_the_grad_family():
    grad = getattr(relax.op, "grad", None)
    if grad is None or not hasattr(grad, "start_checkpoint"):
        pytest.skip("needs tvm.relax.op.grad.start_checkpoint")

    @R.function
    def main(x: R.Tensor((3,), "float32")):
        with R.dataflow():
            a = R.grad.start_checkpoint(x)
            b = R.multiply(a, a)
            c = R.grad.end_checkpoint(b)
            R.output(c)
        return c

    ops = [b.value.op.name for b in _bindings(main)]
    assert ops == ["relax.grad.start_checkpoint", "relax.multiply", "relax.grad.end_checkpoint"]


def test_spans_point_back_to_the_source():
    program = (
        "@R.function\n"
        'def main(x: R.Tensor((3,), "float32")):\n'
        "    y = R.add(x, x)\n"
        "    return y\n"
    )
    func = from_source(program)
    (binding,) = _bindings(func)
    span = binding.span
    assert (span.source_name.name, span.line, span.column, span.end_line, span.end_column) == (
        "<str>", 3, 5, 3, 20)
    assert binding.var.span is span
    assert func.params[0].span.line == 2 and func.params[0].span.column == 10
    assert func.span.line == 2


def test_other_python_expressions_run_as_python():
    func = from_source(
        "@R.function\n"
        'def main(x: R.Tuple(*[R.Tensor((3,), "float32") for _ in range(2)])):\n'
        "    return x\n"
    )
    assert len(func.params[0].ty.fields) == 2
    with pytest.raises(DiagnosticError, match="name 'nowhere' is not defined") as info:
        from_source(
            "@R.function\n"
            'def main(x: R.Tuple(*[R.Tensor((3,), "float32") for _ in nowhere])):\n'
            "    return x\n"
        )
    assert " --> <str>:2:22" in str(info.value)


def test_two_top_level_definitions_are_an_error():
    program = (
        '@R.function\ndef a(x: R.Tensor((3,), "float32")):\n    return x\n\n'
        '@R.function\ndef b(x: R.Tensor((3,), "float32")):\n    return x\n'
    )
    with pytest.raises(DiagnosticError, match="only one top-level") as info:
        from_source(program)
    assert " --> <str>:6:1" in str(info.value)


def test_imports_at_the_top_of_a_script():
    program = (
        "import numpy as np\n"
        "from tvm.script import relax as R\n"
        "from tvm.script import ir as I\n"
        "@R.function\n"
        'def main(x: R.Tensor((2,), "float32")):\n'
        '    c = R.const(np.ones((2,), "float32"))\n'
        "    y = R.add(x, c)\n"
        "    return y\n"
    )
    func = from_source(program)
    np.testing.assert_array_equal(_bindings(func)[0].value.data.numpy(), np.ones(2))
    with pytest.raises(DiagnosticError, match="No module named 'no_such_module_xyz'"):
        from_source("import no_such_module_xyz\n")


def test_decorator_misuse():
    with pytest.raises(TypeError, match="@I.ir_module expects a class"):
        I.ir_module(lambda: None)
    with pytest.raises(TypeError, match="@R.function expects a function"):
        R.function(42)
    with pytest.raises(TypeError, match="R.match_cast expects a Relax expression"):
        R.match_cast(3, R.Tensor((3,), "float32"))
    with pytest.raises(TypeError, match="Expected a Relax type annotation"):
        R.Tuple(3)
    with pytest.raises(TypeError, match="R.Tensor: shape must be a list or tuple"):
        R.Tensor(3)
    with pytest.raises(TypeError, match="a dimension must be an int, a str or a PrimExpr"):
        R.Tensor((1.5,))
    with pytest.raises(ValueError, match="Invalid shape expression 'n \\+'"):
        R.Tensor(("n +",))


def test_types_outside_a_parse_make_fresh_shape_vars():
    ty = R.Tensor(("n", "n * 2"), "float32")
    n, n2 = ty.shape.values
    assert isinstance(n, tirx.Var) and n.name == "n"
    assert n2.dtype == "int64"


def test_annotation_rules_for_leaf_and_computed_values():
    @R.function
    def main(x: R.Tensor((3,), "float32"), z: R.Tensor("float32")):
        y: R.Tensor(ndim=1, dtype="float32") = x
        u: R.Tensor((3,), "float32") = z
        w: R.Tensor(dtype="float32") = R.add(x, x)
        return (y, u, w)

    y, u, w = _bindings(main)
    # A leaf value keeps its own type; the annotation only has to be compatible.
    assert y.var.ty is main.params[0].ty
    assert u.var.ty.shape is None
    # A computed value takes the annotation, less precise here than the inferred (3,).
    assert w.var.ty.shape is None and w.value.ty is w.var.ty


def test_incompatible_annotation_of_a_leaf_value():
    program = (
        '@R.function\ndef main(x: R.Tensor((3,), "float32")):\n'
        '    y: R.Tensor((4,), "float32") = x\n    return y\n'
    )
    with pytest.raises(DiagnosticError) as info:
        from_source(program)
    assert str(info.value) == (
        "error: Invalid annotation. Got rhs value type: R.Tensor((3,), dtype=\"float32\"), "
        "given type: R.Tensor((4,), dtype=\"float32\")\n"
        " --> <str>:3:5\n"
        "   |  \n"
        ' 3 |      y: R.Tensor((4,), "float32") = x\n'
        "   |      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^"
    )


def test_tvm_script_ir_module_spelling():
    @tvm.script.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            return x

    assert isinstance(Module, tvm.ir.IRModule)
    text = (
        "@tvm.script.ir_module\nclass Module:\n    @R.function\n"
        '    def main(x: R.Tensor((3,), "float32")):\n        return x\n'
    )
    tvm.ir.assert_structural_equal(from_source(text), Module)


def test_docstring_and_nested_tuple_unpacking():
    @R.function
    def main(
        t: R.Tuple(R.Tuple(R.Tensor((3,), "float32"), R.Object), R.Tensor((2,), "float32")),
    ):
        """A docstring is not a binding."""
        (a, b), c = t
        return a

    names = [b.var.name_hint for b in _bindings(main)]
    assert names == ["gv", "a", "b", "c"]
    first = _bindings(main)[0]
    assert isinstance(first.value, relax.TupleGetItem) and first.value.index == 0


def test_tuple_assignment_names_each_shape_var():
    @R.function
    def f(x: R.Tensor(dtype="float32")) -> R.Shape:
        n, m = T.int64(), T.int64()
        _ = R.match_cast(x, R.Tensor((n, m), "float32"))
        return R.shape([n, m])

    dims = f.body.blocks[0].bindings[0].ty.shape.values
    assert [d.name for d in dims] == ["n", "m"]
    assert "n = T.int64()" in f.script() and "m = T.int64()" in f.script()
