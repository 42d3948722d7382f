"""VectorizeLoop statement by statement: vector forms, lane loops (``j_s``) and errors."""

import numpy as np
import pytest

import tvm
from tvm.ir import assert_structural_equal
from tvm.script import tirx as T
from tvm.tirx.transform import VectorizeLoop
from tvm.tirx.transform.loops import VectorizeError

SVE = {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mattr": ["+sve"]}


def _vectorize(func, target=None):
    mod = tvm.IRModule.from_expr(func)
    if target is None:
        return VectorizeLoop()(mod)["main"]
    with tvm.target.Target(target):
        return VectorizeLoop()(mod)["main"]


def test_invariant_if_keeps_its_place_and_a_varying_if_runs_lane_by_lane():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((8,), "float32"), n: T.int32, x: T.int32):
        for j in T.vectorized(8):
            if x < n:
                A[j] = A[j] * T.float32(2)
            else:
                if j < n:
                    A[j] = T.float32(5)

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((8,), "float32"), n: T.int32, x: T.int32):
        if x < n:
            A[T.Ramp(0, 1, 8)] = A[T.Ramp(0, 1, 8)] * T.Broadcast(T.float32(2), 8)
        else:
            for j_s in range(8):
                if j_s < n:
                    A[j_s] = T.float32(5)

    assert_structural_equal(_vectorize(before.with_attr("global_symbol", "main")),
                            expected.with_attr("global_symbol", "main"))


def test_each_statement_of_a_sequence_on_its_own():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for j in T.vectorized(4):
            A[j] = B[j] + T.float32(1)
            B[j] = T.if_then_else(j > 1, A[j], T.float32(0))

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        A[T.Ramp(0, 1, 4)] = B[T.Ramp(0, 1, 4)] + T.Broadcast(T.float32(1), 4)
        for j_s in range(4):
            B[j_s] = T.if_then_else(j_s > 1, A[j_s], T.float32(0))

    got = _vectorize(before.with_attr("global_symbol", "main"))
    assert_structural_equal(got, expected.with_attr("global_symbol", "main"))


def test_a_vector_element_store_becomes_one_wider_vector():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((4,), "float32x4")):
        for j in T.vectorized(4):
            A[j] = T.Broadcast(T.float32(1), 4)

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((4,), "float32x4")):
        A[T.Ramp(0, 1, 4)] = T.Broadcast(T.float32(1), 16)

    assert_structural_equal(_vectorize(before.with_attr("global_symbol", "main")),
                            expected.with_attr("global_symbol", "main"))


def test_a_body_with_a_local_buffer_runs_lane_by_lane_as_a_whole():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((4,), "float32")):
        for j in T.vectorized(4):
            t = T.decl_buffer((1,), "float32", scope="local")
            t[0] = A[j] * T.float32(2)
            A[j] = t[0] + T.float32(1)

    got = _vectorize(before.with_attr("global_symbol", "main"))
    assert isinstance(got.body, tvm.tirx.For) and got.body.loop_var.name == "j_s"


def test_split_statements_compute_the_same_numbers():
    @T.prim_func(s_tir=True)
    def func(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), n: T.int32):
        for i in range(2):
            for j in T.vectorized(8):
                B[i * 8 + j] = A[i * 8 + j] * T.float32(3)
                if i * 8 + j < n:
                    B[i * 8 + j] = B[i * 8 + j] + T.float32(1)

    a = np.arange(16, dtype="float32")
    b = tvm.runtime.tensor(np.zeros(16, "float32"))
    tvm.compile(func)(tvm.runtime.tensor(a), b, 11)
    np.testing.assert_array_equal(b.numpy(), a * 3 + (np.arange(16) < 11))


def test_while_in_a_vectorized_loop_is_an_error():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((4,), "int32")):
        for j in T.vectorized(4):
            while A[j] < 10:
                A[j] = A[j] + 1

    with pytest.raises(VectorizeError, match="A while loop inside a vectorized loop not "
                                             "supported") as info:
        _vectorize(before.with_attr("global_symbol", "main"))
    assert isinstance(info.value, ValueError) and isinstance(info.value, tvm.error.InternalError)


def test_scalable_vector_errors():
    @T.prim_func(private=True, s_tir=True)
    def scalable_elements(A: T.Buffer((8,), "float32xvscalex4")):
        for j in T.vectorized(4):
            A[j] = T.Broadcast(T.float32(1), T.vscale() * 4)

    with pytest.raises(VectorizeError, match="scalable buffer elements"):
        _vectorize(scalable_elements.with_attr("global_symbol", "main"))

    @T.prim_func(private=True, s_tir=True)
    def scalable_loop(A: T.Buffer((64,), "float32")):
        for j in T.vectorized(T.vscale() * 4):
            A[j] = T.float32(1)

    with pytest.raises(VectorizeError, match=r"extent T.vscale\(\) \* 4 for target"):
        _vectorize(scalable_loop.with_attr("global_symbol", "main"),
                   {"kind": "llvm", "mtriple": "x86_64-linux-gnu"})
    got = _vectorize(scalable_loop.with_attr("global_symbol", "main"), SVE)
    assert isinstance(got.body, tvm.tirx.BufferStore)
    assert got.body.value.dtype == "float32xvscalex4"


def test_get_active_lane_mask_checks_its_dtype_and_prints_it_first():
    mask = tvm.tirx.get_active_lane_mask("uint1x4", tvm.tirx.IntImm("int32", 8), 14)
    assert mask.dtype == "uint1x4"
    assert str(mask) == 'T.get_active_lane_mask("uint1x4", 8, 14)'
    with pytest.raises(ValueError, match="uint1 vector dtype"):
        tvm.tirx.get_active_lane_mask("int32x4", 0, 14)


PREDICATE = {"tirx.enable_buffer_level_predication": True}


def test_predication_masks_the_tail_stores_and_loads():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            for j in T.vectorized(4):
                if i * 4 + j < 14:
                    B[i * 4 + j] = A[i * 4 + j] * T.float32(2)

    @T.prim_func(private=True, s_tir=True)
    def expected(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            B.vstore([T.Ramp(i * 4, 1, 4)],
                     A.vload([T.Ramp(i * 4, 1, 4)],
                             predicate=T.get_active_lane_mask("uint1x4", i * 4, 14))
                     * T.Broadcast(T.float32(2), 4),
                     predicate=T.get_active_lane_mask("uint1x4", i * 4, 14))

    with tvm.transform.PassContext(config=PREDICATE):
        got = _vectorize(before.with_attr("global_symbol", "main"))
    assert_structural_equal(got, expected.with_attr("global_symbol", "main"))
    # Off (the default on targets without scalable vectors): the if runs lane by lane.
    got = _vectorize(before.with_attr("global_symbol", "main"))
    assert got.body.body.loop_var.name == "j_s"


def test_predication_needs_a_less_than_bound_and_vector_accesses_only():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            for j in T.vectorized(4):
                if i * 4 + j > 14:
                    B[i * 4 + j] = T.float32(1)
                if i * 4 + j < 14:
                    B[i * 4 + j] = A[i]  # a scalar load cannot take the mask

    with tvm.transform.PassContext(config=PREDICATE):
        got = _vectorize(before.with_attr("global_symbol", "main"))
    loops = got.body.body.seq
    assert [loop.loop_var.name for loop in loops] == ["j_s", "j_s"]


def test_sve_targets_predicate_by_default():
    @T.prim_func(private=True, s_tir=True)
    def before(A: T.Buffer((64,), "float32"), n: T.int32):
        for j in T.vectorized(T.vscale() * 4):
            if j < n:
                A[j] = T.float32(2)

    got = _vectorize(before.with_attr("global_symbol", "main"), SVE)
    assert isinstance(got.body, tvm.tirx.BufferStore)
    assert got.body.predicate.dtype == "uint1xvscalex4"
    with tvm.transform.PassContext(config={"tirx.enable_buffer_level_predication": False}):
        got = _vectorize(before.with_attr("global_symbol", "main"), SVE)
    assert isinstance(got.body, tvm.tirx.For)


def test_predicated_tail_runs_with_masked_loads_and_stores():
    @T.prim_func(s_tir=True)
    def tail(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(4):
            for j in T.vectorized(4):
                if i * 4 + j < 14:
                    B[i * 4 + j] = A[i * 4 + j] + T.float32(1)

    with tvm.transform.PassContext(config=PREDICATE):
        lib = tvm.compile(tail)
    ll = lib.inspect_source("ll")
    assert "@llvm.masked.load.v4f32.p0" in ll and "@llvm.masked.store.v4f32.p0" in ll
    assert "@llvm.get.active.lane.mask.v4i1.i32" in ll
    a = np.arange(16, dtype="float32")
    b = tvm.runtime.tensor(np.full(16, -1, "float32"))
    lib(tvm.runtime.tensor(a), b)
    np.testing.assert_array_equal(b.numpy(), np.where(np.arange(16) < 14, a + 1, -1))
