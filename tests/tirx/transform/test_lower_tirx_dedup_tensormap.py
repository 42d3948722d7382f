"""LowerTIRxDedupCuTensorMaps: repeated TMA descriptor encodes share the first map."""

import tvm
from tvm.script import tirx as T
from tvm.tirx.transform import LowerTIRxDedupCuTensorMaps

ENCODE = "runtime.cuTensorMapEncodeTiled"


def run(func):
    return LowerTIRxDedupCuTensorMaps()(tvm.IRModule({"main": func}))["main"]


def test_repeated_encode_uses_the_first_map():
    @T.prim_func
    def before(A: T.Buffer((64, 64), "float16"), B: T.Buffer((64, 64), "float16")):
        A_map: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed(ENCODE, A_map, "float16", 2, A.data, 64, 64)
        A_map_1: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed(ENCODE, A_map_1, "float16", 2, A.data, 64, 64)
        B_map: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed(ENCODE, B_map, "float16", 2, B.data, 64, 64)
        for i in range(2):
            C_map: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
            T.call_packed(ENCODE, C_map, "float16", 2, A.data, 64, 64)
            T.call_packed("k_kernel", C_map)
        T.call_packed("k_kernel", A_map, A_map_1, B_map)

    @T.prim_func
    def expected(A: T.Buffer((64, 64), "float16"), B: T.Buffer((64, 64), "float16")):
        A_map: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed(ENCODE, A_map, "float16", 2, A.data, 64, 64)
        B_map: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed(ENCODE, B_map, "float16", 2, B.data, 64, 64)
        for i in range(2):
            T.call_packed("k_kernel", A_map)
        T.call_packed("k_kernel", A_map, A_map, B_map)

    tvm.ir.assert_structural_equal(run(before), expected.with_attr("global_symbol", "before"))


def test_encode_inside_a_branch_is_not_reused_after_it():
    @T.prim_func
    def before(A: T.Buffer((64, 64), "float16"), n: T.int32):
        if n > 0:
            A_map: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
            T.call_packed(ENCODE, A_map, "float16", 2, A.data, 64, 64)
            A_map_1: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
            T.call_packed(ENCODE, A_map_1, "float16", 2, A.data, 64, 64)
            T.call_packed("k_kernel", A_map, A_map_1)
        A_map_2: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed(ENCODE, A_map_2, "float16", 2, A.data, 64, 64)
        T.call_packed("k_kernel", A_map_2, A_map_2)

    @T.prim_func
    def expected(A: T.Buffer((64, 64), "float16"), n: T.int32):
        if n > 0:
            A_map: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
            T.call_packed(ENCODE, A_map, "float16", 2, A.data, 64, 64)
            T.call_packed("k_kernel", A_map, A_map)
        A_map_2: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed(ENCODE, A_map_2, "float16", 2, A.data, 64, 64)
        T.call_packed("k_kernel", A_map_2, A_map_2)

    tvm.ir.assert_structural_equal(run(before), expected.with_attr("global_symbol", "before"))


def test_distinct_descriptors_leave_the_function_unchanged():
    @T.prim_func
    def f(A: T.Buffer((64, 64), "float16")):
        A_map: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed(ENCODE, A_map, "float16", 2, A.data, 64, 64)
        A_map_1: T.let[T.handle] = T.tvm_stack_alloca("tensormap", 1)
        T.call_packed(ENCODE, A_map_1, "float16", 2, A.data, 64, 32)
        T.call_packed("k_kernel", A_map, A_map_1)

    assert run(f) is f
