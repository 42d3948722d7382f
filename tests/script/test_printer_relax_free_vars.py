"""Printing an expression, type or binding alone declares its free variables first (the
output of Apache TVM 0.27, checked against it): always for bindings/blocks, with
``verbose_expr=True`` for expressions and types."""

from tvm import relax, tirx


def test_verbose_expr_declares_free_tir_vars():
    a = tirx.Var("a", "int64")
    shape = relax.ShapeType([1, a, 3])
    assert shape.script() == "R.Shape([1, a, 3])"
    assert shape.script(verbose_expr=True) == "a = T.int64()\nR.Shape([1, a, 3])"
    assert (a + 1).script(verbose_expr=True) == "a = T.int64()\na + T.int64(1)"
    assert relax.ShapeExpr([1, a]).script(verbose_expr=True) == "a = T.int64()\nR.shape([1, a])"


def test_verbose_expr_declares_free_relax_vars_after_their_tir_vars():
    a = tirx.Var("a", "int64")
    x = relax.Var("x", relax.TensorType([1, a], "float32"))
    assert x.script() == "x"
    assert x.script(verbose_expr=True) == (
        'a = T.int64()\nx: R.Tensor((1, a), dtype="float32")\nx'
    )


def test_binding_block_declares_tir_vars():
    x = tirx.Var("x", "int64")
    a = relax.Var("a", relax.TensorType([1, x, 3], "float32"))
    b = relax.Var("b", relax.TensorType([1, x, 3], "float32"))
    block = relax.BindingBlock([relax.VarBinding(b, relax.op.sin(a))])
    assert block.script() == (
        "x = T.int64()\n"
        'a: R.Tensor((1, x, 3), dtype="float32")\n'
        'b: R.Tensor((1, x, 3), dtype="float32") = R.sin(a)'
    )


def test_functions_are_unchanged_by_verbose_expr():
    x = relax.Var("x", relax.TensorType([2], "float32"))
    func = relax.Function([x], x).with_attr("global_symbol", "main")
    assert func.script(verbose_expr=True) == func.script()


def test_extern_funcs_print_as_module_assignments():
    import tvm

    f = relax.Var("f", relax.TensorType([2], "float32"))
    ty = relax.FuncType([], relax.TensorType(dtype="float32", ndim=2), purity=True)
    mod = tvm.IRModule(
        {"func": relax.Function([f], relax.SeqExpr([], f)), "my_ext": relax.ExternFunc("my_ext"),
         "typed": relax.ExternFunc("typed", ty)}
    )
    text = mod.script()
    body = text[text.index("class Module:"):].splitlines()
    assert body[1].strip() == 'my_ext = R.ExternFunc("my_ext")'
    assert body[2].strip() == (
        'typed = R.ExternFunc("typed", R.Callable((), R.Tensor(dtype="float32", ndim=2), True))'
    )
    assert body[3].strip() == "@R.function(private=True)"
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), mod)


def test_empty_module_alias_names_the_module():
    import tvm
    from tvm.script import ir as I
    from tvm.script import relax as R

    @I.ir_module
    class Mod:
        @R.function
        def f(x: R.Tensor((2,), "float32")):
            return x

        @R.function
        def main(x: R.Tensor((2,), "float32")):
            cls = Mod
            y = cls.f(x)
            return y

    assert "cls = Module" in Mod.script()
    text = Mod.script(module_alias="")
    assert "cls = " not in text and "cls." not in text and "= Module.f(x)" in text
    assert tvm.ir.structural_equal(tvm.script.from_source(text), Mod)


def test_variables_named_like_a_dialect_prefix_are_renamed():
    x = tirx.Var("x", "int64")
    a = relax.Var("R", relax.TensorType([1, x, 3], "float32"))
    b = relax.Var("T", relax.TensorType([1, x, 3], "float32"))
    assert relax.VarBinding(b, relax.op.sin(a)).script() == (
        "x = T.int64()\n"
        'R_1: R.Tensor((1, x, 3), dtype="float32")\n'
        'T_1: R.Tensor((1, x, 3), dtype="float32") = R.sin(R_1)'
    )
