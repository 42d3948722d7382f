"""SplitHostDevice: explicit ``T.attr(target, "target", 0)`` regions become kernels."""

import pytest

import tvm
from tvm.script import ir as I
from tvm.script import tirx as T


def test_gpu_region_in_cpu_function_becomes_named_kernel():
    @I.ir_module
    class Before:
        @T.prim_func
        def main(A: T.Buffer((4,), "float32"), n: T.int32):
            T.func_attr({"target": T.target("llvm")})
            T.attr(T.target("cuda"), "target", 0)
            A[0] = T.Cast("float32", n)

    @I.ir_module
    class Expected:
        @T.prim_func
        def main(A: T.Buffer((4,), "float32"), n: T.int32):
            T.func_attr({"target": T.target("llvm")})
            T.call_packed("main_kernel", A.data, n)

        @T.prim_func
        def main_kernel(A_data: T.handle("float32", "global"), n: T.int32):
            T.func_attr({"target": T.target("cuda"), "calling_conv": 2,
                         "tirx.kernel_launch_params": [], "global_symbol": "main_kernel",
                         "tirx.noalias": True, "tirx.is_global_func": True})
            A = T.decl_buffer((4,), data=A_data)
            A[0] = T.Cast("float32", n)

    After = tvm.tirx.transform.SplitHostDevice()(Before)
    tvm.ir.assert_structural_equal(After, Expected)


def test_cpu_region_stays_inline():
    """Not TVM's form (a CPU kernel): the LLVM backend has no C-convention functions yet."""

    @I.ir_module
    class Before:
        @T.prim_func(s_tir=True)
        def main(n: T.int32):
            T.func_attr({"target": T.target("cuda", host="llvm")})
            T.attr(T.target("llvm"), "target", 0)
            T.evaluate(n + 1)

    After = tvm.tirx.transform.SplitHostDevice()(Before)
    tvm.ir.assert_structural_equal(After, Before)


def test_cpu_function_without_regions_is_unchanged():
    @I.ir_module
    class Before:
        @T.prim_func
        def main(n: T.int32):
            T.func_attr({"target": T.target("llvm")})
            T.evaluate(n)

    After = tvm.tirx.transform.SplitHostDevice()(Before)
    tvm.ir.assert_structural_equal(After, Before)
    assert After["main"].get_attr("tirx.is_host_func") is None


def test_kernel_with_nonzero_return_is_rejected():
    cuda = tvm.target.Target("cuda")
    body = tvm.tirx.AttrStmt(cuda, "target", 0, tvm.tirx.Return(tvm.tirx.IntImm("int32", 3)))
    func = tvm.tirx.PrimFunc([], body).with_attrs(
        {"global_symbol": "main", "target": tvm.target.Target(cuda, host="llvm")})
    with pytest.raises(tvm.error.InternalError, match="main.*successful return"):
        tvm.tirx.transform.SplitHostDevice()(tvm.IRModule({"main": func}))


def test_kernel_with_zero_return_is_split():
    cuda = tvm.target.Target("cuda")
    body = tvm.tirx.AttrStmt(cuda, "target", 0, tvm.tirx.Return(tvm.tirx.IntImm("int32", 0)))
    func = tvm.tirx.PrimFunc([], body).with_attrs(
        {"global_symbol": "main", "target": tvm.target.Target(cuda, host="llvm")})
    mod = tvm.tirx.transform.SplitHostDevice()(tvm.IRModule({"main": func}))
    assert mod["main_kernel"].get_attr("calling_conv") == 2
