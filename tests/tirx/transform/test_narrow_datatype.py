"""NarrowDataType: int64 index arithmetic narrowed to int32 (or int32 to int16) when it fits."""

import numpy as np
import pytest

import tvm
from tvm.script import tirx as T


def _narrow(func, bits=32):
    mod = tvm.tirx.transform.NarrowDataType(bits)(tvm.IRModule.from_expr(func))
    (result,) = mod.functions.values()
    return result


def test_loops_and_indices_become_int32():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((64,), "int64"), B: T.Buffer((64,), "float32")):
        for i in range(T.int64(8)):
            for j in T.vectorized(T.int64(8)):
                A[i * T.int64(8) + j] = A[i * T.int64(8) + j] * T.int64(3)
                B[T.min(i * T.int64(8) + j, T.int64(63))] = T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((64,), "int64"), B: T.Buffer((64,), "float32")):
        for i in range(8):
            for j in T.vectorized(8):
                A[i * 8 + j] = A[i * 8 + j] * T.int64(3)
                B[T.min(i * 8 + j, 63)] = T.float32(1)

    tvm.ir.assert_structural_equal(_narrow(before), expected)


def test_values_that_may_not_fit_keep_their_type():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((T.int64(4294967296),), "int8"), n: T.int64):
        for i in range(T.int64(65536)):
            for j in range(T.int64(65536)):
                A[i * T.int64(65536) + j] = T.int8(0)
        for k in range(n):
            A[k] = T.int8(1)

    after = _narrow(before)
    first, second = after.body.seq
    assert first.loop_var.dtype == "int64" and first.body.loop_var.dtype == "int64"
    assert second.loop_var.dtype == "int64"  # a symbolic extent: no bound
    # target 16: 2**16 iterations of int32 do not fit int16 either
    assert _narrow(before, 16).body.seq[0].loop_var.dtype == "int64"


def test_narrow_to_16_bits_and_thread_axes():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((256,), "float32")):
        bx = T.launch_thread("blockIdx.x", 8)
        tx = T.launch_thread("threadIdx.x", 32)
        A[bx * 32 + tx] = T.float32(0)

    after = _narrow(before, 16)
    assert after.body.node.var.dtype == "int16"
    assert after.body.body.node.var.dtype == "int16"
    assert after.body.body.body.indices[0].dtype == "int16"


def test_narrowed_function_computes_the_same():
    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((12,), "int32"), B: T.Buffer((12,), "int32")):
        for i in range(T.int64(3)):
            for j in range(T.int64(4)):
                B[i * T.int64(4) + j] = A[i * T.int64(4) + j] * 2 + A[
                    (T.int64(2) - i) * T.int64(4) + T.int64(3) - j]

    narrowed = _narrow(func).with_attr("global_symbol", "func")
    assert narrowed.body.loop_var.dtype == "int32"
    a = np.arange(12, dtype="int32") - 5
    expected = a * 2 + a[::-1]
    for f in (func, narrowed):
        b = tvm.runtime.tensor(np.zeros(12, "int32"))
        tvm.compile(f, target="llvm")(tvm.runtime.tensor(a), b)
        np.testing.assert_array_equal(b.numpy(), expected)


def test_bad_target_bits():
    with pytest.raises(ValueError, match="target_bits must be 8, 16, 32 or 64"):
        tvm.tirx.transform.NarrowDataType(12)


def test_block_iteration_variables_are_narrowed_with_their_bindings():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
        for i, j in T.grid(T.int64(16), T.int64(8)):
            with T.sblock("B"):
                vi = T.axis.spatial(T.int64(128), i * T.int64(8) + j)
                B[vi] = A[vi] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
        for i, j in T.grid(16, 8):
            with T.sblock("B"):
                vi = T.axis.spatial(128, i * 8 + j)
                B[vi] = A[vi] + T.float32(1)

    tvm.ir.assert_structural_equal(_narrow(before), expected)


def test_a_block_variable_whose_domain_does_not_fit_keeps_int64():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((T.int64(4294967296),), "float32")):
        for i in range(T.int64(4)):
            with T.sblock("A"):
                vi = T.axis.spatial(T.int64(4294967296), i * T.int64(1073741824))
                A[vi] = T.float32(1)

    realizes = []
    tvm.tirx.stmt_functor.post_order_visit(
        _narrow(before).body, lambda n: realizes.append(n)
        if isinstance(n, tvm.tirx.SBlockRealize) and n.block.name_hint == "A" else None)
    (realize,) = realizes
    assert realize.block.iter_vars[0].var.dtype == "int64"
    assert realize.iter_values[0].dtype == "int64"
