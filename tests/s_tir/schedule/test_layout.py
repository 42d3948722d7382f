"""Schedule.transform_layout / transform_block_layout: Before/Expected TVMScript (checked
against Apache TVM 0.27), numbers through tvm.compile, trace replay, and the errors."""

import numpy as np
import pytest

import tvm
from tvm import s_tir, tirx
from tvm.s_tir.schedule.testing import (
    assert_structural_equal_ignore_global_symbol,
    verify_trace_roundtrip,
)
from tvm.script import tirx as T


@T.prim_func(s_tir=True)
def add_then_scale(X: T.Buffer((32, 8), "float32"), Y: T.Buffer((32, 8), "float32")):
    T_tmp = T.sblock_alloc_buffer((32, 8), "float32")
    for i, j in T.grid(32, 8):
        with T.sblock("tmp"):
            vi, vj = T.axis.remap("SS", [i, j])
            T_tmp[vi, vj] = X[vi, vj] + T.float32(3)
    for i, j in T.grid(32, 8):
        with T.sblock("out"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = T_tmp[vi, vj] * T.float32(0.5)


@T.prim_func(s_tir=True)
def add_then_scale_tmp_tiled(X: T.Buffer((32, 8), "float32"), Y: T.Buffer((32, 8), "float32")):
    T_tmp = T.sblock_alloc_buffer((4, 8, 8), "float32")
    for i, j in T.grid(32, 8):
        with T.sblock("tmp"):
            vi, vj = T.axis.remap("SS", [i, j])
            T_tmp[vi // 8, vj, vi % 8] = X[vi, vj] + T.float32(3)
    for i, j in T.grid(32, 8):
        with T.sblock("out"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = T_tmp[vi // 8, vj, vi % 8] * T.float32(0.5)


@T.prim_func(s_tir=True)
def add_then_scale_x_transposed(X: T.Buffer((8, 32), "float32"),
                                Y: T.Buffer((32, 8), "float32")):
    T_tmp = T.sblock_alloc_buffer((32, 8), "float32")
    for i, j in T.grid(32, 8):
        with T.sblock("tmp"):
            vi, vj = T.axis.remap("SS", [i, j])
            T_tmp[vi, vj] = X[vj, vi] + T.float32(3)
    for i, j in T.grid(32, 8):
        with T.sblock("out"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = T_tmp[vi, vj] * T.float32(0.5)


def _run(func, *arrays):
    tensors = [tvm.runtime.tensor(a) for a in arrays]
    tvm.compile(func, target="llvm")(*tensors)
    return [t.numpy() for t in tensors]


def test_intermediate_buffer_tiled_layout_and_numbers():
    sch = s_tir.Schedule(add_then_scale, debug_mask="all")
    sch.transform_layout(sch.get_sblock("tmp"), ("write", 0),
                         lambda i, j: (i // 8, j, i % 8))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], add_then_scale_tmp_tiled)
    verify_trace_roundtrip(sch, add_then_scale)
    x = np.random.default_rng(1).random((32, 8), dtype="float32")
    _, y = _run(sch.mod["main"], x, np.zeros((32, 8), "float32"))
    np.testing.assert_allclose(y, (x + 3) * 0.5, rtol=1e-6)


def test_parameter_buffer_by_name_changes_the_signature():
    sch = s_tir.Schedule(add_then_scale, debug_mask="all")
    sch.transform_layout("tmp", "X", lambda i, j: (j, i))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], add_then_scale_x_transposed)
    x = np.random.default_rng(2).random((32, 8), dtype="float32")
    imap = tirx.IndexMap.from_func(lambda i, j: (j, i))
    _, y = _run(sch.mod["main"], imap.map_tensor(x), np.zeros((32, 8), "float32"))
    np.testing.assert_allclose(y, (x + 3) * 0.5, rtol=1e-6)


def test_trace_json_keeps_the_index_map():
    sch = s_tir.Schedule(add_then_scale, debug_mask="all")
    sch.transform_layout("out", "T_tmp", tirx.IndexMap.from_func(
        lambda i, j: (i // 8, j, i % 8), index_dtype="int64"))
    # An IndexMap of another index dtype is legalized to the buffer's (int32) indices.
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], add_then_scale_tmp_tiled)
    verify_trace_roundtrip(sch, add_then_scale, text_format="json")


def test_keyword_only_index_map_parameters_name_the_last_axes():
    @T.prim_func(s_tir=True)
    def before(A: T.Buffer((4, 6, 12), "float32"), B: T.Buffer((4, 6, 12), "float32")):
        for i, j, k in T.grid(4, 6, 12):
            with T.sblock("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, vj, vk]

    @T.prim_func(s_tir=True)
    def expected(A: T.Buffer((4, 6, 3, 4), "float32"), B: T.Buffer((4, 6, 12), "float32")):
        for i, j, k in T.grid(4, 6, 12):
            with T.sblock("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, vj, vk // 4, vk % 4]

    sch = s_tir.Schedule(before)
    sch.transform_layout("B", "A", lambda *outer, k: [*outer, k // 4, k % 4])
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], expected)


def test_padding_producer_rewritten_with_if_then_else():
    @T.prim_func(s_tir=True)
    def before(A: T.Buffer((10,), "float32"), C: T.Buffer((10,), "float32")):
        B = T.sblock_alloc_buffer((10,), "float32")
        for i in range(10):
            with T.sblock("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] + T.float32(1)
        for i in range(10):
            with T.sblock("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = B[vi]

    @T.prim_func(s_tir=True)
    def expected(A: T.Buffer((10,), "float32"), C: T.Buffer((10,), "float32")):
        B = T.sblock_alloc_buffer((3, 4), "float32")
        for i, j in T.grid(3, 4):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.if_then_else(vi == 2 and 2 <= vj, T.float32(-1),
                                           A[vi * 4 + vj] + T.float32(1))
        for i in range(10):
            with T.sblock("C"):
                vi = T.axis.remap("S", [i])
                C[vi] = B[vi // 4, vi % 4]

    sch = s_tir.Schedule(before, debug_mask="all")
    sch.transform_layout("B", "B", lambda i: (i // 4, i % 4), pad_value=-1.0)
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], expected)
    a = np.arange(10, dtype="float32")
    _, c = _run(sch.mod["main"], a, np.zeros(10, "float32"))
    np.testing.assert_allclose(c, a + 1)


def test_padding_of_an_input_becomes_an_assumption():
    @T.prim_func(s_tir=True)
    def before(A: T.Buffer((6,), "int32"), B: T.Buffer((6,), "int32")):
        for i in range(6):
            with T.sblock("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi] * 2

    @T.prim_func(s_tir=True)
    def expected(A: T.Buffer((2, 4), "int32"), B: T.Buffer((6,), "int32")):
        for i, j in T.grid(2, 4):
            with T.sblock("pad_assumption"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.evaluate(T.assume(not (vi == 1 and 2 <= vj) or A[vi, vj] == 7))
        for i in range(6):
            with T.sblock("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi // 4, vi % 4] * 2

    sch = s_tir.Schedule(before)
    sch.transform_layout("B", "A", lambda i: (i // 4, i % 4), pad_value=7)
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], expected)


def test_padding_after_a_producer_with_other_stores():
    @T.prim_func(s_tir=True)
    def before(A: T.Buffer((6,), "int32"), C: T.Buffer((6,), "int32")):
        B = T.sblock_alloc_buffer((6,), "int32")
        for i in range(6):
            with T.sblock("B"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]
                C[vi] = A[vi] + 1

    @T.prim_func(s_tir=True)
    def expected(A: T.Buffer((6,), "int32"), C: T.Buffer((6,), "int32")):
        B = T.sblock_alloc_buffer((2, 4), "int32")
        for i in range(6):
            with T.sblock("B"):
                vi = T.axis.remap("S", [i])
                B[vi // 4, vi % 4] = A[vi]
                C[vi] = A[vi] + 1
        for i, j in T.grid(2, 4):
            with T.sblock("B_padding"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.where(i == 1 and 2 <= j)
                B[vi, vj] = 0

    sch = s_tir.Schedule(before)
    sch.transform_layout("B", "B", lambda i: (i // 4, i % 4), pad_value=0)
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], expected)


def test_padding_errors():
    @T.prim_func(s_tir=True)
    def before(A: T.Buffer((6,), "float32")):
        for i in range(6):
            with T.sblock("A"):
                vi = T.axis.remap("S", [i])
                A[vi] = T.float32(0)

    split = lambda i: (i // 4, i % 4)
    sch = s_tir.Schedule(before)
    with pytest.raises(s_tir.ScheduleError, match="would introduce padding wherever"):
        sch.transform_layout("A", "A", split)
    with pytest.raises(s_tir.ScheduleError, match="which is of type int32"):
        sch.transform_layout("A", "A", split, pad_value=0)
    other = tirx.decl_buffer((1,), "float32", name="other")
    with pytest.raises(s_tir.ScheduleError, match="loads buffer other"):
        sch.transform_layout("A", "A", split, pad_value=lambda i, j: other[0])
    with pytest.raises(ValueError, match="could not find buffer 'Z'"):
        sch.transform_layout("A", "Z", split)
    # The padding is never touched: nothing to fill.
    sch.transform_layout("A", "A", split, assume_injective_transform=True)
    assert [int(s) for s in sch.mod["main"].buffer_map[sch.mod["main"].params[0]].shape] == [2, 4]


@T.prim_func(s_tir=True)
def row_sum(A: T.Buffer((6, 4, 5), "float32"), B: T.Buffer((6, 4), "float32")):
    for i, j, k in T.grid(6, 4, 5):
        with T.sblock("B"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                B[vi, vj] = T.float32(0)
            B[vi, vj] = B[vi, vj] + A[vi, vj, vk]


@T.prim_func(s_tir=True)
def row_sum_fused(A: T.Buffer((6, 4, 5), "float32"), B: T.Buffer((6, 4), "float32")):
    for ax0, ax1 in T.grid(24, 5):
        with T.sblock("B"):
            v0, v1 = T.axis.remap("SR", [ax0, ax1])
            with T.init():
                B[v0 // 4, v0 % 4] = T.float32(0)
            B[v0 // 4, v0 % 4] = B[v0 // 4, v0 % 4] + A[v0 // 4, v0 % 4, v1]


def test_transform_block_layout_fuses_spatial_iterators():
    sch = s_tir.Schedule(row_sum, debug_mask="all")
    sch.transform_block_layout("B", lambda i, j, k: (i * 4 + j, k))
    assert_structural_equal_ignore_global_symbol(sch.mod["main"], row_sum_fused)
    verify_trace_roundtrip(sch, row_sum)
    a = np.random.default_rng(3).random((6, 4, 5), dtype="float32")
    _, b = _run(sch.mod["main"], a, np.zeros((6, 4), "float32"))
    np.testing.assert_allclose(b, a.sum(-1), rtol=1e-5)


def test_transform_block_layout_errors():
    sch = s_tir.Schedule(row_sum)
    with pytest.raises(s_tir.ScheduleError, match="not bijective affine"):
        sch.transform_block_layout("B", lambda i, j, k: (i + j, k))
    with pytest.raises(s_tir.ScheduleError, match="more than one type"):
        sch.transform_block_layout("B", lambda i, j, k: (i, j * 5 + k))
    with pytest.raises(s_tir.ScheduleError, match="number of parameters mismatch"):
        sch.transform_block_layout("B", tirx.IndexMap.from_func(lambda i, j: (i, j),
                                                                index_dtype="int32"))
