"""The examples in the docstrings of the tirx expression modules run as written."""

import doctest
import importlib

import pytest

MODULES = [
    "tvm.runtime.data_type",
    "tvm.tirx.expr",
    "tvm.tirx.expr_text",
    "tvm.tirx.generic",
    "tvm.tirx.op",
    "tvm.tirx.expr_functor",
    "tvm.tirx.analysis.expr_analysis",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"
    assert result.attempted > 0, f"{name} has no docstring example"
