"""``script()`` options that name things in the printed text must be Python identifiers."""

import pytest

from tvm.script import tirx as T
from tvm.script.ir_builder import IRBuilder
from tvm.script.ir_builder import ir as I
from tvm.script.ir_builder import tirx as Tb
from tvm.script.printer import PrinterConfigError


def _module():
    with IRBuilder() as ib, I.ir_module(), Tb.prim_func():
        Tb.func_name("foo")
    return ib.get()


def test_prefix_and_alias_are_used_in_the_text():
    text = _module().script(ir_prefix="IR", module_alias="mod")
    assert "@IR.ir_module" in text
    assert "# from tvm.script import ir as IR" in text


@pytest.mark.parametrize("kwargs", [{"ir_prefix": "2I"}, {"ir_prefix": "a b"},
                                    {"module_alias": "1x"}])
def test_a_prefix_that_is_not_an_identifier_is_refused(kwargs):
    with pytest.raises(PrinterConfigError, match="Invalid `(ir_prefix|module_alias)`"):
        _module().script(**kwargs)
    # The error kind: a ValueError by pytvm's rules, a RuntimeError as Apache TVM raises it.
    assert issubclass(PrinterConfigError, ValueError)
    assert issubclass(PrinterConfigError, RuntimeError)


def test_empty_module_alias_is_accepted():
    @T.prim_func
    def f(a: T.int32) -> T.int32:
        return a

    assert "def f(a: T.int32) -> T.int32:" in f.script(module_alias="")
