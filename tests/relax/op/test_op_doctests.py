"""The examples in the docstrings of the op library and the evaluator run as written."""

import doctest
import importlib

import pytest

MODULES = ["tvm.relax.op.nn", "tvm.relax.testing.evaluator"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"no examples in {name}"
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"
