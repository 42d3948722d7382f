"""TIRx function-level forms: ``@T.prim_func(persistent=True)``, handle parameters the body
uses after ``T.match_buffer``, ``T.handle(dtype)`` pointer lets, ``I.meta_var`` and
``T.print_buffer``. Printed texts were checked against Apache TVM 0.27."""

import pytest

import tvm
from tvm.ir import assert_structural_equal
from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.tirx.type import is_tensormap_pointer

HEADER = "# from tvm.script import tirx as T\n# from tvm.tirx.layout import Axis\n\n"


def _roundtrip(func):
    code = func.script()
    parsed = tvm.script.from_source(code)
    assert parsed.script() == code
    assert_structural_equal(func, parsed)
    return code


def test_persistent_decorator_sets_attribute_and_prints_back():
    @T.prim_func(persistent=True)
    def k(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    assert k.attrs["tirx.persistent_kernel"] is True
    code = _roundtrip(k)
    assert code == HEADER + (
        '@T.prim_func(persistent=True)\n'
        'def k(A: T.Buffer((4,), "float32")):\n'
        '    A[0] = T.float32(1.0)'
    )


def test_persistent_keyword_order_and_absence():
    @T.prim_func(persistent=True, private=True, s_tir=True)
    def k(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    assert "@T.prim_func(private=True, s_tir=True, persistent=True)" in _roundtrip(k)

    @T.prim_func(persistent=False)
    def plain(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1)

    assert "tirx.persistent_kernel" not in plain.attrs
    assert "persistent" not in plain.script()


def test_persistent_attribute_that_is_not_true_stays_a_func_attr():
    @T.prim_func
    def k(A: T.Buffer((4,), "float32")):
        T.func_attr({"tirx.persistent_kernel": False})
        A[0] = T.float32(1)

    code = _roundtrip(k)
    assert "persistent=True" not in code
    assert '"tirx.persistent_kernel": False' in code


def test_handle_used_after_match_buffer_keeps_its_parameter():
    @T.prim_func
    def func(A_ptr: T.handle):
        T.func_attr({"global_symbol": "func"})
        _ = T.match_buffer(A_ptr, [128], "float32")
        A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed("runtime.tensormap_init", T.address_of(A_map), A_ptr)

    code = _roundtrip(func)
    assert code == HEADER + (
        "@T.prim_func\n"
        "def func(A_ptr: T.handle):\n"
        "    _ = T.match_buffer(A_ptr, (128,))\n"
        '    A_map: T.let[T.TensorMap()] = T.tvm_stack_alloca("tensormap", 1)\n'
        '    T.call_packed("runtime.tensormap_init", T.address_of(A_map), A_ptr)'
    )
    # The body's handle is the parameter itself.
    assert func.body.seq[1].value.args[2].same_as(func.param_vars[0])


def test_unused_handle_still_prints_as_buffer_parameter():
    @T.prim_func(private=True)
    def func(a: T.handle):
        A = T.match_buffer(a, (4,), "int32")
        A[0] = 1

    assert "def main(A: T.Buffer((4,), \"int32\")):" in _roundtrip(func)


def test_handle_constructor_takes_a_dtype():
    assert T.handle().dtype == "handle"
    assert T.handle("void").dtype == "handle"
    assert is_tensormap_pointer(T.handle("tensormap").type_annotation)
    ptr = T.handle("float32", "shared").type_annotation
    assert (ptr.element_type.dtype, ptr.storage_scope) == ("float32", "shared")
    assert T.handle("int8").type_annotation.storage_scope == "global"


def test_tensormap_let_prints_as_tensormap():
    @T.prim_func(private=True)
    def f():
        m: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
        T.evaluate(T.address_of(m))

    assert _roundtrip(f) == HEADER + (
        "@T.prim_func(private=True)\n"
        "def main():\n"
        '    m: T.let[T.TensorMap()] = T.tvm_stack_alloca("tensormap", 1)\n'
        "    T.address_of(m)"
    )


def test_meta_var_is_shared_by_ir_and_tirx_namespaces():
    assert I.meta_var is T.meta_var

    @T.prim_func(private=True)
    def via_ir():
        value = I.meta_var(T.int32(1))
        T.evaluate(value)

    @T.prim_func(private=True)
    def via_tirx():
        value = T.meta_var(T.int32(1))
        T.evaluate(value)

    assert_structural_equal(via_ir, via_tirx)
    assert "meta_var" not in _roundtrip(via_ir)


def test_print_buffer_builds_and_prints():
    @T.prim_func(private=True)
    def g(A: T.Buffer((16,), "float32")):
        T.print_buffer(A.data, "float32", False, False, 1, 16)

    code = _roundtrip(g)
    assert code.endswith(
        '    T.print_buffer(A.data, "float32", T.bool(False), T.bool(False), T.uint32(1), 16)')
    call = g.body.value
    assert call.op.name == "tirx.print_buffer"
    assert call.dtype == "float32"
    assert call.op.get_attr("TCallEffectKind") == tvm.tirx.op.CallEffectKind.Opaque
    # The shape may also come as one list.
    listed = T.print_buffer(g.buffer_map[g.params[0]].data, "float32", False, False, 2, [4, 4])
    assert [int(a) for a in listed.args[5:]] == [4, 4]


def test_print_buffer_rejects_bad_arguments():
    data = tvm.tirx.Var("p", "handle")
    with pytest.raises(TypeError, match="dtype"):
        T.print_buffer(data, 3, False, False, 1, 16)
    with pytest.raises(TypeError, match="dim_num"):
        T.print_buffer(data, "float32", False, False, tvm.tirx.Var("n", "int32"), 16)


def test_void_pointer_let_keeps_its_pointer_type():
    @T.prim_func
    def f():
        T.device_entry()
        smem = T.alloc_shared([128], "float16")
        ptr: T.let[T.handle("void", "global")] = smem.access_ptr("rw")
        T.evaluate(ptr)

    code = _roundtrip(f)
    assert 'ptr: T.let[T.handle("void", "global")] = T.tvm_access_ptr(' in code


def test_pointer_types_print_as_handles():
    from tvm.ir import PointerType, PrimType
    from tvm.tirx.type import tensormap_pointer_type

    assert str(PointerType(PrimType("float32"))) == 'T.handle("float32", "global")'
    assert str(PointerType(PrimType("uint32"), "shared")) == 'T.handle("uint32", "shared")'
    assert str(PointerType(PrimType("void"))) == "T.handle"
    assert str(PrimType("uint32")) == "uint32"  # 0.27: a scalar type prints as its dtype
    assert str(tensormap_pointer_type()) == "T.TensorMap()"


def test_alias_of_body_memory_is_declared_where_its_data_exists():
    @T.prim_func
    def func():
        with T.launch_thread("blockIdx.x", 1):
            T.launch_thread("threadIdx.x", 128)
            addr = T.alloc_shared((1,), "uint32", layout=None)
            addr_alias = T.Buffer((1,), "uint32", data=addr.data, scope="shared")
            T.decl_buffer((64,), scope="tmem", layout=None, allocated_addr=addr_alias[0])

    lines = _roundtrip(func).splitlines()
    alloc = lines.index('    addr = T.alloc_shared((1,), "uint32", layout=None)')
    assert lines[alloc + 1] == (
        '    addr_alias = T.Buffer((1,), "uint32", data=addr.data, scope="shared")')
    assert "T.decl_buffer((64,), scope=\"tmem\"" in lines[alloc + 2]


def test_matched_handle_parameter_takes_the_buffer_name():
    @T.prim_func
    def f(a: T.handle, b: T.handle, n: T.int32):
        A = T.match_buffer(a, (4,), "float32")
        B = T.match_buffer(b, (4,), "float32")
        B[0] = A[0]

    assert [p.name for p in f.params] == ["A", "B", "n"]

    @T.prim_func
    def g(a_ptr: T.handle):
        A = T.match_buffer(a_ptr, (4,), "float32")
        T.call_packed("f", a_ptr, A.data)

    # The body uses the handle itself: the handle keeps its name. The parameter as
    # ``params`` lists it is still the buffer, as in TVM 0.27.
    assert [p.name for p in g.param_vars] == ["a_ptr"]
    assert [p.name for p in g.params] == ["A"]


def test_compile_time_if_is_inlined_and_bool_ops_short_circuit():
    def fail_if_evaluated():
        raise RuntimeError("dead expression was evaluated")

    @T.jit(private=True)
    def kernel(a: T.Optional(T.handle), out_h: T.handle):
        if a is None:
            selected = T.match_buffer(out_h, (1,), "int32")
        else:
            selected = T.match_buffer(a, (1,), "int32")
        selected[0] = 1
        if a is None or fail_if_evaluated():
            selected[0] = 2
        if a is not None and fail_if_evaluated():
            selected[0] = 3
        selected[0] = 4 if a is None else fail_if_evaluated()

    absent = kernel.specialize(a=None)
    assert [p.name for p in absent.params] == ["selected"]
    assert absent.script().endswith(
        "    selected[0] = 1\n    selected[0] = 2\n    selected[0] = 4")
