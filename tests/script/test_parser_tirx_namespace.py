"""The minimal ``T`` namespace that Relax scripts use (dtype constructors, tirx fallbacks)."""

import pytest

from tvm import tirx
from tvm.script import tirx as T


def test_dtype_constructors():
    var = T.int64()
    assert isinstance(var, tirx.Var) and var.dtype == "int64" and var.name == ""
    assert isinstance(T.int64(is_size_var=True), tirx.SizeVar)
    assert T.int32(3).dtype == "int32" and T.int32(3).value == 3
    assert isinstance(T.float32(1), tirx.FloatImm) and T.float32(1).value == 1.0
    assert T.bool(True).value == 1 and T.bool(True).dtype == "bool"
    named = T.float16("h")
    assert isinstance(named, tirx.Var) and named.name == "h" and named.dtype == "float16"
    cast = T.int32(T.int64(5) + tirx.Var("k", "int64"))
    assert cast.dtype == "int32"
    same = T.int64(5)
    assert T.int64(same) is same


def test_dtype_constructor_errors():
    with pytest.raises(TypeError, match=r"T.int32\(\) expects an integer"):
        T.int32(1.5)


def test_other_names_come_from_tirx():
    assert T.floordiv is tirx.floordiv
    with pytest.raises(AttributeError, match="T.no_such_thing is not available"):
        T.no_such_thing  # noqa: B018


def test_bare_constructor_is_a_scalar_annotation():
    from tvm import relax
    from tvm.script.parser.relax.types import as_type

    ty = as_type(T.float32)
    assert isinstance(ty, relax.PrimType) and ty.dtype == "float32"


def test_prim_func_needs_the_tir_dialect():
    import importlib.util

    from tvm.error import DiagnosticError
    from tvm.script import from_source

    if importlib.util.find_spec("tvm.tirx.script") is not None or "prim_func" in vars(T):
        pytest.skip("the TIR dialect is installed: T.prim_func is parsed there")
    program = (
        "@I.ir_module\nclass Module:\n    @T.prim_func\n"
        '    def add(A: T.Buffer((3,), "float32")):\n        T.evaluate(0)\n'
    )
    with pytest.raises(DiagnosticError) as info:
        from_source(program)
    assert str(info.value).startswith(
        "error: T.prim_func is not available: this minimal T namespace only provides dtype "
        "constructors and tvm.tirx names (TIR functions are parsed by the TIR dialect)\n"
        " --> <str>:3:6"
    )
