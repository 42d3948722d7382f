"""``tvm.script.ir_builder.tirx`` used directly: statements with no enclosing function, and
the ``T`` value builders reachable from the IR-builder module."""

import pytest

from tvm import tirx
from tvm.script.ir_builder import IRBuilder
from tvm.script.ir_builder import tirx as T


def test_loop_without_function_is_the_result():
    with IRBuilder() as ib, T.grid(4, 8) as (i, j):
        ib.name_many(["i", "j"], [i, j])
        T.evaluate(0)
    loop = ib.get()
    assert isinstance(loop, tirx.For) and loop.extent.value == 4
    assert isinstance(loop.body, tirx.For) and loop.body.extent.value == 8
    assert loop.script(verbose_expr=True).strip() == (
        "for i, j in T.grid(4, 8):\n    T.evaluate(0)"
    )


def test_single_statement_is_the_result_and_a_second_is_an_error():
    with IRBuilder() as ib:
        T.evaluate(0)
    assert isinstance(ib.get(), tirx.Evaluate)
    with pytest.raises(ValueError, match="already has a result"), IRBuilder():
        T.evaluate(0)
        T.evaluate(1)


def test_value_builders_reachable_from_ir_builder():
    assert T.int32(3).dtype == "int32" and T.float16(1).dtype == "float16"
    assert isinstance(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), tirx.CommReducer)
    assert T.ptr("float32").type_annotation.storage_scope == "global"
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        T.no_such_name  # noqa: B018
