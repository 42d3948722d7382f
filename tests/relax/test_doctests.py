"""The examples in the docstrings of the Relax IR and pass modules run as written."""

import doctest
import importlib

import pytest

MODULES = [
    "tvm.ir.attrs",
    "tvm.ir.module",
    "tvm.ir.transform",
    "tvm.relax.block_builder",
    "tvm.relax.expr",
    "tvm.relax.transform.pass_executors",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"
