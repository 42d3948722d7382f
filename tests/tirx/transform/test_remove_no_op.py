"""RemoveNoOp on TVMScript: empty and zero-extent loops, self-copies, branches, options."""

import pytest

import tvm
from tvm.script import tirx as T


def _run(func, **options):
    mod = tvm.IRModule.from_expr(func)
    config = {"tirx.RemoveNoOp": options} if options else {}
    with tvm.transform.PassContext(config=config):
        return tvm.tirx.transform.RemoveNoOp()(mod)["main"]


def test_zero_and_negative_extent_loops():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer(16, "int32")):
        for i in T.serial(16):
            for j in T.serial(i - 20):  # always negative
                A[i] = j
        for k in T.serial(0):
            A[k] = 1

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer(16, "int32")):
        T.evaluate(0)

    tvm.ir.assert_structural_equal(_run(before, max_simplification_steps=0), expected)


def test_self_copy_removed_using_bind_and_condition():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer(16, "int32")):
        for io, ii in T.grid(4, 4):
            i: T.let[T.int32] = 4 * io + ii
            A[4 * io + ii] = A[i]
        for i in T.serial(16):
            if i != 0:
                A[i] = A[i - 1]
            else:
                A[i] = A[0]

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer(16, "int32")):
        for io, ii in T.grid(4, 4):
            i: T.let[T.int32] = 4 * io + ii
        for i in T.serial(16):
            if i != 0:
                A[i] = A[i - 1]

    tvm.ir.assert_structural_equal(_run(before), expected)


def test_copies_between_elements_are_kept():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer(16, "int32")):
        for i in T.serial(15):
            A[i] = A[i + 1]
        for i in T.serial(16):
            A[i] = 100
            A[i] = 42

    tvm.ir.assert_structural_equal(_run(before, use_dataflow_analysis=True), before)


def test_branches():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer(16, "int32")):
        for i in T.serial(16):
            if i < 8:
                T.evaluate(0)
            else:
                A[i] = 42
        if True:
            T.evaluate(0)
        else:
            A[0] = 1

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer(16, "int32")):
        for i in T.serial(16):
            if not (i < 8):
                A[i] = 42

    tvm.ir.assert_structural_equal(_run(before), expected)


def test_evaluate_without_calls_is_dropped_calls_are_kept():
    @T.prim_func(private=True, s_tir=True)
    def before(n: T.int32):
        T.evaluate(n + 1)
        T.evaluate(T.call_extern("f", n, dtype="int32"))

    @T.prim_func(private=True, s_tir=True)
    def expected(n: T.int32):
        T.evaluate(T.call_extern("f", n, dtype="int32"))

    tvm.ir.assert_structural_equal(_run(before), expected)


def test_bad_options():
    @T.prim_func(private=True, s_tir=True)
    def func():
        T.evaluate(0)

    with pytest.raises(ValueError, match="unknown option 'steps'"):
        _run(func, steps=1)
    with pytest.raises(TypeError, match="'max_simplification_steps' expects a int"):
        _run(func, max_simplification_steps="3")
