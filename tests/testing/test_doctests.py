"""The examples in the foundation modules' docstrings run as doctests."""

import doctest
import importlib

import pytest

MODULES = [
    "tvm.error",
    "tvm.ffi.registry",
    "tvm.runtime.device",
    "tvm.runtime.tensor",
    "tvm.target.kind",
    "tvm.target.target",
    "tvm.ir.structural",
    "tvm.testing.utils",
    "tvm.testing._fixtures",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, verbose=False)
    assert result.failed == 0, f"{result.failed} doctest example(s) failed in {name}"
    assert result.attempted > 0, f"no doctest examples found in {name}"
