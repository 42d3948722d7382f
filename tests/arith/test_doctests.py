"""The examples in the docstrings of tvm.arith run as written."""

import doctest
import importlib

import pytest

MODULES = [
    "tvm.arith.analyzer",
    "tvm.arith.bound",
    "tvm.arith.canonical",
    "tvm.arith.int_set",
    "tvm.arith.logic",
    "tvm.arith.modular_set",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"
    assert result.attempted > 0, f"{name} has no docstring example"
