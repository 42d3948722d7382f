"""``ExprEvaluator.eval(parser, value_table, node)``: Apache TVM's static form, beside the
parser's own ``evaluator.eval(node)``."""

import ast

import pytest

from tvm.script.parser.core.evaluator import ExprEvaluator, UndefinedVariableError


def _expr(text):
    return ast.parse(text).body[0].value


def test_static_form_evaluates_with_the_value_table():
    value = ExprEvaluator.eval(None, {"a": 6, "b": 4}, _expr("a * b + len([a, b]), a // b"))
    assert value == (26, 1)


def test_static_form_calls_and_slices_values_from_the_table():
    def pair(x, y):
        return (y, x)

    table = {"pair": pair, "xs": [1, 2, 3, 4, 5]}
    assert ExprEvaluator.eval(None, table, _expr("pair(1, 2), xs[1:4:2]")) == ((2, 1), [2, 4])


def test_static_form_names_an_undefined_variable():
    with pytest.raises(UndefinedVariableError, match="missing"):
        ExprEvaluator.eval(None, {}, _expr("missing + 1"))


def test_parser_form_is_unchanged():
    from tvm.script import tirx as T

    @T.prim_func
    def f(a: T.int32) -> T.int32:
        return a + 2 * 3

    assert "a + 6" in f.script()
