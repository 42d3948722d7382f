"""Pointer types and pointer variables in TIR TVMScript: printed forms (checked against Apache
TVM 0.27) and parse -> print -> parse round trips."""

import pytest

import tvm
from tvm import ir, tirx
from tvm.script import from_source
from tvm.script import tirx as T


@pytest.mark.parametrize(
    ("elem", "scope", "text"),
    [
        ("int32", "global", 'T.handle("int32", "global")'),
        ("int32", "shared", 'T.handle("int32", "shared")'),
        ("void", "global", "T.handle"),
        ("void", "shared", 'T.handle(storage_scope="shared")'),
    ],
)
def test_pointer_type_text(elem, scope, text):
    assert ir.PointerType(ir.PrimType(elem), scope).script() == text


@pytest.mark.parametrize(
    ("ty", "decl"),
    [
        ("handle", "T.handle()"),
        ("int8", "T.int8()"),
        (ir.PointerType(ir.PrimType("void")), "T.handle()"),
        (ir.PointerType(ir.PrimType("void"), "shared"), 'T.handle(storage_scope="shared")'),
        (ir.PointerType(ir.PrimType("int32"), "shared"), 'T.handle("int32", "shared")'),
        (ir.PointerType(ir.PrimType("int32")), 'T.handle("int32", "global")'),
    ],
)
def test_free_pointer_var_declares_its_type(ty, decl):
    assert tirx.Var("a", ty).script(verbose_expr=True) == f"a = {decl}\na"


def test_void_storage_scope_handle_parses_back():
    var = T.handle(storage_scope="shared")
    tvm.ir.assert_structural_equal(var.type_annotation,
                                   ir.PointerType(ir.PrimType("void"), "shared"))


def _roundtrip(func, check_well_formed=True):
    text = func.script()
    again = from_source(text, check_well_formed=check_well_formed)
    tvm.ir.assert_structural_equal(func, again)
    assert again.script() == text
    return text


def test_decl_buffer_over_undeclared_pointer_declares_it():
    @T.prim_func(check_well_formed=False, s_tir=True)
    def func():
        data_ptr = T.handle("float32")
        buf = T.decl_buffer(shape=[1], dtype="float32", data=data_ptr)
        T.evaluate(buf[0])

    text = _roundtrip(func, check_well_formed=False)
    assert '    data_ptr = T.handle("float32", "global")\n' in text
    assert "    buf = T.decl_buffer((1,), data=data_ptr)\n" in text


def test_decl_buffer_statement_alone_declares_its_pointer():
    from tvm.script.ir_builder import IRBuilder
    from tvm.script.ir_builder import tirx as TB

    with IRBuilder() as ib, TB.prim_func():
        TB.func_name("test")
        TB.decl_buffer((10, 10), data=TB.ptr("float32"))
        TB.evaluate(1)
    text = ib.get().body.script(verbose_expr=True)
    assert text.splitlines()[:2] == [
        'v = T.handle("float32", "global")',
        "buffer = T.decl_buffer((10, 10), data=v)",
    ]


def test_void_handle_parameter_is_a_plain_handle():
    @T.prim_func(s_tir=True)
    def void_ptr(out_ret_value: T.handle("void")):
        T.evaluate(out_ret_value)

    @T.prim_func(s_tir=True)
    def handle(out_ret_value: T.handle):
        T.evaluate(out_ret_value)

    tvm.ir.assert_structural_equal(void_ptr.params[0].ty, handle.params[0].ty)
    tvm.ir.assert_structural_equal(void_ptr.body, handle.body, map_free_vars=True)
    text = _roundtrip(void_ptr)
    assert "out_ret_value: T.handle)" in text


def test_pointer_parameters_print_their_type():
    @T.prim_func(s_tir=True)
    def f(
        a: T.handle(storage_scope="shared"),
        b: T.handle("float32"),
        c: T.handle("int8", "shared"),
        d: T.handle("void", "global"),
        e: T.handle,
    ):
        T.evaluate(a)

    text = _roundtrip(f)
    assert (
        'def f(a: T.handle(storage_scope="shared"), b: T.handle("float32", "global"), '
        'c: T.handle("int8", "shared"), d: T.handle, e: T.handle):'
    ) in text

