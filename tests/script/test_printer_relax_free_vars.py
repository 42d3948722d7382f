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
